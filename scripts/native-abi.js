#!/usr/bin/env node
'use strict';
/* global fetch, AbortSignal */
/**
 * Which runtime the native modules in node_modules (and native/) are built for, and the rebuild that changes it.
 *
 *   node scripts/native-abi.js node        build for this Node (npm test, the CLI); cheap when the marker says so
 *   node scripts/native-abi.js electron    build for the Electron in node_modules/electron (npm start, packaging)
 *   node scripts/native-abi.js check [node|electron]   load every module in that runtime, print, exit 1 on failure
 *   options: --force (rebuild even when the marker matches), --arch <x64|arm64|ia32>, --electron-version <v>,
 *            --verbose (or SLUICE_DEBUG=1: the downloads' own output, stacks included)
 *
 * `electron` for this machine first gets the Electron binary (node_modules/electron/install.js); when it or
 * Electron's headers cannot be downloaded it prints one paragraph (what, why, what to do) and exits 1, having
 * changed nothing.
 *
 * A `.node` file loads only in the runtime whose NODE_MODULE_VERSION it was compiled against (Electron's main
 * process refuses Node's build and the reverse: "was compiled against a different Node.js version using
 * NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 150"). node_modules holds one
 * build at a time, so the direction is recorded in node_modules/.sluice-native-abi.json (the marker): runtime,
 * version, ABI, arch. The decision is {@link planRebuild}; running node-gyp is scripts/native-gyp.js.
 * Electron's headers come from https://electronjs.org/headers as electron-builder's install-app-deps and
 * @electron/rebuild fetch them (SLUICE_ELECTRON_NODEDIR: an unpacked headers folder, for offline machines).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const MARKER = path.join(ROOT, 'node_modules', '.sluice-native-abi.json');

/**
 * Every native module the app and the CLI load, and how node-gyp builds it.
 * `dir`: where binding.gyp is (repo-relative); `binaries`: the .node files it produces (relative to dir; null =
 * every .node under build/Release); `optional`: absent folders are skipped (native/ lands from another branch);
 * `fallback`: the code using it has a JavaScript fallback, so a build that does not load is set aside, not fatal.
 */
const NATIVE_BUILDS = [
  {
    name: 'better-sqlite3',
    dir: 'node_modules/better-sqlite3',
    binaries: ['build/Release/better_sqlite3.node'],
    gypArgs: () => ['--release'],
  },
  {
    name: 'ssh2',
    dir: 'node_modules/ssh2/lib/protocol/crypto',
    binaries: ['build/Release/sshcrypto.node'],
    fallback: true,
    // ssh2's own install.js passes the OpenSSL major; Electron links BoringSSL, whose API is OpenSSL 1.1's.
    gypArgs: (t) => [`--real_openssl_major=${t.runtime === 'electron' ? 1 : /^\d+/.exec(process.versions.openssl)[0]}`],
  },
  {
    name: 'cpu-features',
    dir: 'node_modules/cpu-features',
    binaries: ['build/Release/cpufeatures.node'],
    gypArgs: () => [],
    buildcheck: true,
    fallback: true,
  },
  { name: 'native', dir: 'native', binaries: null, gypArgs: () => [], optional: true, fallback: true },
];

/** The running Node as a build target. */
function nodeTarget(arch = process.arch) {
  return { runtime: 'node', version: process.versions.node, abi: process.versions.modules, arch };
}

/**
 * The Electron in node_modules/electron as a build target; its ABI from the package's abi_version file (written by
 * Electron's release tooling), else node-abi's table. Throws when electron is not installed.
 */
function electronTarget(root = ROOT, arch = process.arch, version) {
  const pkgDir = path.join(root, 'node_modules', 'electron');
  const installed = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const v = version || installed;
  let abi;
  const abiFile = path.join(pkgDir, 'abi_version');
  if (v === installed && fs.existsSync(abiFile)) abi = fs.readFileSync(abiFile, 'utf8').trim();
  else abi = require('node-abi').getAbi(v, 'electron');
  return { runtime: 'electron', version: v, abi: String(abi), arch };
}

