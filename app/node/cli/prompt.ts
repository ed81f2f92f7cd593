/**
 * Terminal prompts for the CLI: hidden secrets (raw mode, nothing echoed), yes/no confirmations and
 * choices. Prompts go to stderr so stdout stays clean for `--json` output. Input is read character by
 * character, so it works with a human typing, with pasted text and with `tmux send-keys 'pw' Enter`
 * (which may deliver the text and the Enter in one chunk, or the next answer right behind it).
 */
import { StringDecoder } from 'node:string_decoder';
import { keyTypeLabel, type HostKeyAnswer, type HostKeyIdentity } from '../../common/model/hostKey';
import { SluiceError } from '../errors';
import type { Prompter } from '../ssh/auth';

/** The input side: process.stdin or a test double. */
export type PromptInput = NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?(mode: boolean): unknown };

/** Streams a prompter talks over; default process.stdin / process.stderr. */
export interface PromptIO {
  input: PromptInput;
  output: NodeJS.WritableStream;
}

/** A prompter for the terminal, with the extra questions the CLI asks. */
export interface TerminalPrompter extends Prompter {
  /** Hidden input (no echo); rejects with SluiceError('ABORTED') on Ctrl-C or end of input. */
  secret(question: string): Promise<string>;
  /** A line of text shown as typed; rejects with SluiceError('ABORTED') on Ctrl-C or end of input. */
  line(question: string): Promise<string>;
  /** A yes/no question; Enter alone gives `defaultYes` (false unless set). Re-asks up to 3 times. */
  confirm(question: string, defaultYes?: boolean): Promise<boolean>;
  /**
   * One of `choices` (typed in full, as a unique prefix, or as its 1-based number, case-insensitive), or a word of
   * `aliases` typed in full (case-insensitive; not listed, e.g. `save` for the host key's `yes`).
   * Enter alone gives `defaultChoice` when set. After 3 invalid answers: `defaultChoice`, else ABORTED.
   */
  choose<T extends string>(question: string, choices: T[], defaultChoice?: T, aliases?: Readonly<Record<string, T>>): Promise<T>;
}

/** How many invalid answers are tolerated before giving up (bounded loop). */
const MAX_ATTEMPTS = 3;

