/**
 * At Electron start, before the service opens its databases: every native module the app loads is loaded once,
 * and a failure becomes a dialog instead of a crash. The common one is a build for the wrong runtime: node_modules
 * built for Node (`npm test`) and then started in Electron, whose NODE_MODULE_VERSION differs; Node's message
 * ("was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js
 * requires NODE_MODULE_VERSION 150") is read for the two numbers, and the dialog names the command that rebuilds
 * (scripts/native-abi.js; docs/packaging.md). better-sqlite3 is needed (the stores), so the app quits
 * after the dialog; ssh2's crypto binding, cpu-features and the native/ addon have JavaScript fallbacks, so the
 * app warns and goes on.
 */
import { app, dialog } from 'electron';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/** A native module the app loads: its name, the .node file (a module specifier, or absolute), what it lacks without. */
export interface NativeModuleSpec {
  name: string;
  file: string;
  /** True when the app cannot run without it. */
  fatal: boolean;
  /** What the app does or lacks without it, for the dialog. */
  without: string;
}

/** One module that did not load. */
export interface NativeLoadFailure {
  name: string;
  file: string;
  kind: 'abi-mismatch' | 'missing' | 'other';
  /** NODE_MODULE_VERSION the file was compiled for, and the one this runtime requires (abi-mismatch only). */
  compiledAbi?: string;
  runtimeAbi?: string;
  message: string;
  fatal: boolean;
  without: string;
}

/** The command that rebuilds the native modules for this Electron in a checkout (scripts/native-abi.js). */
export const REBUILD_COMMAND = 'npm run native:electron';

/** Node.js releases by NODE_MODULE_VERSION (nodejs.org/en/about/previous-releases), to name the other runtime. */
const NODE_ABIS: Record<string, string> = {
  '108': 'Node.js 18',
  '115': 'Node.js 20',
  '127': 'Node.js 22',
  '137': 'Node.js 24',
};

/**
 * The native modules of this app: better-sqlite3, ssh2's crypto binding, cpu-features, and every .node file of the
 * native/ addon when it is built (`appRoot`/native/build/Release).
 * @param appRoot  the repo root or the app.asar root (dist/main/.. /..)
 */
export function nativeModuleSpecs(
  appRoot: string,
  readdir: (dir: string) => string[] = fs.readdirSync,
): NativeModuleSpec[] {
  const specs: NativeModuleSpec[] = [
    {
      name: 'better-sqlite3',
      file: 'better-sqlite3/build/Release/better_sqlite3.node',
      fatal: true,
      without: 'saved sites, the queue and known hosts cannot be opened',
    },
    {
      name: 'ssh2',
      file: 'ssh2/lib/protocol/crypto/build/Release/sshcrypto.node',
      fatal: false,
      without: 'ssh2 falls back to its JavaScript ciphers: transfers are slower',
    },
    {
      name: 'cpu-features',
      file: 'cpu-features/build/Release/cpufeatures.node',
      fatal: false,
      without: 'ssh2 cannot see which ciphers this CPU accelerates',
    },
  ];
  const nativeDir = path.join(appRoot, 'native', 'build', 'Release');
  let built: string[] = [];
  try {
    built = readdir(nativeDir).filter((f) => f.endsWith('.node'));
  } catch {
    built = []; // native/ not built: its JavaScript fallbacks run
  }
  for (const f of built)
    specs.push({
      name: `native/${f}`,
      file: path.join(nativeDir, f),
      fatal: false,
      without: 'TCP_INFO, preallocation and sparse-file reads use their fallbacks',
    });
  return specs;
}