/** The builds present in this checkout, each with the .node files it has now (absolute paths). */
function presentBuilds(root = ROOT, builds = NATIVE_BUILDS) {
  const out = [];
  for (const b of builds) {
    const dir = path.join(root, b.dir);
    if (!fs.existsSync(path.join(dir, 'binding.gyp'))) {
      if (b.optional) continue;
      throw new Error(`native-abi: ${b.name}: no binding.gyp in ${dir} (is npm install done?)`);
    }
    out.push({ ...b, absDir: dir, files: binariesOf(b, dir) });
  }
  return out;
}

/** The .node files a build has produced (listed, or every .node under build/Release), existing or not. */
function binariesOf(build, dir) {
  if (build.binaries) return build.binaries.map((f) => path.join(dir, f));
  const rel = path.join(dir, 'build', 'Release');
  if (!fs.existsSync(rel)) return [];
  return fs
    .readdirSync(rel)
    .filter((f) => f.endsWith('.node'))
    .map((f) => path.join(rel, f));
}

/** The marker's content, or null when absent or unreadable. */
function readMarker(file = MARKER) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Writes the marker for `target` with the modules built and those set aside (`disabled`) (atomic rename). */
function writeMarker(target, builds, file = MARKER, disabled = []) {
  const body = {
    ...target,
    modules: builds.map((b) => b.name).sort(),
    disabled: [...disabled].sort(),
    writtenAt: new Date().toISOString(),
  };
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
  return body;
}

/** True when the marker says every module in `names` was built for exactly this runtime, version, ABI and arch. */
function markerMatches(marker, target, names) {
  if (!marker) return false;
  for (const k of ['runtime', 'version', 'abi', 'arch']) if (String(marker[k]) !== String(target[k])) return false;
  const built = new Set(marker.modules || []);
  return names.every((n) => built.has(n));
}

/**
 * What to rebuild for `target`. Cheap path: the marker matches and every .node file exists -> nothing, no process
 * started. Otherwise each module is loaded in the target runtime (`runner.probe`, when the runtime can be run
 * here) and only those that fail are rebuilt; when it cannot be run (no Electron binary), every module is.
 * @param builds  from {@link presentBuilds}
 * @param runner   `{ canProbe(target): boolean, probe(target, files): Array<{file, ok, error?}> }`
 * @returns `{ keep: boolean, rebuild: Array<{name, reason}> }`
 */
function planRebuild({ marker, target, builds, runner, force = false, exists = fs.existsSync }) {
  // A module set aside for exactly this target (its build did not load) stays without files until the target changes.
  const setAside = new Set(markerMatches(marker, target, []) ? marker.disabled || [] : []);
  const missing = builds.filter(
    (b) => !setAside.has(b.name) && (b.files.length === 0 || b.files.some((f) => !exists(f))),
  );
  if (
    !force &&
    missing.length === 0 &&
    markerMatches(
      marker,
      target,
      builds.map((b) => b.name),
    )
  )
    return { keep: true, rebuild: [] };
  const rebuild = [];
  const probeable = !force && runner.canProbe(target);
  for (const b of builds) {
    if (force) {
      rebuild.push({ name: b.name, reason: '--force' });
      continue;
    }
    if (setAside.has(b.name)) continue;
    if (missing.includes(b)) {
      rebuild.push({ name: b.name, reason: 'no .node file built' });
      continue;
    }
    if (!probeable) {
      rebuild.push({
        name: b.name,
        reason: `${target.runtime} ${target.version} cannot be run here to check the build`,
      });
      continue;
    }
    const failed = runner.probe(target, b.files).find((r) => !r.ok);
    if (failed) rebuild.push({ name: b.name, reason: firstLine(failed.error) });
  }
  return { keep: false, rebuild };
}

