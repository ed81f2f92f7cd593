/**
 * Keyboard-interactive authentication (RFC 4256): every SSH_MSG_USERAUTH_INFO_REQUEST round — its name, instruction
 * and prompts with their echo flags — goes to a prompter (the CLI's terminal, the app's dialog). The password the
 * user gave or saved answers one prompt only: the first that asks for the account password ({@link isPasswordPrompt}),
 * once per login; a one-time code, a new password or a second "Password:" after a refusal is asked.
 * Secrets are never logged nor put in error messages (a prompt's text is the server's, not a secret).
 */
import type { KeyboardInteractiveAuthMethod, Prompt } from 'ssh2';
import { SluiceError, displayText } from '../errors';

/** One prompt of an INFO_REQUEST (RFC 4256 §3.2): the server's text, and whether the answer may be shown as typed. */
export interface KeyboardPrompt {
  prompt: string;
  echo: boolean;
}

/** One INFO_REQUEST as the user sees it: what the password already answered is left out. */
export interface KeyboardRound {
  /** The request's name and instruction (either may be empty; RFC 4256 §3.3 asks clients to show them). */
  name: string;
  instructions: string;
  /** The prompts to answer, in the server's order. Empty for an informational round (nothing to answer). */
  prompts: KeyboardPrompt[];
  /** The server refused the previous keyboard-interactive login and asks again (a wrong password or code). */
  again: boolean;
}

/**
 * Rounds with prompts answered per keyboard-interactive attempt before giving up (a bounded loop: password, code, …).
 */
export const MAX_KEYBOARD_ROUNDS = 6;

/**
 * Words that make a prompt something other than the account's current password, although it may say "password":
 * a one-time code, a token, a verification, or a password change (new, retype, confirm, again).
 */
const NOT_THE_PASSWORD = /code|otp|one[- ]time|token|verification|\bnew\b|retype|re-?enter|again|confirm/i;

/**
 * True for a prompt that asks for the account's password: it says "password" (any case) and none of
 * {@link NOT_THE_PASSWORD}'s words. So `Password: ` and `alice@host's password:` are password prompts;
 * `Verification code: `, `One-time password (OTP): `, `Passcode or option (1-3): ` (Duo), `New password: ` are not.
 */
export function isPasswordPrompt(text: string): boolean {
  return /password/i.test(text) && !NOT_THE_PASSWORD.test(text);
}

/** What a login remembers across its keyboard-interactive rounds and attempts. */
export interface KeyboardState {
  /** The password given or saved, if any. */
  password: string | undefined;
  /** The password already answered a prompt of this login (it answers one, once). */
  passwordUsed: boolean;
  /** Rounds with prompts seen in this login (a refused attempt that asked nothing is not tried again). */
  rounds: number;
}

/** Who answers a round's prompts, and what happens when no one can. */
export interface KeyboardAsks {
  /**
   * Answers a round's remaining prompts, one answer per prompt in order; rejects (a SluiceError, e.g. AUTH_FAILED
   * naming the prompt in --batch mode, ABORTED on Ctrl-C) to give up. An informational round has no prompts.
   */
  keyboard?(round: KeyboardRound): Promise<string[]>;
  /** No one can answer: the caller ends the connection with this error (else empty answers are sent). */
  fail?(error: SluiceError): void;
}

/**
 * The answers the password gives: at the first password prompt ({@link isPasswordPrompt}) of the login, when there
 * is a password and it has not answered one yet. Marks it used in `s`.
 * @returns one entry per prompt: the password, or undefined where the prompt is to be asked
 */
export function passwordAnswers(prompts: readonly KeyboardPrompt[], s: KeyboardState): Array<string | undefined> {
  return prompts.map((p) => {
    if (s.passwordUsed || s.password === undefined || s.password === '' || !isPasswordPrompt(p.prompt))
      return undefined;
    s.passwordUsed = true;
    return s.password;
  });
}

/**
 * Answers one round: the password where {@link passwordAnswers} puts it, the rest from `asks.keyboard`.
 * @throws SluiceError AUTH_FAILED when a prompt must be asked and no one can answer, or the answers do not match the
 *   prompts; whatever `asks.keyboard` rejects with
 */
export async function answerRound(round: KeyboardRound, s: KeyboardState, asks: KeyboardAsks): Promise<string[]> {
  const answers = passwordAnswers(round.prompts, s);
  const open = answers.flatMap((a, i) => (a === undefined ? [i] : []));
  if (round.prompts.length > 0 && open.length === 0) return answers as string[];
  if (!asks.keyboard) {
    if (round.prompts.length === 0) return [];
    throw new SluiceError(
      'AUTH_FAILED',
      `the server asks "${displayText(round.prompts[open[0]].prompt.trim(), 100)}" (keyboard-interactive) and no one can answer it here`,
    );
  }
  const given = await asks.keyboard({ ...round, prompts: open.map((i) => round.prompts[i]) });
  if (given.length !== open.length)
    throw new SluiceError(
      'AUTH_FAILED',
      `keyboard-interactive: ${given.length} ${given.length === 1 ? 'answer' : 'answers'} for ${open.length} ${open.length === 1 ? 'prompt' : 'prompts'}`,
    );
  open.forEach((at, k) => {
    answers[at] = given[k];
  });
  return answers as string[];
}

/**
 * The ssh2 keyboard-interactive method of one attempt: each INFO_REQUEST goes through {@link answerRound}. After
 * {@link MAX_KEYBOARD_ROUNDS} rounds with prompts, empty answers end it (the server then refuses).
 * @param again the server refused this login's previous keyboard-interactive attempt
 */
export function keyboardMethod(
  username: string,
  s: KeyboardState,
  asks: KeyboardAsks,
  again: boolean,
): KeyboardInteractiveAuthMethod {
  let rounds = 0;
  return {
    type: 'keyboard-interactive',
    username,
    prompt: (
      name: string,
      instructions: string,
      _lang: string,
      prompts: Prompt[],
      finish: (answers: string[]) => void,
    ) => {
      const empty = () => finish(prompts.map(() => ''));
      if (prompts.length > 0) {
        s.rounds++;
        if (++rounds > MAX_KEYBOARD_ROUNDS) return empty();
      }
      const round: KeyboardRound = {
        name: name ?? '',
        instructions: instructions ?? '',
        again: again && rounds <= 1,
        prompts: prompts.map((p) => ({ prompt: String(p.prompt ?? ''), echo: p.echo === true })),
      };
      answerRound(round, s, asks).then(finish, (e: unknown) => {
        if (asks.fail) asks.fail(SluiceError.from(e));
        else empty();
      });
    },
  };
}