/** True when both stdin and stderr are terminals, i.e. a person can answer prompts. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Returns a {@link TerminalPrompter} over `io` (default process.stdin / process.stderr). */
export function terminalPrompter(io?: PromptIO): TerminalPrompter {
  const input: PromptInput = io?.input ?? process.stdin;
  const output: NodeJS.WritableStream = io?.output ?? process.stderr;
  const decoder = new StringDecoder('utf8');
  /** Characters received after the Enter that ended the previous answer (typed ahead). */
  let pending = '';
  /** The previous line ended with CR: a following LF belongs to it. */
  let skipLf = false;
  let ended = false;
  /** Serialises prompts: two connections asking at once must not interleave on the terminal. */
  let queue: Promise<unknown> = Promise.resolve();

  function readLine(question: string, echo: boolean): Promise<string> {
    const run = (): Promise<string> => new Promise<string>((resolve, reject) => {
      if (ended && pending === '') {
        output.write(`${question}\n`);
        reject(new SluiceError('ABORTED', 'No answer: input ended'));
        return;
      }
      // Raw mode first, so that nothing typed as soon as the question shows is echoed by the terminal.
      const raw = input.isTTY === true && typeof input.setRawMode === 'function';
      const wasRaw = input.isRaw === true;
      if (raw) input.setRawMode?.(true);
      output.write(question);
      let answer = '';
      let escape: 'none' | 'esc' | 'csi' = 'none';
      let settled = false;

      const cleanup = (): void => {
        input.removeListener('data', onData);
        input.removeListener('end', onEnd);
        input.removeListener('error', onError);
        if (raw) input.setRawMode?.(wasRaw);
        input.pause();
      };
      const finish = (err: SluiceError | null): void => {
        if (settled) return;
        settled = true;
        cleanup();
        output.write('\n');
        if (err) reject(err);
        else resolve(answer);
      };
      const erase = (count: number): void => {
        if (echo && count > 0) output.write('\b \b'.repeat(count));
      };

      /** Consumes characters; returns the index after the terminator, or -1 when the line is not done. */
      const consume = (text: string): number => {
        const chars = Array.from(text);
        let used = 0;
        for (const ch of chars) {
          used += ch.length;
          if (skipLf) {
            skipLf = false;
            if (ch === '\n') continue;
          }
          if (escape === 'esc') {
            escape = ch === '[' ? 'csi' : 'none';
            continue;
          }
          if (escape === 'csi') {
            if (ch >= '@' && ch <= '~') escape = 'none'; // CSI final byte (ECMA-48 §5.4)
            continue;
          }
          switch (ch) {
            case '\r':
              skipLf = true;
              return used;
            case '\n':
              return used;
            case '\u0003': // Ctrl-C
              finish(new SluiceError('ABORTED', 'Cancelled'));
              return -2;
            case '\u0004': // Ctrl-D: end of input on an empty line
              if (answer === '') {
                finish(new SluiceError('ABORTED', 'Cancelled (end of input)'));
                return -2;
              }
              continue;
            case '\u007f':
            case '\b':
              if (answer !== '') {
                const cps = Array.from(answer);
                cps.pop();
                answer = cps.join('');
                erase(1);
              }
              continue;
            case '\u0015': // Ctrl-U: kill the line
              erase(Array.from(answer).length);
              answer = '';
              continue;
            case '\u001b':
              escape = 'esc';
              continue;
            default:
              if (ch < ' ') continue;
              answer += ch;
              if (echo) output.write(ch);
          }
        }
        return -1;
      };

      const feed = (text: string): void => {
        const end = consume(text);
        if (end === -2) return;
        if (end >= 0) {
          pending = text.slice(end);
          finish(null);
        }
      };
      const onData = (chunk: Buffer | string): void => {
        feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      };
      const onEnd = (): void => {
        ended = true;
        if (answer !== '') finish(null);
        else finish(new SluiceError('ABORTED', 'No answer: input ended'));
      };
      const onError = (e: unknown): void => {
        finish(new SluiceError('ABORTED', 'Cannot read the terminal', { cause: e }));
      };

      if (pending !== '') {
        const typedAhead = pending;
        pending = '';
        feed(typedAhead);
        if (settled) return;
      }
      if (ended) {
        onEnd();
        return;
      }
      input.on('data', onData);
      input.once('end', onEnd);
      input.once('error', onError);
      input.resume();
    });
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    secret(question: string): Promise<string> {
      return readLine(question, false);
    },

    line(question: string): Promise<string> {
      return readLine(question, true);
    },

    async confirm(question: string, defaultYes = false): Promise<boolean> {
      const hint = defaultYes ? '[Y/n]' : '[y/N]';
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const answer = (await readLine(`${question} ${hint} `, true)).trim().toLowerCase();
        if (answer === '') return defaultYes;
        if (answer === 'y' || answer === 'yes') return true;
        if (answer === 'n' || answer === 'no') return false;
        output.write('Please answer yes or no.\n');
      }
      return defaultYes;
    },

    async choose<T extends string>(question: string, choices: T[], defaultChoice?: T, aliases?: Readonly<Record<string, T>>): Promise<T> {
      if (choices.length === 0) throw new Error('choose() needs at least one choice');
      const listed = choices.map((c, i) => `${i + 1}) ${c}${c === defaultChoice ? ' (default)' : ''}`).join('  ');
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const answer = (await readLine(`${question}\n  ${listed}\n> `, true)).trim().toLowerCase();
        if (answer === '' && defaultChoice !== undefined) return defaultChoice;
        if (/^\d+$/.test(answer)) {
          const n = Number(answer);
          if (n >= 1 && n <= choices.length) return choices[n - 1];
        }
        const exact = choices.find((c) => c.toLowerCase() === answer);
        if (exact !== undefined) return exact;
        const alias = aliasFor(aliases, answer);
        if (alias !== undefined) return alias;
        const byPrefix = answer === '' ? [] : choices.filter((c) => c.toLowerCase().startsWith(answer));
        if (byPrefix.length === 1) return byPrefix[0];
        output.write(`Please answer one of: ${choices.join(', ')}.\n`);
      }
      if (defaultChoice !== undefined) return defaultChoice;
      throw new SluiceError('ABORTED', 'No valid choice given');
    },
  };
}

/** The choice `answer` (already lower-cased) is an alias of, if any. */
function aliasFor<T extends string>(aliases: Readonly<Record<string, T>> | undefined, answer: string): T | undefined {
  if (!aliases) return undefined;
  const key = Object.keys(aliases).find((k) => k.toLowerCase() === answer);
  return key === undefined ? undefined : aliases[key];
}

/**
 * The host-key question's answers: `yes` (accept and save to known_hosts, OpenSSH's answer; `save` is taken for it
 * too), `once` (accept for this run) and `no`, the default. `y` and `n` are their unique prefixes.
 */
export const HOST_KEY_CHOICES = ['yes', 'once', 'no'] as const;

/**
 * Asks what to do with an unknown host key, OpenSSH-style: the host, port and SHA256 fingerprint are shown on
 * `output`, then `yes` (accept and add to known_hosts; `y` and `save` mean the same), `once` (accept for this run) or
 * `no` (the default: refuse).
 * @param prompter the terminal's prompter
 * @param identity the key the server presented
 * @param output where the warning goes (default process.stderr; the question itself goes to the prompter's output)
 * @returns the answer for the host-key policy; rejects with SluiceError('ABORTED') on Ctrl-C or end of input
 */
export async function askHostKey(prompter: TerminalPrompter, identity: HostKeyIdentity, output: NodeJS.WritableStream = process.stderr): Promise<HostKeyAnswer> {
  output.write(`The authenticity of host '${identity.host}' (port ${identity.port}) can't be established.\n`
    + `${keyTypeLabel(identity.keyType)} key fingerprint is ${identity.fingerprint}.\n`);
  const a = await prompter.choose('Save it to known_hosts and connect [yes], connect this once [once], or [no]?',
    [...HOST_KEY_CHOICES], 'no', { save: 'yes' });
  return a === 'once' ? 'accept-once' : a === 'yes' ? 'accept-save' : 'reject';
}
