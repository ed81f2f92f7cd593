/**
 * The CLI's login questions: the password (RFC 4252 §8), asked again after a refusal as OpenSSH does ("Permission
 * denied, please try again.") up to NumberOfPasswordPrompts times (3), and keyboard-interactive
 * rounds (RFC 4256 §3.2: name, instruction, then each prompt, hidden or shown as its echo flag says). Without a
 * terminal (--batch, or no TTY) a keyboard-interactive prompt the password cannot answer ends the login with
 * AUTH_FAILED naming the prompt. Text from the server is made safe for the terminal (displayText).
 */
import { SluiceError, displayText } from '../errors';
import type { EngineOptions } from '../engine/engine';
import { isPasswordPrompt, type KeyboardRound } from '../ssh/keyboardInteractive';
import type { TerminalPrompter } from './prompt';
import type { RemoteSpec } from '../engine/remoteSpec';

/** What OpenSSH's ssh(1) prints before asking again after a refused password or code. */
export const TRY_AGAIN = 'Permission denied, please try again.';

/**
 * Asks one keyboard-interactive round on the terminal: the name and instruction when not empty, then each prompt,
 * hidden unless its echo flag is set.
 * @param output where the name, instruction and "try again" go (the prompter writes the questions)
 * @returns one answer per prompt, in order; rejects with SluiceError('ABORTED') on Ctrl-C or end of input
 */
export async function askKeyboardRound(
  prompter: TerminalPrompter,
  round: KeyboardRound,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string[]> {
  if (round.again) output.write(`${TRY_AGAIN}\n`);
  for (const text of [round.name, round.instructions])
    if (text.trim() !== '') output.write(`${displayText(text.trim(), 1000)}\n`);
  const answers: string[] = [];
  for (const p of round.prompts) {
    const question = displayText(p.prompt, 200);
    answers.push(await (p.echo ? prompter.line(question) : prompter.secret(question)));
  }
  return answers;
}

/**
 * The AUTH_FAILED of a keyboard-interactive prompt that --batch (or a run without a terminal) cannot answer: it names
 * the prompt, and says SLUICE_PASSWORD answers a password prompt.
 */
export function batchKeyboardRefusal(
  spec: Pick<RemoteSpec, 'user' | 'host' | 'port'>,
  round: KeyboardRound,
): SluiceError {
  const first = round.prompts[0]?.prompt.trim() ?? '';
  const who = `${spec.user ? `${spec.user}@` : ''}${spec.host}:${spec.port}`;
  const asks = round.again ? 'refused the answer and asks again' : 'asks';
  const hint = isPasswordPrompt(first) ? '; give the password in SLUICE_PASSWORD' : '';
  return new SluiceError(
    'AUTH_FAILED',
    `authentication failed for ${who}: the server ${asks} "${displayText(first, 100)}" (keyboard-interactive), ` +
      `which cannot be answered without a terminal (--batch)${hint}`,
  );
}

/** OpenSSH's default NumberOfPasswordPrompts (ssh_config(5)): password questions per login before giving up. */
export const DEFAULT_PASSWORD_PROMPTS = 3;

/**
 * The engine's login questions for a CLI run: on `prompter`'s terminal, or (none: --batch) no password question and
 * keyboard-interactive prompts refused with {@link batchKeyboardRefusal}. Like ssh(1), the password (and each
 * keyboard-interactive round with a hidden prompt) is asked at most `passwordPrompts` times in all (ssh_config's
 * NumberOfPasswordPrompts, 3 by default); then the login goes on without it, and fails.
 */
export function loginAsks(
  spec: Pick<RemoteSpec, 'user' | 'host' | 'port'>,
  prompter: TerminalPrompter | undefined,
  output: NodeJS.WritableStream = process.stderr,
  passwordPrompts = DEFAULT_PASSWORD_PROMPTS,
): Pick<EngineOptions, 'askPassword' | 'askKeyboard'> {
  if (!prompter) {
    return {
      askKeyboard: async (round) =>
        round.prompts.length === 0 ? [] : Promise.reject(batchKeyboardRefusal(spec, round)),
    };
  }
  let asked = 0;
  const who = `${spec.user ? `${spec.user}@` : ''}${spec.host}:${spec.port}`;
  return {
    askPassword: async (again) => {
      if (asked >= passwordPrompts) return undefined;
      asked++;
      if (again) output.write(`${TRY_AGAIN}\n`);
      return prompter.secret(`${spec.user ?? ''}@${spec.host}'s password: `);
    },
    askKeyboard: async (round) => {
      if (round.prompts.some((p) => !p.echo)) {
        if (asked >= passwordPrompts) {
          throw new SluiceError(
            'AUTH_FAILED',
            `authentication failed for ${who}: ${passwordPrompts} answers refused (NumberOfPasswordPrompts)`,
          );
        }
        asked++;
      }
      return askKeyboardRound(prompter, round, output);
    },
  };
}
