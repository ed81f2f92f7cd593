/**
 * The set-up the known_hosts and host-key unit tests share: a temporary folder, four key pairs made by the real
 * `ssh-keygen` (so fingerprints and lines are OpenSSH's own), and fresh known_hosts files in that folder.
 */
import { after, before } from 'node:test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A key pair made by `ssh-keygen`. */
export interface KeygenKey {
  /** The private key file (unencrypted). */
  privFile: string;
  /** `<privFile>.pub`. */
  pubFile: string;
  /** The key type of the `.pub` line, e.g. `ssh-ed25519`. */
  type: string;
  /** The base64 blob of the `.pub` line. */
  b64: string;
  blob: Buffer;
  /** `SHA256:…` as `ssh-keygen -lf` prints it. */
  fp: string;
}

/** What {@link keygenSuite} gives a test file; usable from the first test on (the keys are made in `before()`). */
export interface KeygenSuite {
  /** The suite's temporary folder. */
  readonly dir: string;
  /** Two ed25519 keys, an ECDSA P-256 and an RSA 2048 key. */
  readonly keys: Record<'ed1' | 'ed2' | 'ecdsa' | 'rsa', KeygenKey>;
  /** A new file name in the folder (`known_hosts_N`), written with `content` when given. */
  newFile(content?: string): string;
}

/** Makes one key pair `key-NAME` in `dir` with `ssh-keygen ARGS`; see {@link KeygenKey}. */
export function sshKeygen(dir: string, name: string, args: string[]): KeygenKey {
  const privFile = path.join(dir, `key-${name}`);
  const pubFile = `${privFile}.pub`;
  execFileSync('ssh-keygen', [...args, '-N', '', '-q', '-C', `sluice-test-${name}`, '-f', privFile]);
  const [type, b64] = fs.readFileSync(pubFile, 'utf8').trim().split(' ');
  const fp = execFileSync('ssh-keygen', ['-lf', pubFile], { encoding: 'utf8' }).split(' ')[1];
  return { privFile, pubFile, type, b64, blob: Buffer.from(b64, 'base64'), fp };
}

/**
 * Registers the file's `before()` (folder and keys) and `after()` (folder removed) hooks.
 * @param prefix the temporary folder's name prefix, e.g. `'sluice-hk-'`
 */
export function keygenSuite(prefix: string): KeygenSuite {
  let dir: string | undefined;
  let fileSeq = 0;
  const keys = {} as KeygenSuite['keys'];
  const folder = (): string => {
    if (!dir) throw new Error('keygenSuite: used before its before() hook ran');
    return dir;
  };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    keys.ed1 = sshKeygen(dir, 'ed1', ['-t', 'ed25519']);
    keys.ed2 = sshKeygen(dir, 'ed2', ['-t', 'ed25519']);
    keys.ecdsa = sshKeygen(dir, 'ecdsa', ['-t', 'ecdsa', '-b', '256']);
    keys.rsa = sshKeygen(dir, 'rsa', ['-t', 'rsa', '-b', '2048']);
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return folder();
    },
    keys,
    newFile(content?: string): string {
      const f = path.join(folder(), `known_hosts_${++fileSeq}`);
      if (content !== undefined) fs.writeFileSync(f, content);
      return f;
    },
  };
}
