/**
 * The two paths every sys/ test runs: with the native/ addon, and with SLUICE_NATIVE=0 (the JavaScript fallbacks).
 * The addon path is skipped, saying why, where the addon was not built (`npm run build:native`).
 */
import { nativeAddon, nativeUnavailableReason } from './native';

export interface SysPath {
  name: 'addon' | 'fallback';
  /** Why this path cannot run here (the test is skipped with this reason), else undefined. */
  skip: string | undefined;
  /** Runs `fn` with SLUICE_NATIVE set for this path, restored after. */
  run<T>(fn: () => Promise<T> | T): Promise<T>;
}

async function withNativeEnv<T>(value: string | undefined, fn: () => Promise<T> | T): Promise<T> {
  const before = process.env.SLUICE_NATIVE;
  if (value === undefined) delete process.env.SLUICE_NATIVE;
  else process.env.SLUICE_NATIVE = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.SLUICE_NATIVE;
    else process.env.SLUICE_NATIVE = before;
  }
}

/** The addon path (skipped when the addon does not load) and the fallback path. */
export function sysPaths(): SysPath[] {
  const reason = withoutSwitch(() => (nativeAddon() ? undefined : nativeUnavailableReason()));
  if (reason) process.stdout.write(`# native addon path skipped: ${reason} (build it with npm run build:native)\n`);
  return [
    { name: 'addon', skip: reason && `native addon ${reason}`, run: (fn) => withNativeEnv(undefined, fn) },
    { name: 'fallback', skip: undefined, run: (fn) => withNativeEnv('0', fn) },
  ];
}

function withoutSwitch<T>(fn: () => T): T {
  const before = process.env.SLUICE_NATIVE;
  delete process.env.SLUICE_NATIVE;
  try {
    return fn();
  } finally {
    if (before !== undefined) process.env.SLUICE_NATIVE = before;
  }
}
