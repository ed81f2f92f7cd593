/**
 * SIGINT (Ctrl-C), SIGTERM (kill, systemd, CI timeouts) and SIGHUP (the terminal closed) during a CLI run: the first
 * one stops the job (what the journal holds is kept for the next run of the command, other temporary files are
 * removed; the run's last line says which) and the run exits 128 + the signal's number (130, 143, 129); a second one
 * quits at once, with the exit code of that second signal. Before the session exists there is nothing to clean up, so
 * the first signal quits at once.
 *
 * The removal of the temporary files may wait behind data already on its way (about 1 s of it, up to 32 MiB in an
 * upload's first seconds: worker.ts UPLOAD_BUDGET).
 *
 * Windows has no SIGTERM; Node reports Ctrl+Break as SIGBREAK (handled like Ctrl-C, exit 149) and the console window
 * closing as SIGHUP, after which Windows ends the process about 10 s later whatever it does: the run then quits by
 * itself after {@link CONSOLE_CLOSE_GRACE_MS} if the cleanup has not finished, so its last line is still written.
 */

/** Exit code per handled signal: 128 + its number (signal(7); SIGBREAK is 21 on Windows). */
export const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143, SIGBREAK: 149 } as const;

/** A signal the CLI handles. */
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

/** After a console window closes on Windows, the cleanup gets this long (ms) before the run quits by itself. */
export const CONSOLE_CLOSE_GRACE_MS = 8000;

/** The signals a platform delivers: SIGBREAK only on Windows. */
function handledOn(platform: NodeJS.Platform): HandledSignal[] {
  return (Object.keys(SIGNAL_EXIT_CODES) as HandledSignal[]).filter((s) => s !== 'SIGBREAK' || platform === 'win32');
}

/** What the signal guard acts on (process-wide effects are injected, so it can be tested). */
export interface SignalGuardOptions {
  /** Cancels the job (AbortController.abort); called on the first signal. */
  cancel(): void;
  /** True once there is something to clean up (the session is open); before that a signal quits at once. */
  cleanupPending(): boolean;
  /** Writes a line of text for the user (stderr); the guard writes what each signal does before acting. */
  write(text: string): void;
  /**
   * Ends the process at once with `exitCode` (process.exit); `message` says why, for a `--json` error line (the
   * human text is already written).
   */
  quit(exitCode: number, message: string): void;
  /** Where the signals come from; default `process`. */
  source?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
}

/** The state of a {@link guardSignals} guard. */
export interface SignalGuard {
  /** The first signal received, if any. */
  readonly received: HandledSignal | undefined;
  /** The exit code the run must end with because of a signal, if one came. */
  exitCode(): number | undefined;
  /** Stops handling the signals (their default action applies again). */
  dispose(): void;
}

/** The first signal's message: what happens now and how to quit at once. */
export function firstSignalMessage(sig: HandledSignal): string {
  const what =
    sig === 'SIGINT'
      ? 'interrupted'
      : sig === 'SIGTERM'
        ? 'terminated (SIGTERM)'
        : sig === 'SIGBREAK'
          ? 'interrupted (Ctrl+Break)'
          : 'hangup (SIGHUP)';
  const again = sig === 'SIGINT' ? 'Ctrl-C again' : sig === 'SIGBREAK' ? 'Ctrl+Break again' : `a second ${sig}`;
  return `sluice: ${what}: stopping the transfer (${again} to quit at once)`;
}

/** The second signal's message. */
export function secondSignalMessage(sig: HandledSignal): string {
  const what = sig === 'SIGINT' ? 'interrupted again' : `${sig} again`;
  return `sluice: ${what}: quitting without cleanup; a temporary file (.NAME.sluice-XXXXXXXX.part) may remain`;
}

/**
 * Handles SIGINT, SIGTERM and SIGHUP until `dispose()`: see the module comment.
 * @returns the guard, whose `exitCode()` the run ends with once the cancelled job has cleaned up
 */
export function guardSignals(o: SignalGuardOptions): SignalGuard {
  const source = o.source ?? process;
  const platform = o.platform ?? process.platform;
  let received: HandledSignal | undefined;
  let grace: NodeJS.Timeout | undefined;
  const handlers = new Map<HandledSignal, () => void>();
  const onSignal = (sig: HandledSignal): void => {
    const pending = o.cleanupPending();
    if (received === undefined && pending) {
      received = sig;
      if (sig === 'SIGHUP') ignoreWriteErrors();
      if (sig === 'SIGHUP' && platform === 'win32') {
        // The console closed: Windows ends the process ~10 s from now; quit first, having said so.
        const why = 'the console closed; the cleanup did not finish in time';
        grace = setTimeout(() => o.quit(SIGNAL_EXIT_CODES.SIGHUP, why), CONSOLE_CLOSE_GRACE_MS);
        grace.unref?.();
      }
      // Said before cancelling, so that it comes before whatever the cancelled job prints.
      o.write(firstSignalMessage(sig));
      o.cancel();
      return;
    }
    received ??= sig;
    o.cancel();
    o.write(pending ? secondSignalMessage(sig) : `sluice: interrupted by ${sig}`);
    o.quit(
      SIGNAL_EXIT_CODES[sig],
      pending ? `quit at once by a second signal (${sig}), without cleanup` : `interrupted by ${sig}`,
    );
  };
  for (const sig of handledOn(platform)) {
    const h = (): void => onSignal(sig);
    handlers.set(sig, h);
    source.on(sig, h);
  }
  return {
    get received() {
      return received;
    },
    exitCode: () => (received === undefined ? undefined : SIGNAL_EXIT_CODES[received]),
    dispose: () => {
      clearTimeout(grace);
      for (const [sig, h] of handlers) source.off(sig, h);
      handlers.clear();
    },
  };
}

/**
 * After SIGHUP the terminal may be gone: a write to it then fails (EIO), and an unhandled stream error would end the
 * process before the temporary files are removed.
 */
function ignoreWriteErrors(): void {
  for (const s of [process.stdout, process.stderr]) if (s.listenerCount('error') === 0) s.on('error', () => undefined);
}
