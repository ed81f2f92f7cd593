/**
 * Terminal prompts for the CLI: hidden secrets (raw mode, nothing echoed), yes/no confirmations and
 * choices. Prompts go to stderr so stdout stays clean for `--json` output. Input is read character by
 * character, so it works with a human typing, with pasted text and with `tmux send-keys 'pw' Enter`
 * (which may deliver the text and the Enter in one chunk, or the next answer right behind it).
 */
import { StringDecoder } from 'node:string_decoder';
import { keyTypeLabel, type HostKeyAnswer, type HostKeyIdentity } from '../../common/model/hostKey';
import { SluiceError } from '../errors';
import { editLine, newLine } from './lineEditor';
import type { Prompter } from '../ssh/auth';

/** The input side: process.stdin or a test double. */
export type PromptInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
};

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
  choose<T extends string>(
    question: string,
    choices: T[],
    defaultChoice?: T,
    aliases?: Readonly<Record<string, T>>,
  ): Promise<T>;
}

/** How many invalid answers are tolerated before giving up (bounded loop). */
const MAX_ATTEMPTS = 3;

/** True when both stdin and stderr are terminals, i.e. a person can answer prompts. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** One terminal's input state, shared by the prompts asked over it one after another. */
interface Terminal {
  input: PromptInput;
  output: NodeJS.WritableStream;
  decoder: StringDecoder;
  /** Characters received after the Enter that ended the previous answer (typed ahead). */
  pending: string;
  /** The previous line ended with CR: a following LF belongs to it. */
  skipLf: boolean;
  ended: boolean;
}

/**
 * Asks `question` on `t` and reads one line through the line editor (cli/lineEditor.ts), in raw mode when the input
 * is a terminal (restored after). Rejects with SluiceError('ABORTED') on Ctrl-C, Ctrl-D on an empty line, end of
 * input without an answer, or a read error.
 */
function readOneLine(t: Terminal, question: string, echo: boolean): Promise<string> {
  const { input, output } = t;
  return new Promise<string>((resolve, reject) => {
    if (t.ended && t.pending === '') {
      output.write(`${question}\n`);
      reject(new SluiceError('ABORTED', 'No answer: input ended'));
      return;
    }
    // Raw mode first, so that nothing typed as soon as the question shows is echoed by the terminal.
    const raw = input.isTTY === true && typeof input.setRawMode === 'function';
    const wasRaw = input.isRaw === true;
    if (raw) input.setRawMode?.(true);
    output.write(question);
    let line = newLine(t.skipLf);
    let settled = false;

    const finish = (err: SluiceError | null): void => {
      if (settled) return;
      settled = true;
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onError);
      if (raw) input.setRawMode?.(wasRaw);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(line.answer);
    };
    const feed = (text: string): void => {
      const edit = editLine(line, text, echo);
      line = edit.state;
      t.skipLf = line.skipLf;
      if (edit.echo !== '') output.write(edit.echo);
      if (edit.outcome.kind === 'cancel') finish(new SluiceError('ABORTED', edit.outcome.message));
      else if (edit.outcome.kind === 'done') {
        t.pending = edit.outcome.rest;
        finish(null);
      }
    };
    const onData = (chunk: Buffer | string): void => {
      feed(typeof chunk === 'string' ? chunk : t.decoder.write(chunk));
    };
    const onEnd = (): void => {
      t.ended = true;
      if (line.answer !== '') finish(null);
      else finish(new SluiceError('ABORTED', 'No answer: input ended'));
    };
    const onError = (e: unknown): void => {
      finish(new SluiceError('ABORTED', 'Cannot read the terminal', { cause: e }));
    };

    if (t.pending !== '') {
      const typedAhead = t.pending;
      t.pending = '';
      feed(typedAhead);
      if (settled) return;
    }
    if (t.ended) {
      onEnd();
      return;
    }
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    input.resume();
  });
}

type ReadLine = (question: string, echo: boolean) => Promise<string>;

