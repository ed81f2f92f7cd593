/**
 * Output into a closed pipe (`sluice --help | head`, `sluice get --json … | head -1`): the reader is gone, so Node's
 * stdout emits EPIPE, which unhandled ends the process with a stack. Like cat or ls (killed by SIGPIPE), the CLI stops
 * quietly instead: a write error on stdout or stderr is never shown, and a running transfer is cancelled (its
 * temporary files removed) through {@link onStdoutClosed}.
 */

/** Exit code of a run whose stdout reader went away: 128 + SIGPIPE (13), what a shell shows for `yes | head`. */
export const CLOSED_PIPE_EXIT_CODE = 141;

type Stream = Pick<NodeJS.WriteStream, 'on'>;

let closed = false;
const listeners = new Set<() => void>();
let installed = false;

/**
 * Makes write errors on `stdout` and `stderr` quiet (default process.stdout and process.stderr); a write error on
 * stdout (EPIPE: the reader closed the pipe) also calls the {@link onStdoutClosed} listeners once. Idempotent.
 */
export function quietOnClosedPipe(stdout: Stream = process.stdout, stderr: Stream = process.stderr): void {
  if (installed) return;
  installed = true;
  stdout.on('error', () => {
    if (closed) return;
    closed = true;
    for (const l of [...listeners]) l();
  });
  stderr.on('error', () => undefined);
}

/** True once stdout's reader has gone away. */
export function stdoutClosed(): boolean {
  return closed;
}

/**
 * Calls `listener` when stdout's reader goes away (at once if it already has).
 * @returns a function that removes the listener
 */
export function onStdoutClosed(listener: () => void): () => void {
  if (closed) {
    listener();
    return () => undefined;
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}
