/**
 * What the packaging test packs: a copy of this project with a real node_modules holding the production dependency
 * closure (electron-builder runs `npm list` to collect node_modules, and npm cannot read a worktree whose
 * node_modules is a symlink), and a stand-in Electron distribution: the Electron binary cannot be downloaded here,
 * so a small file carrying the fuse wire (sentinel, version 1, length, one byte per fuse, as @electron/fuses
 * reads it) lets electron-builder run every step up to the installers, the fuses flipped included.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, hooks } from './scriptsApi';

/** @electron/fuses' sentinel (src/constants.ts) before the fuse wire in every Electron >= 12 binary. */
export const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron 45's defaults for the 8 V1 fuses ('1' on, '0' off): RunAsNode on, cookie encryption off, ... */
export const ELECTRON_DEFAULT_WIRE = '10110001';

/** A stand-in unpacked Electron for Linux: the `electron` executable (with the fuse wire), LICENSE, version. */
export function fakeElectronDist(dir: string, version: string): string {
  fs.mkdirSync(path.join(dir, 'resources'), { recursive: true });
  const wire = Buffer.concat([
    Buffer.from(`#!/bin/sh\necho "stand-in Electron ${version}"\n# `),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([1, 8]),
    Buffer.from(ELECTRON_DEFAULT_WIRE),
    Buffer.from('\n'),
  ]);
  fs.writeFileSync(path.join(dir, 'electron'), wire, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'LICENSE'), 'stand-in\n');
  fs.writeFileSync(path.join(dir, 'version'), `${version}\n`);
  return dir;
}

/**
 * Copies the project into `dest`: package.json and lock, electron-builder.yml, the build scripts, dist/ as built
 * (tests included, so the exclusions are exercised), a renderer build with a source map, a native/ addon build,
 * and node_modules with the production closure and electron's package.json.
 */
export function stageProject(dest: string): string {
  for (const f of ['package.json', 'package-lock.json', 'electron-builder.yml'])
    fs.copyFileSync(path.join(ROOT, f), path.join(dest, f));
  fs.mkdirSync(path.join(dest, 'scripts'));
  for (const f of ['electron-builder-hooks.js', 'native-abi.js', 'native-gyp.js'])
    fs.copyFileSync(path.join(ROOT, 'scripts', f), path.join(dest, 'scripts', f));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(dest, 'dist'), { recursive: true });
  fs.mkdirSync(path.join(dest, 'renderer', 'dist', 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(dest, 'renderer', 'dist', 'index.html'),
    '<!doctype html><script src="assets/app.js"></script>',
  );
  fs.writeFileSync(path.join(dest, 'renderer', 'dist', 'assets', 'app.js'), '//# sourceMappingURL=app.js.map\n');
  fs.writeFileSync(path.join(dest, 'renderer', 'dist', 'assets', 'app.js.map'), '{}');
  fs.mkdirSync(path.join(dest, 'native', 'build', 'Release'), { recursive: true });
  fs.writeFileSync(path.join(dest, 'native', 'binding.gyp'), '{}');
  fs.copyFileSync(
    path.join(ROOT, 'node_modules', 'cpu-features', 'build', 'Release', 'cpufeatures.node'),
    path.join(dest, 'native', 'build', 'Release', 'sluice_native.node'),
  );
  const modules = path.join(ROOT, 'node_modules');
  for (const dir of hooks().productionPackages(ROOT).keys()) {
    fs.cpSync(dir, path.join(dest, 'node_modules', path.relative(modules, dir)), { recursive: true });
  }
  fs.mkdirSync(path.join(dest, 'node_modules', 'electron'));
  for (const f of ['package.json', 'abi_version'])
    fs.copyFileSync(path.join(modules, 'electron', f), path.join(dest, 'node_modules', 'electron', f));
  return dest;
}

/**
 * Runs electron-builder's CLI (the one `npm run dist:dir` runs); resolves with its exit code (null: stopped after its
 * error) and output.
 */
export function electronBuilder(
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  const cli = require.resolve('electron-builder/cli.js', { paths: [ROOT] });
  return new Promise((resolve, reject) => {
    // NO_UPDATE_NOTIFIER: its registry query would hold the process open ~30 s where the registry is unreachable.
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, NO_UPDATE_NOTIFIER: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stopping = false;
    const read = (d: Buffer): void => {
      output += d.toString();
      // After its error line electron-builder can stay alive ~30 s (a request timer of the failed download): the
      // error is all there is to read, so stop it a second later.
      if (!stopping && /⨯ /.test(output)) {
        stopping = true;
        setTimeout(() => child.kill('SIGTERM'), 1000).unref();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`electron-builder ${args.join(' ')} still running after ${opts.timeoutMs} ms:\n${output}`));
    }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