function firstLine(s) {
  return String(s || 'failed to load').split('\n')[0];
}

/**
 * Brings every native module to `target`: plans, fetches the headers (before any module's build folder is
 * cleaned, so a failed download leaves the old builds working), rebuilds what the plan says, checks the result
 * loads when the runtime can be run here, and writes the marker.
 * @param runner  {@link planRebuild}'s runner plus `prepare(target)` and `rebuild(build, target)`
 * (scripts/native-gyp.js)
 * @returns `{ action: 'kept'|'rebuilt'|'marked', rebuilt: string[], reasons }`
 * @throws  Error naming the module and the runtime when a build or the check after it fails
 */
function ensureAbi(
  target,
  { root = ROOT, runner, markerFile = MARKER, force = false, log = console.log, builds } = {},
) {
  const present = builds || presentBuilds(root);
  const marker = readMarker(markerFile);
  const plan = planRebuild({ marker, target, builds: present, runner, force });
  const label = `${target.runtime} ${target.version} (NODE_MODULE_VERSION ${target.abi}, ${target.arch})`;
  if (plan.keep) {
    log(`native-abi: native modules already built for ${label}`);
    return { action: 'kept', rebuilt: [], reasons: [] };
  }
  const rebuilding = plan.rebuild.map((r) => r.name);
  // Set aside earlier for this same target and not rebuilt now: still set aside.
  const carried = markerMatches(marker, target, [])
    ? (marker.disabled || []).filter((n) => !rebuilding.includes(n))
    : [];
  let built = present;
  let disabled = carried;
  if (plan.rebuild.length) {
    for (const r of plan.rebuild) log(`native-abi: ${r.name} needs a build for ${label}: ${r.reason}`);
    runner.prepare(target);
    const skipped = rebuildAll(
      rebuilding.map((n) => present.find((b) => b.name === n)),
      target,
      runner,
      log,
    );
    built = present.filter((b) => !skipped.includes(b.name));
    disabled = carried.concat(
      verifyBuilt(
        target,
        built.filter((b) => rebuilding.includes(b.name)),
        runner,
        root,
        log,
      ),
    );
  }
  writeMarker(target, built, markerFile, disabled);
  log(
    `native-abi: native modules built for ${label}${plan.rebuild.length ? ` (rebuilt: ${plan.rebuild.map((r) => r.name).join(', ')})` : ''}`,
  );
  return {
    action: plan.rebuild.length ? 'rebuilt' : 'marked',
    rebuilt: plan.rebuild.map((r) => r.name),
    reasons: plan.rebuild,
  };
}

/**
 * Runs each build; a failing optional one (native/: every function has a JavaScript fallback) is reported and left
 * out of the marker, so it is tried again next time, instead of failing the whole step.
 * @returns the names of the optional builds that failed
 */
function rebuildAll(builds, target, runner, log) {
  const skipped = [];
  for (const b of builds) {
    try {
      runner.rebuild(b, target);
    } catch (e) {
      if (!b.optional) throw e;
      log(
        `native-abi: ${b.name} was not built (${e instanceof Error ? e.message : e}); its JavaScript fallbacks are used`,
      );
      skipped.push(b.name);
    }
  }
  return skipped;
}

/**
 * After a rebuild: every module's files exist and (when the runtime runs here) load with RTLD_NOW. A module with a
 * JavaScript fallback that still does not load is set aside (its .node renamed to .node.disabled, so nothing loads
 * it: ssh2 then uses its JavaScript ciphers); any other throws, naming it.
 * @returns the names set aside
 */
