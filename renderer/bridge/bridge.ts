/**
 * Access to the engine from the renderer: `window.sluice`, exposed by the Electron preload or, in e2e,
 * by the WebSocket shim of e2e/harness. The renderer never reaches the engine any other way.
 */
import type { Bridge } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';

export type { Bridge };

declare global {
  interface Window {
    sluice?: Bridge;
  }
}

/**
 * Returns the bridge exposed as `window.sluice`.
 * @throws Error when no bridge is present (the page was opened outside the app or the harness)
 */
export function getBridge(): Bridge {
  const bridge = typeof window === 'undefined' ? undefined : window.sluice;
  if (!bridge) throw new Error('window.sluice is missing: open Sluice through the app (or the e2e harness)');
  return bridge;
}

/** Error thrown by {@link unwrap} for a failed Result, keeping the engine's error code. */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/**
 * Unwraps a Result inside UI code, where an exception is the convenient signal.
 * @throws BridgeError with the Result's code and message when it failed
 */
export async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  const result = await pending;
  if (!result.ok) throw new BridgeError(result.error.code, result.error.message);
  return result.value;
}
