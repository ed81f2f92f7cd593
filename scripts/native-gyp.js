'use strict';
/**
 * The real side of scripts/native-abi.js: node-gyp against Node's or Electron's headers, and loading .node files
 * in a runtime to see whether they fit. node-gyp's options are the ones @electron/rebuild passes
 * (lib/module-type/node-gyp/node-gyp.js: --runtime=electron --target --arch --dist-url --build-from-source) with
 * headers cached in ~/.electron-gyp like it; SLUICE_ELECTRON_NODEDIR points node-gyp at unpacked headers instead
 * (node-gyp --nodedir), SLUICE_ELECTRON_HEADERS_URL at a mirror.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

/** node-gyp's command-line flags for one target (Node: this Node's headers; Electron: its headers). */
function targetFlags(target, env = process.env) {
  const flags = [`--target=${target.version}`, `--arch=${target.arch}`];
  if (target.runtime === 'electron') {
    flags.push('--runtime=electron', '--build-from-source');
    if (env.SLUICE_ELECTRON_NODEDIR) flags.push(`--nodedir=${env.SLUICE_ELECTRON_NODEDIR}`);
    else
      flags.push(
        `--dist-url=${env.SLUICE_ELECTRON_HEADERS_URL || ELECTRON_HEADERS_URL}`,
        `--devdir=${path.join(os.homedir(), '.electron-gyp')}`,
      );
    return flags;
  }
  const nodedir = env.npm_config_nodedir || installedNodeHeaders();
  if (nodedir) flags.push(`--nodedir=${nodedir}`);
  return flags;
}

/** The prefix of this Node when it ships its headers (Debian's nodejs: /usr/include/node), else undefined. */
function installedNodeHeaders() {
  const prefix = path.join(path.dirname(process.execPath), '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_version.h')) ? path.resolve(prefix) : undefined;
}

/** The Electron executable of node_modules/electron, downloading it the way `electron .` would; null when absent. */
function electronExecutable(root) {
  return downloadElectron(root, { stdio: 'inherit' }).exe;
}

/**
 * The Electron executable of node_modules/electron, running the package's install.js (@electron/get: ELECTRON_MIRROR,
 * electron_config_cache, ...) when it is not there yet.
 * @param stdio  'pipe' keeps the installer's output (a `fetch failed` stack when offline) in `output` instead of
 *   showing it; `onDownload` is called before the installer starts
 * @returns `{ exe, output }`: exe null when there is no Electron package or the download failed
 */
