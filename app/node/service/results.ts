/** How the service turns failures into Results and log lines. */
import { err, type Result } from '../../common/ipc/result';

export function errorInfo(e: unknown): { code: string; message: string } {
  if (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as { code?: unknown }).code === 'string' &&
    typeof (e as { message?: unknown }).message === 'string'
  ) {
    return { code: (e as { code: string }).code, message: (e as { message: string }).message };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

export function toErrorResult(e: unknown): Result<never> {
  const info = errorInfo(e);
  return err(info.code, info.message);
}

/** Replaces every occurrence of a known secret with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  return out;
}