/** The two NODE_MODULE_VERSION numbers of Node's "compiled against a different Node.js version" error, or null. */
export function parseAbiMismatch(message: string): { compiled: string; required: string } | null {
  const m = /NODE_MODULE_VERSION (\d+)\.[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  return m ? { compiled: m[1], required: m[2] } : null;
}

/**
 * Loads a .node file as `require` would, but with RTLD_NOW where the platform has it: a symbol the runtime lacks
 * (ssh2's binding against Electron's BoringSSL: "undefined symbol: ERR_set_mark", mscdex/ssh2#1182) fails here
 * instead of crashing the process at its first call. The module is put in require's cache under its file name, so
 * the package's own require of that file gets this instance (a second dlopen of a NAN addon would not register).
 */
export function loadNow(specifier: string): unknown {
  const file = require.resolve(specifier);
  const cached = require.cache[file];
  if (cached) return cached.exports;
  const mod = new Module(file, module);
  mod.filename = file;
  const now = os.constants.dlopen?.RTLD_NOW;
  if (now === undefined) process.dlopen(mod, file);
  else process.dlopen(mod, file, now);
  mod.loaded = true;
  require.cache[file] = mod;
  return mod.exports;
}

/**
 * Loads each module's .node file (`load`: {@link loadNow} by default).
 * @returns the failures, classified; empty when everything loaded
 */
export function probeNativeModules(
  specs: NativeModuleSpec[],
  load: (file: string) => unknown = loadNow,
): NativeLoadFailure[] {
  const failures: NativeLoadFailure[] = [];
  for (const spec of specs) {
    try {
      load(spec.file);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const abi = parseAbiMismatch(message);
      const code = (e as { code?: string }).code;
      const kind = abi
        ? 'abi-mismatch'
        : code === 'MODULE_NOT_FOUND' || /cannot find module|no such file/i.test(message)
          ? 'missing'
          : 'other';
      failures.push({
        name: spec.name,
        file: spec.file,
        kind,
        compiledAbi: abi?.compiled,
        runtimeAbi: abi?.required,
        message,
        fatal: spec.fatal,
        without: spec.without,
      });
    }
  }
  return failures;
}

/** One paragraph per failure: the module, what went wrong (both ABI numbers), what the app lacks. */
export function describeFailure(f: NativeLoadFailure, electronVersion: string): string {
  let what: string;
  if (f.kind === 'abi-mismatch') {
    const other = NODE_ABIS[f.compiledAbi ?? ''];
    what = `built for NODE_MODULE_VERSION ${f.compiledAbi}${other ? ` (${other})` : ''}, but Electron ${electronVersion} requires NODE_MODULE_VERSION ${f.runtimeAbi}`;
  } else if (f.kind === 'missing') {
    what = `not built (${f.file} is missing)`;
  } else {
    what = `failed to load: ${f.message.split('\n')[0]}`;
  }
  return `${f.name}: ${what}. ${f.fatal ? 'Sluice cannot run without it' : `Without it, ${f.without}`}.`;
}

/** The dialog's title and text for these failures; `fix` says what to run (checkout) or do (installed app). */
export function failureReport(
  failures: NativeLoadFailure[],
  opts: { packaged: boolean; electronVersion: string },
): { fatal: boolean; title: string; detail: string } {
  const fatal = failures.some((f) => f.fatal);
  const fix = opts.packaged
    ? 'This installation is damaged: its native modules do not match its Electron. Reinstall Sluice.'
    : `Rebuild them for Electron ${opts.electronVersion}, then start again:\n\n    ${REBUILD_COMMAND}\n\n(npm start does this; npm test rebuilds them for Node again.)`;
  const title = fatal ? 'Sluice cannot start: a native module does not load' : 'Sluice: a native module does not load';
  return {
    fatal,
    title,
    detail: `${failures.map((f) => describeFailure(f, opts.electronVersion)).join('\n\n')}\n\n${fix}`,
  };
}

/**
 * Loads every native module; on a failure shows the dialog (an error box when the app cannot run, a warning
 * otherwise) and logs it. Call after app `ready` and before the service starts.
 * @returns false when the app must quit (a fatal module did not load)
 */
export function checkNativeModulesAtStart(appRoot: string, load?: (file: string) => unknown): boolean {
  const failures = probeNativeModules(nativeModuleSpecs(appRoot), load);
  if (failures.length === 0) return true;
  const report = failureReport(failures, {
    packaged: app.isPackaged,
    electronVersion: process.versions.electron ?? 'unknown',
  });
  console.error(`[sluice] ${report.title}\n${report.detail}`);
  if (report.fatal) {
    dialog.showErrorBox(report.title, report.detail);
    return false;
  }
  void dialog.showMessageBox({
    type: 'warning',
    title: report.title,
    message: report.title,
    detail: report.detail,
    buttons: ['Continue'],
  });
  return true;
}