function verifyBuilt(target, builds, runner, root, log) {
  const fresh = presentBuilds(root, builds);
  const canProbe = runner.canProbe(target);
  const disabled = [];
  for (const b of fresh) {
    if (b.files.length === 0 || b.files.some((f) => !fs.existsSync(f)))
      throw new Error(
        `native-abi: ${b.name}: node-gyp finished but ${b.files.join(', ') || path.join(b.absDir, 'build/Release/*.node')} is missing`,
      );
    if (!canProbe) continue;
    const failed = runner.probe(target, b.files).find((r) => !r.ok);
    if (!failed) continue;
    const what = `${b.name} was rebuilt for ${target.runtime} ${target.version} but ${failed.file} still fails to load: ${firstLine(failed.error)}`;
    if (!b.fallback) throw new Error(`native-abi: ${what}`);
    for (const f of b.files) fs.renameSync(f, `${f}.disabled`);
    log(`native-abi: WARNING ${what}; set aside (.node.disabled), its JavaScript fallback is used`);
    disabled.push(b.name);
  }
  return disabled;
}

function parseArgs(argv) {
  const opts = { mode: argv[0], force: argv.includes('--force') };
  const val = (flag) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  opts.arch = val('--arch') || process.arch;
  opts.electronVersion = val('--electron-version');
  opts.checkRuntime = argv[1] && !argv[1].startsWith('--') ? argv[1] : 'node';
  return opts;
}

function targetFor(runtime, opts) {
  return runtime === 'electron' ? electronTarget(ROOT, opts.arch, opts.electronVersion) : nodeTarget(opts.arch);
}

/** `check`: loads every module in the runtime and prints one line each; exit 1 when one fails. */
function check(target, runner) {
  const marker = readMarker();
  console.log(`marker: ${marker ? `${marker.runtime} ${marker.version} (ABI ${marker.abi}, ${marker.arch})` : 'none'}`);
  if (!runner.canProbe(target)) {
    console.log(
      `${target.runtime} ${target.version} cannot be run here; the marker ${
        markerMatches(
          marker,
          target,
          presentBuilds().map((b) => b.name),
        )
          ? 'matches'
          : 'does not match'
      }`,
    );
    return markerMatches(
      marker,
      target,
      presentBuilds().map((b) => b.name),
    )
      ? 0
      : 1;
  }
  let bad = 0;
  for (const b of presentBuilds()) {
    for (const r of b.files.length
      ? runner.probe(target, b.files)
      : [{ file: `${b.absDir}/build/Release/*.node`, ok: false, error: 'not built' }]) {
      console.log(
        `${r.ok ? 'ok  ' : 'FAIL'} ${b.name} ${path.relative(ROOT, r.file)}${r.ok ? '' : `: ${firstLine(r.error)}`}`,
      );
      if (!r.ok) bad++;
    }
  }
  return bad ? 1 : 0;
}

/**
 * Why `url` cannot be fetched, in a few words (`getaddrinfo ENOTFOUND github.com`, `connect ECONNREFUSED
 * 127.0.0.1:40123`, `HTTP 404`), from one HEAD request of at most 10 s; null when it answers.
 */
async function whyUnreachable(url) {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    return res.status >= 400 ? `HTTP ${res.status}` : null;
  } catch (e) {
    const cause = e && e.cause;
    return String((cause && (cause.message || cause.code)) || (e && e.message) || e);
  }
}

/**
 * The one paragraph `npm start` ends with when Electron or its headers cannot be downloaded (no network, a proxy, a
 * blocked host): what failed and why, that nothing changed, and what to do.
 * @param failure  `{ what: 'electron'|'headers', version, url, reason }`
 */
function downloadFailureText({ what, version, url, reason }) {
  const thing = what === 'electron' ? `Electron ${version}` : `Electron ${version}'s headers`;
  const needed =
    what === 'electron'
      ? '`npm start` runs the desktop app in it'
      : 'the native modules must be rebuilt against them for the desktop app';
  return (
    [
      `sluice: could not download ${thing} from ${url}${reason ? ` (${reason})` : ''}: ${needed}.`,
      'Nothing was changed (the native modules were not touched), and the command line works meanwhile:',
      '`node bin/sluice.js --help`, or `npm link` once and then `sluice`.',
      'To start the app, run `npm start` again where the download is reachable, or give it a copy: a mirror of',
      "Electron's releases in ELECTRON_MIRROR, a mirror of its headers in SLUICE_ELECTRON_HEADERS_URL or the headers",
      "unpacked in SLUICE_ELECTRON_NODEDIR (docs/packaging.md). SLUICE_DEBUG=1 shows the download's own output.",
    ].join('\n') + '\n'
  );
}

