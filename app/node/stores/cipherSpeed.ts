/**
 * `<data folder>/cipher-speed.json`: the cipher measurements of `sluice bench-ciphers` and the app's "Measure" (issue
 * #15), one per machine and software (the CLI's Node and Electron's are two entries), validated with zod on every read.
 * A measurement whose machine facts differ from this machine's is not used; a corrupt file is not used either (the
 * lookup says why), and the next measurement replaces it.
 */
import fs from 'node:fs';
import { z } from 'zod';
import {
  cipherMeasurementSchema,
  factDifferences,
  sameMachine,
  type CipherMeasurement,
  type MachineFacts,
} from '../../common/model/cipherSpeed';
import { SluiceError } from '../errors';
import { cipherSpeedPath } from './cipherSpeedPath';

export { CIPHER_SPEED_FILE, cipherSpeedPath } from './cipherSpeedPath';
/** Measurements kept (of different machines or software sharing one data folder, newest first). */
const MAX_ENTRIES = 8;

const fileSchema = z.object({ version: z.literal(1), measurements: z.array(cipherMeasurementSchema) });

/** What a read found for this machine. */
export interface CipherSpeedLookup {
  /** This machine's measurement, when one is stored and valid. */
  measurement?: CipherMeasurement;
  /** Why nothing was used although the file exists: corrupt, or measured on another machine (which facts differ). */
  note?: string;
}

/** Every valid stored measurement, or the reason the file is unusable (undefined entries when there is no file). */
function readAll(file: string): { entries?: CipherMeasurement[]; problem?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `${file} cannot be read (${(e as Error).message}); the AES rule decides the cipher order` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { problem: `${file} is not JSON (${(e as Error).message}); ignored, measure again to replace it` };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      problem: `${file} is not a cipher measurement (${first.path.join('.') || '(file)'}: ${first.message}); ignored, measure again to replace it`,
    };
  }
  return { entries: parsed.data.measurements };
}

/**
 * This machine's stored measurement. Never throws: a missing file is no measurement, a corrupt one or one of another
 * machine comes back with a `note`.
 * @param home the data folder (stores/dataDir.ts resolveHome)
 * @param facts this machine's facts (ssh/machineFacts.ts)
 */
export function readCipherSpeed(home: string, facts: MachineFacts): CipherSpeedLookup {
  const file = cipherSpeedPath(home);
  const { entries, problem } = readAll(file);
  if (problem) return { note: problem };
  if (!entries || entries.length === 0) return {};
  const mine = entries.find((m) => sameMachine(m.facts, facts));
  if (mine) return { measurement: mine };
  return {
    note: `the measurement in ${file} is of another machine or software (${factDifferences(entries[0].facts, facts).join(', ')}); ignored`,
  };
}

/**
 * Stores a measurement, replacing the one of the same machine and software; other machines' entries stay (a corrupt
 * file is replaced). Written to a temporary file and renamed, so a reader never sees half a file.
 * @throws SluiceError LOCAL_IO naming the file and the system's message
 */
export function saveCipherSpeed(home: string, m: CipherMeasurement): string {
  const file = cipherSpeedPath(home);
  const others = (readAll(file).entries ?? []).filter((e) => !sameMachine(e.facts, m.facts));
  const doc = {
    version: 1 as const,
    measurements: [cipherMeasurementSchema.parse(m), ...others].slice(0, MAX_ENTRIES),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o644 });
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* nothing to clean */
    }
    throw new SluiceError('LOCAL_IO', `Saving the cipher measurement to ${file} failed: ${(e as Error).message}`);
  }
  return file;
}