function downloadElectron(root, { stdio = 'pipe', env = process.env, onDownload } = {}) {
  const dir = path.join(root, 'node_modules', 'electron');
  const exe = () => {
    const p = path.join(dir, 'path.txt');
    if (!fs.existsSync(p)) return null;
    const full = path.join(dir, 'dist', fs.readFileSync(p, 'utf8').trim());
    return fs.existsSync(full) ? full : null;
  };
  if (exe()) return { exe: exe(), output: '' };
  if (!fs.existsSync(path.join(dir, 'install.js'))) return { exe: null, output: `no ${path.join(dir, 'install.js')}` };
  if (onDownload) onDownload();
  const res = spawnSync(process.execPath, [path.join(dir, 'install.js')], {
    stdio,
    env,
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { exe: exe(), output: `${res.stdout || ''}${res.stderr || ''}` };
}

/** Where Electron's release zips come from: @electron/get's ELECTRON_MIRROR, else GitHub. */
function electronMirror(env = process.env) {
  return (
    env.ELECTRON_MIRROR || env.npm_config_electron_mirror || 'https://github.com/electron/electron/releases/download/'
  );
}

// Loaded in the target runtime: dlopen each file given in argv with RTLD_NOW (a missing symbol, e.g. an OpenSSL
// function BoringSSL lacks, fails here rather than at first call), print [{file, ok, error}] as JSON.
const PROBE = `const now=(require('os').constants.dlopen||{}).RTLD_NOW;const out=[];for(const f of JSON.parse(process.argv[1])){try{now===undefined?process.dlopen({exports:{}},f):process.dlopen({exports:{}},f,now);out.push({file:f,ok:true})}catch(e){out.push({file:f,ok:false,error:String(e&&e.message||e)})}}process.stdout.write(JSON.stringify(out))`;

/**
 * The runner native-abi.js's ensureAbi drives.
 * @param root  the repo root (node_modules/ and native/ under it)
 */
function gypRunner({ root, stdio = 'inherit' }) {
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js', { paths: [root, __dirname] });
  let electronExe;
  const runtimeExe = (target) => {
    if (target.runtime === 'node')
      return target.version === process.versions.node && target.arch === process.arch ? process.execPath : null;
    if (target.arch !== process.arch) return null;
    if (electronExe === undefined) electronExe = electronExecutable(root);
    return electronExe;
  };
  const gyp = (args, cwd, what, io = stdio) => {
    const res = spawnSync(process.execPath, [nodeGyp, ...args], { cwd, stdio: io, env: process.env, encoding: 'utf8' });
    if (res.status === 0) return;
    // With stdio 'pipe' node-gyp's own reason is in stderr: its first error lines go into the message.
    const why =
      typeof res.stderr === 'string'
        ? res.stderr
            .split('\n')
            .filter((l) => /gyp ERR!/.test(l))
            .slice(0, 4)
            .join(' | ')
        : '';
    const err = new Error(
      `native-abi: ${what} failed (node-gyp ${args.join(' ')} in ${cwd}, exit ${res.status ?? res.signal})${why ? `: ${why}` : ''}`,
    );
    err.output = `${res.stdout || ''}${res.stderr || ''}`;
    throw err;
  };
  return {
    canProbe: (target) => runtimeExe(target) != null,
    probe(target, files) {
      const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
      const res = spawnSync(runtimeExe(target), ['-e', PROBE, JSON.stringify(files)], { env, encoding: 'utf8' });
      if (res.status !== 0)
        return files.map((file) => ({ file, ok: false, error: `probe exited ${res.status}: ${res.stderr}` }));
      return JSON.parse(res.stdout);
    },
    /** Fetches the target's headers before any build folder is cleaned (node-gyp rebuild starts with clean). */
    prepare(target) {
      const flags = targetFlags(target);
      if (flags.some((f) => f.startsWith('--nodedir='))) return;
      try {
        // Piped: offline, node-gyp prints a `gyp ERR! stack`; native-abi.js says what happened in one paragraph.
        gyp(['install', ...flags], root, `fetching ${target.runtime} ${target.version} headers`, 'pipe');
      } catch (e) {
        const url = flags.find((f) => f.startsWith('--dist-url='));
        e.download = {
          what: 'headers',
          version: target.version,
          url: url ? url.slice('--dist-url='.length) : undefined,
        };
        throw e;
      }
    },
    rebuild(build, target) {
      if (build.buildcheck) writeBuildcheck(build.absDir);
      console.log(
        `native-abi: building ${build.name} for ${target.runtime} ${target.version} in ${path.relative(root, build.absDir)}`,
      );
      gyp(
        ['rebuild', ...targetFlags(target), ...build.gypArgs(target)],
        build.absDir,
        `building ${build.name} for ${target.runtime} ${target.version}`,
      );
    },
  };
}

/** cpu-features' install step: its compiler feature checks, written before node-gyp reads buildcheck.gypi. */
function writeBuildcheck(dir) {
  const res = spawnSync(process.execPath, ['buildcheck.js'], { cwd: dir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`native-abi: cpu-features buildcheck.js failed: ${res.stderr}`);
  fs.writeFileSync(path.join(dir, 'buildcheck.gypi'), res.stdout);
}

module.exports = { gypRunner, targetFlags, electronExecutable, downloadElectron, electronMirror, ELECTRON_HEADERS_URL };
