/**
 * Private key files and their passphrases: parsing with ssh2's key parser, and unlocking an encrypted key with a
 * remembered passphrase (the app's secret store) or by asking (the CLI's terminal, the app's dialog), a wrong one
 * asked again. Passphrases are never logged nor put in messages.
 */
import { displayText } from '../errors';
import { ssh2ParseKey as parseKey } from '../ssh2x';

/** Passphrase attempts per encrypted key, as ssh(1) (NumberOfPasswordPrompts 3). */
export const PASSPHRASE_TRIES = 3;

export type ParseOutcome = { ok: true; type: string } | { ok: false; encrypted: boolean; message: string };

/** Parses with ssh2's key parser; the OpenSSH format may hold several keys, the first is used. */
export function tryParse(data: Buffer, passphrase?: string): ParseOutcome {
  const parsed = parseKey(data, passphrase);
  if (parsed instanceof Error) {
    return { ok: false, encrypted: /no passphrase given/i.test(parsed.message), message: parsed.message };
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey())
    return { ok: false, encrypted: false, message: 'not a private key (is it the .pub file?)' };
  return { ok: true, type: key.type };
}

/** A passphrase the user typed, and whether to remember it (the app's "Remember" box). */
export interface PassphraseAnswer {
  passphrase: string;
  remember?: boolean;
}

/** Asks for secrets; hidden input. Absent in batch mode. */
export interface Prompter {
  /** Hidden input for `question`; rejects (SluiceError ABORTED) when the user cancels. */
  secret(question: string): Promise<string>;
  /**
   * An encrypted key's passphrase (preferred over `secret` when present): `again` when the previous one was wrong.
   * An empty passphrase skips the key.
   */
  passphrase?(ask: { keyPath: string; again: boolean }): Promise<PassphraseAnswer>;
}

/** Passphrases kept for key files (the app keeps them in its secret store, per site and key path). */
export interface PassphraseStore {
  /** The passphrase kept for a key file, tried before asking. */
  get(keyPath: string): Promise<string | undefined>;
  /** Keeps a passphrase the user asked to remember (it opened the key). */
  set(keyPath: string, passphrase: string): Promise<void>;
  /** Forgets a kept passphrase that no longer opens its key. */
  delete(keyPath: string): Promise<void>;
  /** A passphrase, kept or asked, opened the key (e.g. remembered for the session's reconnects). */
  opened?(keyPath: string, passphrase: string): void;
}

/** What unlocking a key may use. */
export interface UnlockOptions {
  prompter?: Prompter;
  passphrases?: PassphraseStore;
  warn: (message: string) => void;
}

/** An unlocked key: its passphrase and parsed type. */
export interface Unlocked {
  passphrase: string;
  type: string;
}

/** The passphrase a store kept for `file`, when it still opens the key (one that no longer does is forgotten). */
async function remembered(file: string, data: Buffer, o: UnlockOptions): Promise<Unlocked | null> {
  const kept = await o.passphrases?.get(file).catch(() => undefined);
  if (kept === undefined) return null;
  const parsed = tryParse(data, kept);
  if (parsed.ok) {
    o.passphrases?.opened?.(file, kept);
    return { passphrase: kept, type: parsed.type };
  }
  o.warn(`The saved passphrase of ${displayText(file)} no longer opens it; it was forgotten`);
  await o.passphrases?.delete(file).catch(() => undefined);
  return null;
}

/**
 * Unlocks an encrypted key: a remembered passphrase first (it costs no try), then up to {@link PASSPHRASE_TRIES}
 * asked ones, each wrong one asked again; an empty answer gives up, as ssh(1) does. A right passphrase the user asked
 * to remember goes to the store.
 * @returns null (after a warning) when the key must be skipped: no prompter, no right passphrase
 * @throws what the prompter rejects with (ABORTED on Ctrl-C)
 */
export async function unlockKey(file: string, data: Buffer, o: UnlockOptions): Promise<Unlocked | null> {
  const kept = await remembered(file, data, o);
  if (kept) return kept;
  const { prompter } = o;
  if (!prompter) {
    o.warn(
      `Skipping encrypted key ${displayText(file)}: no passphrase can be asked in batch mode (load it into ssh-agent instead)`,
    );
    return null;
  }
  for (let attempt = 1; attempt <= PASSPHRASE_TRIES; attempt++) {
    const answer: PassphraseAnswer = prompter.passphrase
      ? await prompter.passphrase({ keyPath: file, again: attempt > 1 })
      : { passphrase: await prompter.secret(`Enter passphrase for key '${displayText(file)}': `) };
    if (answer.passphrase === '') break;
    const parsed = tryParse(data, answer.passphrase);
    if (parsed.ok) {
      o.passphrases?.opened?.(file, answer.passphrase);
      if (answer.remember)
        await o.passphrases
          ?.set(file, answer.passphrase)
          .catch((e: Error) => o.warn(`The passphrase was not saved: ${e.message}`));
      return { passphrase: answer.passphrase, type: parsed.type };
    }
    if (attempt < PASSPHRASE_TRIES && !prompter.passphrase)
      o.warn(`Bad passphrase for ${displayText(file)}, try again`);
  }
  o.warn(`Skipping key ${displayText(file)}: no correct passphrase given`);
  return null;
}
