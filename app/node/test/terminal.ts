/**
 * The CLI in a pseudo-terminal, seen as a person sees it: `node bin/sluice.js ARGS` runs under a real pty
 * (node-pty) of a given size, and everything it writes is fed to a headless xterm.js terminal, so a test reads the
 * screen's lines and the cursor's position after cursor moves, carriage returns and erasures, not the raw bytes.
 */
import * as pty from 'node-pty';
import { Terminal } from '@xterm/headless';
import { cliEnv, CLI_BIN, type CliOptions } from './helpers';

/** Options of {@link startCliInTerminal}: {@link CliOptions} plus the terminal's size in character cells. */
export interface TerminalOptions extends CliOptions {
  /** Columns; default 80. */
  cols?: number;
  /** Rows; default 24. */
  rows?: number;
}

/** What the terminal shows: every line, scrollback first (trailing blanks trimmed), and the cursor. */
export interface ScreenState {
  lines: string[];
  /** 0-based column, and 0-based index into `lines`. */
  cursor: { x: number; y: number };
  /** The lines as one text, trailing empty lines dropped. */
  text: string;
}

/** How the CLI in a terminal ended, with the final screen. */
export interface TerminalResult extends ScreenState {
  code: number;
  /** The signal's number when the process was killed by one, else 0. */
  signal: number;
  /** Every byte the CLI wrote, for messages when an assertion fails. */
  raw: string;
}

/** A CLI running in a pseudo-terminal. */
export interface TerminalRun {
  /** Types into the terminal (e.g. '\x03' for Ctrl-C, 'y\r' to answer a prompt). */
  write(data: string): void;
  /** Changes the terminal's size; the CLI gets SIGWINCH. */
  resize(cols: number, rows: number): void;
  /** The screen now. */
  screen(): Promise<ScreenState>;
  /** Resolves with the screen once its text matches `re` (rejects on timeout or exit). */
  waitForScreen(re: RegExp, timeoutMs?: number): Promise<ScreenState>;
  /** Resolves when the process exits (rejects when it outlives `timeoutMs`, after killing it). */
  result: Promise<TerminalResult>;
  pid: number;
}

/** Reads the visible screen of `term` once every write queued so far has been parsed. */
function readScreen(term: Terminal): Promise<ScreenState> {
  return new Promise((resolve) => {
    term.write('', () => {
      const buf = term.buffer.active;
      const lines: string[] = [];
      for (let y = 0; y < buf.length; y++) lines.push(buf.getLine(y)?.translateToString(true) ?? '');
      let last = lines.length;
      while (last > 0 && lines[last - 1] === '') last--;
      resolve({ lines, cursor: { x: buf.cursorX, y: buf.baseY + buf.cursorY }, text: lines.slice(0, last).join('\n') });
    });
  });
}

/**
 * Starts `node bin/sluice.js ARGS` in a pseudo-terminal of `cols` × `rows` (80 × 24 by default), with the
 * environment {@link startCli} gives (SLUICE_KNOWN_HOSTS, no agent, an empty HOME) and TERM=xterm-256color.
 * The child never outlives `timeoutMs` (default 60 s).
 */
export function startCliInTerminal(args: string[], opts: TerminalOptions): TerminalRun {
  const cols = opts.cols ?? 80;
  const rows = opts.rows ?? 24;
  const env = { ...cliEnv(opts), TERM: 'xterm-256color' } as Record<string, string>;
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  const child = pty.spawn(process.execPath, [CLI_BIN, ...args], {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: opts.cwd,
    env,
  });
  let raw = '';
  /** Chunks received so far: waitForScreen reads again when one came while it was reading the screen. */
  let chunks = 0;
  child.onData((d) => {
    raw += d;
    chunks++;
    term.write(d);
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => child.onExit((e) => resolve(e)));
  const result = exited.then(async (e) => {
    clearTimeout(timer);
    if (timedOut) throw new Error(`sluice ${args.join(' ')} did not finish within ${timeoutMs} ms\nscreen:\n${raw}`);
    const s = await readScreen(term);
    return { ...s, code: e.exitCode, signal: e.signal ?? 0, raw };
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    pid: child.pid,
    result,
    write: (data) => child.write(data),
    resize: (c, r) => {
      term.resize(c, r);
      child.resize(c, r);
    },
    screen: () => readScreen(term),
    async waitForScreen(re, ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const seen = chunks;
        const s = await readScreen(term);
        if (re.test(s.text)) return s;
        if (done) throw new Error(`sluice exited before the screen matched ${re}; screen:\n${s.text}`);
        if (Date.now() > deadline)
          throw new Error(`the screen did not match ${re} within ${ms} ms; screen:\n${s.text}`);
        if (chunks !== seen) continue;
        // Wait for the CLI's next output (or its exit), never a fixed time.
        await new Promise<void>((resolve) => {
          const sub = child.onData(() => {
            sub.dispose();
            clearTimeout(t);
            setImmediate(resolve);
          });
          const t = setTimeout(
            () => {
              sub.dispose();
              resolve();
            },
            Math.max(0, deadline - Date.now()),
          );
          void exited.then(() => {
            sub.dispose();
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
  };
}
