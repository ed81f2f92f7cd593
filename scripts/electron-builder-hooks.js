'use strict';
/**
 * electron-builder hooks (electron-builder.yml beforeBuild / afterPack).
 *
 * beforePack: builds every native module (better-sqlite3, ssh2's sshcrypto binding, cpu-features, native/) for
 * the Electron and arch being packaged, with scripts/native-abi.js (node-gyp against Electron's headers).
 * electron-builder.yml sets npmRebuild: false, so electron-builder's own @electron/rebuild pass does not run: it
 * finds binding.gyp only at a package's root, so it would miss ssh2's binding in lib/protocol/crypto and native/
 * (ssh2 then silently falls back to its slow JavaScript crypto). Not beforeBuild: a beforeBuild that returns
 * false also turns off electron-builder's node_modules collection (app.asar then holds no node_modules at all).
 * SLUICE_NATIVE_REBUILD=skip leaves node_modules as it is (the packaging test, which checks paths not ABIs).
 *
 * afterPack: reads the app.asar just written and fails the build when a production dependency (the closure of
 * package.json dependencies) is missing from it or a .node file is not unpacked next to it, naming them; a
 * packed app without `bindings` or `asn1` would start and crash on the first require.
 */
const fs = require('node:fs');
const path = require('node:path');
const { electronTarget, ensureAbi } = require('./native-abi');
const { gypRunner } = require('./native-gyp');

const ROOT = path.join(__dirname, '..');

/** electron-builder's Arch enum value or name -> node-gyp's arch name. */
function archName(arch) {
  const names = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];
  return typeof arch === 'number' ? names[arch] : String(arch);
}

/**
 * @param context  electron-builder's PackContext `{ arch, electronPlatformName, packager }` (packager.info.framework
 *                 is the Electron being packaged)
 * @throws when node-gyp fails for a module (the message names it) or the platform differs (no cross-compiling)
 */
async function beforePack(context, deps = {}) {
  const log = deps.log || console.log;
  if ((deps.env || process.env).SLUICE_NATIVE_REBUILD === 'skip') {
    log('sluice: SLUICE_NATIVE_REBUILD=skip: native modules left as built (not for a release)');
    return;
  }
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  if (platform && platform !== process.platform) {
    throw new Error(
      `sluice: native modules cannot be cross-compiled from ${process.platform} to ${platform}; package on ${platform}`,
    );
  }
  const framework = context.packager && context.packager.info && context.packager.info.framework;
  const root = deps.root || ROOT;
  const target = electronTarget(root, archName(context.arch), framework && framework.version);
  const runner = deps.runner || gypRunner({ root });
  ensureAbi(target, { root, runner, log, markerFile: deps.markerFile });
}

/** Node's lookup of `name` from `fromDir` (node_modules folders upwards), by folder: `exports` cannot hide it. */
function findPackageJson(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Production dependency closure of the package at `root`: package names, resolved with Node's algorithm. */
function productionClosure(root) {
  return [...new Set(productionPackages(root).values())].sort();
}

/** The production dependency closure as a Map of package folder -> package name. */
function productionPackages(root) {
  const seen = new Map();
  const visit = (name, fromDir) => {
    const pkgJson = findPackageJson(name, fromDir);
    if (!pkgJson) return; // an optional dependency not installed on this platform
    const dir = path.dirname(pkgJson);
    if (seen.has(dir)) return;
    seen.set(dir, name);
    const pkg = JSON.parse(fs.readFileSync(pkgJson, 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep, dir);
  };
  const top = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const dep of Object.keys(top.dependencies || {})) visit(dep, root);
  return seen;
}

/**
 * What a packed resources folder lacks: dependencies absent from app.asar, .node files inside it that are not
 * unpacked to app.asar.unpacked.
 * @param resourcesDir  the folder holding app.asar (Linux/Windows: <appOutDir>/resources; macOS: Contents/Resources)
 */
function auditPackedApp(resourcesDir, root = ROOT) {
  // electron-builder's own copy (a staged project may have no dev dependencies of its own).
  const asar = require(
    require.resolve('@electron/asar', { paths: [root, ...(require.main ? require.main.paths : [])] }),
  );
  const archive = path.join(resourcesDir, 'app.asar');
  const files = asar.listPackage(archive, { isPack: false }).map((f) => f.split(path.sep).join('/'));
  const listed = new Set(files);
  const missingDeps = productionClosure(root).filter((name) => !listed.has(`/node_modules/${name}/package.json`));
  const nodeFiles = files.filter((f) => f.endsWith('.node'));
  const packedNative = nodeFiles.filter((f) => !fs.existsSync(path.join(`${archive}.unpacked`, f)));
  return { files, missingDeps, nodeFiles, packedNative };
}

/** @param context  electron-builder's AfterPackContext `{ appOutDir, electronPlatformName, packager }` */
async function afterPack(context) {
  const resources =
    context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas'
      ? path.join(context.appOutDir, `${context.packager.appInfo.productFilename}.app`, 'Contents', 'Resources')
      : path.join(context.appOutDir, 'resources');
  const audit = auditPackedApp(resources);
  const problems = [];
  if (audit.missingDeps.length)
    problems.push(
      `production dependencies missing from app.asar: ${audit.missingDeps.join(', ')} (is node_modules a complete npm install? a symlinked node_modules confuses electron-builder's npm list)`,
    );
  if (audit.packedNative.length)
    problems.push(
      `.node files packed inside app.asar instead of unpacked (add them to asarUnpack): ${audit.packedNative.join(', ')}`,
    );
  if (problems.length) throw new Error(`sluice: the packed app would not start: ${problems.join('; ')}`);
  console.log(
    `sluice: app.asar holds all ${productionClosure(ROOT).length} production dependencies; ${audit.nodeFiles.length} .node files unpacked`,
  );
}

module.exports = { beforePack, afterPack, auditPackedApp, productionClosure, productionPackages, archName };