/** Prints {@link downloadFailureText} (and with `verbose` the download's own output first); returns the exit code 1. */
async function reportDownloadFailure(failure, output, verbose, probeUrl) {
  if (verbose && output) process.stderr.write(`${output.trimEnd()}\n\n`);
  const reason = (probeUrl && (await whyUnreachable(probeUrl))) || firstErrorLine(output);
  process.stderr.write(downloadFailureText({ ...failure, reason }));
  return 1;
}

/** The first line of a tool's output that reads as an error, without its class name ("fetch failed"). */
function firstErrorLine(output) {
  const line = String(output || '')
    .split('\n')
    .map((l) => l.replace(/^gyp ERR! (stack )?/, '').trim())
    .find((l) => /error|failed|refused|not found/i.test(l) && !/^at /.test(l));
  return line ? line.replace(/^\w*Error: /, '') : undefined;
}

/**
 * `electron` mode for this machine's arch: the Electron binary first (what `electron .` runs), quietly, so that an
 * offline machine gets one paragraph instead of @electron/get's stack and nothing is rebuilt for an app that
 * cannot start. @returns null when Electron is there, else the exit code
 */
async function ensureElectronBinary(target, verbose) {
  const { downloadElectron, electronMirror } = require('./native-gyp');
  const onDownload = () =>
    console.log(`native-abi: downloading Electron ${target.version} (about 100 MB, once: cached by @electron/get)`);
  const got = downloadElectron(ROOT, { stdio: verbose ? 'inherit' : 'pipe', onDownload });
  if (got.exe) return null;
  const mirror = electronMirror();
  const zip = `${mirror.replace(/\/?$/, '/')}v${target.version}/electron-v${target.version}-${process.platform}-${target.arch}.zip`;
  return reportDownloadFailure({ what: 'electron', version: target.version, url: mirror }, got.output, verbose, zip);
}

async function main(argv, env = process.env) {
  const opts = parseArgs(argv);
  const verbose = argv.includes('--verbose') || env.SLUICE_DEBUG === '1';
  const { gypRunner } = require('./native-gyp');
  const runner = gypRunner({ root: ROOT });
  if (opts.mode === 'check') return check(targetFor(opts.checkRuntime, opts), runner);
  if (opts.mode !== 'node' && opts.mode !== 'electron') {
    console.error(
      'usage: node scripts/native-abi.js node|electron|check [node|electron] [--force] [--arch A] [--electron-version V] [--verbose]',
    );
    return 2;
  }
  const target = targetFor(opts.mode, opts);
  if (opts.mode === 'electron' && opts.arch === process.arch && !opts.electronVersion) {
    const failed = await ensureElectronBinary(target, verbose);
    if (failed !== null) return failed;
  }
  try {
    ensureAbi(target, { runner, force: opts.force });
    return 0;
  } catch (e) {
    if (e && e.download) {
      const { version, url } = e.download;
      const probe = url && `${url.replace(/\/$/, '')}/v${version}/node-v${version}-headers.tar.gz`;
      return reportDownloadFailure(e.download, e.output, verbose, probe);
    }
    console.error(e instanceof Error ? e.message : String(e));
    return 1;
  }
}

module.exports = {
  NATIVE_BUILDS,
  MARKER,
  nodeTarget,
  electronTarget,
  presentBuilds,
  readMarker,
  writeMarker,
  markerMatches,
  planRebuild,
  ensureAbi,
  downloadFailureText,
};

if (require.main === module)
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