/** {@link TerminalPrompter.confirm} over `readLine`. */
async function confirmOver(readLine: ReadLine, output: NodeJS.WritableStream, question: string, defaultYes: boolean) {
  const hint = defaultYes ? '[Y/n]' : '[y/N]';
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const answer = (await readLine(`${question} ${hint} `, true)).trim().toLowerCase();
    if (answer === '') return defaultYes;
    if (answer === 'y' || answer === 'yes') return true;
    if (answer === 'n' || answer === 'no') return false;
    output.write('Please answer yes or no.\n');
  }
  return defaultYes;
}

/** The choice an answer (trimmed, lower-cased) names, if any; '' names none (the default is the caller's). */
function choiceFor<T extends string>(
  choices: T[],
  answer: string,
  aliases?: Readonly<Record<string, T>>,
): T | undefined {
  if (/^\d+$/.test(answer)) {
    const n = Number(answer);
    if (n >= 1 && n <= choices.length) return choices[n - 1];
  }
  const exact = choices.find((c) => c.toLowerCase() === answer);
  if (exact !== undefined) return exact;
  const alias = aliasFor(aliases, answer);
  if (alias !== undefined) return alias;
  const byPrefix = answer === '' ? [] : choices.filter((c) => c.toLowerCase().startsWith(answer));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

/** {@link TerminalPrompter.choose} over `readLine`. */
async function chooseOver<T extends string>(
  readLine: ReadLine,
  output: NodeJS.WritableStream,
  question: string,
  choices: T[],
  defaultChoice?: T,
  aliases?: Readonly<Record<string, T>>,
): Promise<T> {
  if (choices.length === 0) throw new Error('choose() needs at least one choice');
  const listed = choices.map((c, i) => `${i + 1}) ${c}${c === defaultChoice ? ' (default)' : ''}`).join('  ');
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const answer = (await readLine(`${question}\n  ${listed}\n> `, true)).trim().toLowerCase();
    if (answer === '' && defaultChoice !== undefined) return defaultChoice;
    const chosen = choiceFor(choices, answer, aliases);
    if (chosen !== undefined) return chosen;
    output.write(`Please answer one of: ${choices.join(', ')}.\n`);
  }
  if (defaultChoice !== undefined) return defaultChoice;
  throw new SluiceError('ABORTED', 'No valid choice given');
}

/** Returns a {@link TerminalPrompter} over `io` (default process.stdin / process.stderr). */
export function terminalPrompter(io?: PromptIO): TerminalPrompter {
  const t: Terminal = {
    input: io?.input ?? process.stdin,
    output: io?.output ?? process.stderr,
    decoder: new StringDecoder('utf8'),
    pending: '',
    skipLf: false,
    ended: false,
  };
  /** Serialises prompts: two connections asking at once must not interleave on the terminal. */
  let queue: Promise<unknown> = Promise.resolve();
  const readLine: ReadLine = (question, echo) => {
    const run = () => readOneLine(t, question, echo);
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    secret: (question) => readLine(question, false),
    line: (question) => readLine(question, true),
    confirm: (question, defaultYes = false) => confirmOver(readLine, t.output, question, defaultYes),
    choose: (question, choices, defaultChoice, aliases) =>
      chooseOver(readLine, t.output, question, choices, defaultChoice, aliases),
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
export async function askHostKey(
  prompter: TerminalPrompter,
  identity: HostKeyIdentity,
  output: NodeJS.WritableStream = process.stderr,
): Promise<HostKeyAnswer> {
  output.write(
    `The authenticity of host '${identity.host}' (port ${identity.port}) can't be established.\n` +
      `${keyTypeLabel(identity.keyType)} key fingerprint is ${identity.fingerprint}.\n`,
  );
  const a = await prompter.choose(
    'Save it to known_hosts and connect [yes], connect this once [once], or [no]?',
    [...HOST_KEY_CHOICES],
    'no',
    { save: 'yes' },
  );
  return a === 'once' ? 'accept-once' : a === 'yes' ? 'accept-save' : 'reject';
}
