/**
 * Typed handles on the plain-JavaScript build scripts (scripts/*.js run before any TypeScript is compiled, so they
 * stay JavaScript); tests load them from the repo with these shapes.
 */
import * as path from 'node:path';

/** The repo root, from dist/scripts/test/. */
export const ROOT = path.join(__dirname, '..', '..', '..');

export interface Target {
  runtime: 'node' | 'electron';
  version: string;
  abi: string;
  arch: string;
}
export interface Build {
  name: string;
  dir: string;
  binaries: string[] | null;
  gypArgs: (t: Target) => string[];
  optional?: boolean;
  buildcheck?: boolean;
  fallback?: boolean;
}
export interface PresentBuild extends Build {
  absDir: string;
  files: string[];
}
export interface ProbeResult {
  file: string;
  ok: boolean;
  error?: string;
}
export interface Runner {
  canProbe(t: Target): boolean;
  probe(t: Target, files: string[]): ProbeResult[];
  prepare(t: Target): void;
  rebuild(b: PresentBuild, t: Target): void;
}
export interface Marker extends Target {
  modules: string[];
  disabled: string[];
  writtenAt: string;
}
export interface EnsureResult {
  action: 'kept' | 'rebuilt' | 'marked';
  rebuilt: string[];
  reasons: Array<{ name: string; reason: string }>;
}

export interface NativeAbi {
  NATIVE_BUILDS: Build[];
  nodeTarget(arch?: string): Target;
  electronTarget(root?: string, arch?: string, version?: string): Target;
  presentBuilds(root: string, builds?: Build[]): PresentBuild[];
  readMarker(file: string): Marker | null;
  ensureAbi(
    t: Target,
    o: {
      root?: string;
      runner: Runner;
      markerFile?: string;
      force?: boolean;
      log?: (s: string) => void;
      builds?: PresentBuild[];
    },
  ): EnsureResult;
  MARKER: string;
  downloadFailureText(f: { what: 'electron' | 'headers'; version: string; url: string; reason?: string }): string;
}
export interface NativeGyp {
  gypRunner(o: { root: string; stdio?: 'pipe' | 'inherit' }): Runner;
  targetFlags(t: Target, env?: Record<string, string | undefined>): string[];
}
export interface Hooks {
  beforePack(
    context: unknown,
    deps?: {
      root?: string;
      runner?: Runner;
      markerFile?: string;
      env?: Record<string, string | undefined>;
      log?: (s: string) => void;
    },
  ): Promise<void>;
  auditPackedApp(
    resourcesDir: string,
    root?: string,
  ): { files: string[]; missingDeps: string[]; nodeFiles: string[]; packedNative: string[] };
  productionClosure(root: string): string[];
  productionPackages(root: string): Map<string, string>;
}

export const nativeAbi = (): NativeAbi => require(path.join(ROOT, 'scripts', 'native-abi.js')) as NativeAbi;
export const nativeGyp = (): NativeGyp => require(path.join(ROOT, 'scripts', 'native-gyp.js')) as NativeGyp;
export const hooks = (): Hooks => require(path.join(ROOT, 'scripts', 'electron-builder-hooks.js')) as Hooks;
export interface CheckNode {
  satisfies(version: string, range: string): boolean;
  verdict(version: string, range: string): string | null;
}
export const checkNode = (): CheckNode => require(path.join(ROOT, 'scripts', 'check-node.js')) as CheckNode;
export interface ScreenshotsScript {
  expectedNames(e2eDir?: string): string[];
  pngSize(buf: Buffer): { width: number; height: number };
  plan(o: {
    expected: string[];
    written: Array<{ name: string; width: number; height: number }>;
    existing: string[];
  }): { problems: string[]; copy: string[]; remove: string[] };
  unlisted(names: string[], readme: string): string[];
}
export const screenshotsScript = (): ScreenshotsScript =>
  require(path.join(ROOT, 'scripts', 'screenshots.js')) as ScreenshotsScript;
