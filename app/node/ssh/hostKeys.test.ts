import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Client, Server } from 'ssh2';
import type { HostKeyAnswer, HostKeyVerdict } from '../../common/model/hostKey';
import { KnownHosts, keyTypeOf, sha256Fingerprint } from '../stores/knownHosts';
import {
  HostKeyPolicy,
  changedKeyMessage,
  makeHostVerifier,
  preferStoredHostKeyAlgorithms,
  type HostKeyCheck,
  type HostKeyMode,
  type HostKeyPrompter,
} from './hostKeys';
import { SSHD_PATH, startSshd } from '../test/helpers';
import { keygenSuite } from '../test/keygenSuite';

const { keys, newFile } = keygenSuite('sluice-hk-');

function lineCount(file: string): number {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;
}

async function policyOn(
  file: string,
  mode: HostKeyMode,
  prompt?: HostKeyPrompter,
  verdicts?: HostKeyVerdict[],
): Promise<HostKeyPolicy> {
  const knownHosts = await KnownHosts.load({ readPaths: [file], writePath: file });
  return new HostKeyPolicy({ knownHosts, mode, prompt, onVerdict: (v) => verdicts?.push(v) });
}

/** A prompt whose answer the test releases, counting how often it was asked. */
function gatedPrompt(): {
  prompt: HostKeyPrompter;
  calls: () => number;
  answer: (a: HostKeyAnswer) => void;
  asked: Promise<void>;
} {
  let calls = 0;
  let release!: (a: HostKeyAnswer) => void;
  const answerP = new Promise<HostKeyAnswer>((r) => {
    release = r;
  });
  let markAsked!: () => void;
  const asked = new Promise<void>((r) => {
    markAsked = r;
  });
  return {
    prompt: () => {
      calls++;
      markAsked();
      return answerP;
    },
    calls: () => calls,
    answer: (a) => release(a),
    asked,
  };
}

function refusal(c: HostKeyCheck): { code: string; message: string } {
  assert.equal(c.accepted, false, 'expected a refusal');
  return c.accepted ? { code: '', message: '' } : { code: c.code, message: c.message };
}

test('strict refuses an unknown key, names its fingerprint and --accept-new, writes nothing', async () => {
  const f = newFile();
  const policy = await policyOn(f, 'strict');
  const c = await policy.verify('127.0.0.1', 2222, keys.ed1.blob);
  const { code, message } = refusal(c);
  assert.equal(code, 'HOSTKEY_UNKNOWN');
  assert.ok(message.includes(keys.ed1.fp), message);
  assert.ok(message.includes('ED25519'));
  assert.ok(message.includes('--accept-new'));
  assert.ok(message.includes('[127.0.0.1]:2222'));
  assert.equal(fs.existsSync(f), false);
});

test('ask without a prompter behaves as strict', async () => {
  const f = newFile();
  const policy = await policyOn(f, 'ask');
  assert.equal(refusal(await policy.verify('127.0.0.1', 2222, keys.ed1.blob)).code, 'HOSTKEY_UNKNOWN');
});

test('accept-new: 8 concurrent checks accept and write the key once; later checks see it trusted', async () => {
  const f = newFile();
  const verdicts: HostKeyVerdict[] = [];
  const policy = await policyOn(f, 'accept-new', undefined, verdicts);
  const checks = await Promise.all(Array.from({ length: 8 }, () => policy.verify('127.0.0.1', 2222, keys.ed1.blob)));
  assert.ok(checks.every((c) => c.accepted && c.saved && c.verdict.kind === 'unknown'));
  assert.equal(lineCount(f), 1);
  assert.equal(fs.readFileSync(f, 'utf8'), `[127.0.0.1]:2222 ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const found = spawnSync('ssh-keygen', ['-F', '[127.0.0.1]:2222', '-f', f], { encoding: 'utf8' });
  assert.equal(found.status, 0);
  const later = await policy.verify('127.0.0.1', 2222, keys.ed1.blob);
  assert.equal(later.accepted && later.verdict.kind, 'trusted');
  assert.equal(verdicts.length, 9);
  assert.equal(lineCount(f), 1);
});

test('ask: concurrent checks share one prompt; accept-once is not written and not asked again', async () => {
  const f = newFile();
  const gate = gatedPrompt();
  const policy = await policyOn(f, 'ask', gate.prompt);
  const all = Promise.all(Array.from({ length: 8 }, () => policy.verify('127.0.0.1', 2222, keys.ed1.blob)));
  await gate.asked;
  gate.answer('accept-once');
  const checks = await all;
  assert.equal(gate.calls(), 1);
  assert.ok(checks.every((c) => c.accepted && !c.saved));
  const later = await policy.verify('127.0.0.1', 2222, keys.ed1.blob);
  assert.equal(later.accepted, true);
  assert.equal(gate.calls(), 1);
  assert.equal(fs.existsSync(f), false, 'accept-once writes nothing');
  // A different port is a different host entry: asked again.
  const other = gatedPrompt();
  const policy2 = await policyOn(f, 'ask', other.prompt);
  const p = policy2.verify('127.0.0.1', 2223, keys.ed1.blob);
  await other.asked;
  other.answer('reject');
  assert.equal(refusal(await p).code, 'HOSTKEY_REJECTED');
});

test('ask: accept-save writes once under concurrency', async () => {
  const f = newFile('# mine\n');
  const gate = gatedPrompt();
  const policy = await policyOn(f, 'ask', gate.prompt);
  const all = Promise.all(Array.from({ length: 8 }, () => policy.verify('sftp.example.com', 22, keys.ecdsa.blob)));
  await gate.asked;
  gate.answer('accept-save');
  const checks = await all;
  assert.equal(gate.calls(), 1);
  assert.ok(checks.every((c) => c.accepted && c.saved));
  assert.equal(fs.readFileSync(f, 'utf8'), `# mine\nsftp.example.com ${keys.ecdsa.type} ${keys.ecdsa.b64}\n`);
});

test('ask: reject refuses every waiting connection and is not asked again; a throwing prompt rejects', async () => {
  const f = newFile();
  const gate = gatedPrompt();
  const policy = await policyOn(f, 'ask', gate.prompt);
  const all = Promise.all(Array.from({ length: 4 }, () => policy.verify('127.0.0.1', 2222, keys.ed1.blob)));
  await gate.asked;
  gate.answer('reject');
  const checks = await all;
  assert.ok(checks.every((c) => !c.accepted && c.code === 'HOSTKEY_REJECTED'));
  assert.equal(refusal(await policy.verify('127.0.0.1', 2222, keys.ed1.blob)).code, 'HOSTKEY_REJECTED');
  assert.equal(gate.calls(), 1);
  assert.equal(fs.existsSync(f), false);
  const throwing = await policyOn(f, 'ask', async () => {
    throw new Error('window closed');
  });
  assert.equal(refusal(await throwing.verify('127.0.0.1', 2222, keys.ed1.blob)).code, 'HOSTKEY_REJECTED');
});

test('a changed key is refused without asking, showing file:line, key types and both fingerprints', async () => {
  const f = newFile(
    [
      '# comment',
      `example.com ${keys.rsa.type} ${keys.rsa.b64}`,
      `[127.0.0.1]:2222 ${keys.ed1.type} ${keys.ed1.b64}`,
    ].join('\n') + '\n',
  );
  let asked = 0;
  const policy = await policyOn(f, 'ask', async () => {
    asked++;
    return 'accept-save';
  });
  for (const mode of ['ask', 'accept-new'] as const) {
    const p = mode === 'ask' ? policy : await policyOn(f, mode);
    const c = await p.verify('127.0.0.1', 2222, keys.ed2.blob);
    const { code, message } = refusal(c);
    assert.equal(code, 'HOSTKEY_CHANGED');
    assert.ok(message.includes('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!'));
    assert.ok(message.includes('The ED25519 host key for [127.0.0.1]:2222 has changed.'), message);
    assert.ok(message.includes(`Offending ED25519 key in ${f}:3 (${keys.ed1.fp})`), message);
    assert.ok(message.includes(`Presented key: ED25519 ${keys.ed2.fp}`), message);
    assert.ok(message.endsWith('Host key verification failed.'));
  }
  assert.equal(asked, 0);
  assert.equal(lineCount(f), 3);
  // A different key type than the stored one is still a change (OpenSSH semantics), and says so.
  const msg = refusal(await policy.verify('example.com', 22, keys.ed1.blob)).message;
  assert.ok(msg.includes(`Offending RSA key in ${f}:2 (${keys.rsa.fp})`), msg);
  assert.ok(msg.includes('holds no ED25519 key for this host, only RSA'), msg);
});

test('changedKeyMessage lists every stored key', () => {
  const msg = changedKeyMessage({
    kind: 'changed',
    identity: { host: 'h', port: 22, keyType: 'ssh-ed25519', fingerprint: 'SHA256:new' },
    stored: [
      { file: '/a', line: 1, keyType: 'ssh-ed25519', fingerprint: 'SHA256:old1' },
      { file: '/b', line: 7, keyType: 'ecdsa-sha2-nistp256', fingerprint: 'SHA256:old2' },
    ],
  });
  assert.ok(msg.includes('Offending ED25519 key in /a:1 (SHA256:old1)'));
  assert.ok(msg.includes('Offending ECDSA key in /b:7 (SHA256:old2)'));
  assert.ok(msg.includes("ssh-keygen -R 'h' -f '/b'"));
});

test('a revoked key is refused in every mode, without asking', async () => {
  const f = newFile(`[127.0.0.1]:2222 ${keys.ed1.type} ${keys.ed1.b64}\n@revoked * ${keys.ed1.type} ${keys.ed1.b64}\n`);
  let asked = 0;
  for (const mode of ['ask', 'accept-new', 'strict'] as const) {
    const policy = await policyOn(f, mode, async () => {
      asked++;
      return 'accept-save';
    });
    const { code, message } = refusal(await policy.verify('127.0.0.1', 2222, keys.ed1.blob));
    assert.equal(code, 'HOSTKEY_REVOKED');
    assert.ok(message.includes('REVOKED HOST KEY'));
    assert.ok(message.includes(`${f}:2`));
    assert.ok(message.includes(keys.ed1.fp));
    const other = refusal(await policy.verify('10.9.9.9', 22, keys.ed1.blob));
    assert.equal(other.code, 'HOSTKEY_REVOKED');
  }
  assert.equal(asked, 0);
  assert.equal(lineCount(f), 2);
});

test('several keys per host: either one is trusted', async () => {
  const f = newFile(
    `lb.example.com ${keys.ed1.type} ${keys.ed1.b64}\nlb.example.com ${keys.ed2.type} ${keys.ed2.b64}\n`,
  );
  const policy = await policyOn(f, 'strict');
  for (const k of [keys.ed1, keys.ed2]) {
    const c = await policy.verify('lb.example.com', 22, k.blob);
    assert.equal(c.accepted && c.verdict.kind, 'trusted');
  }
});

test('learnRotatedKeys adds proven keys only when the connection key is trusted from the store', async () => {
  const f = newFile(
    `# keep\n[127.0.0.1]:2222 ${keys.ed1.type} ${keys.ed1.b64}\n@revoked * ${keys.rsa.type} ${keys.rsa.b64}\n`,
  );
  const before = fs.readFileSync(f, 'utf8');
  const policy = await policyOn(f, 'strict');
  const proven = [keys.ed1.blob, keys.ecdsa.blob, keys.ed2.blob, keys.rsa.blob, keys.ecdsa.blob];
  const learned = await policy.learnRotatedKeys('127.0.0.1', 2222, keys.ed1.blob, proven);
  assert.equal(learned.length, 2);
  assert.deepEqual(
    learned.map((k) => k.keyType),
    [keys.ecdsa.type, keys.ed2.type],
  );
  assert.deepEqual(
    learned.map((k) => k.fingerprint),
    [keys.ecdsa.fp, keys.ed2.fp],
  );
  const after = fs.readFileSync(f, 'utf8');
  assert.ok(after.startsWith(before), 'nothing removed or rewritten');
  assert.equal(lineCount(f), 5);
  assert.equal((await policy.learnRotatedKeys('127.0.0.1', 2222, keys.ed1.blob, proven)).length, 0);
  for (const k of [keys.ecdsa, keys.ed2]) {
    assert.equal((await policy.verify('127.0.0.1', 2222, k.blob)).accepted, true);
  }
  assert.equal(refusal(await policy.verify('127.0.0.1', 2222, keys.rsa.blob)).code, 'HOSTKEY_REVOKED');

  // Accepted once (not from the store): learn nothing.
  const g = newFile();
  const policy2 = await policyOn(g, 'ask', async () => 'accept-once');
  assert.equal((await policy2.verify('127.0.0.1', 2222, keys.ed1.blob)).accepted, true);
  assert.equal((await policy2.learnRotatedKeys('127.0.0.1', 2222, keys.ed1.blob, [keys.ed2.blob])).length, 0);
  assert.equal(fs.existsSync(g), false);
});

test('learnRotatedKeys reports each key once per policy when several connections announce it at once', async () => {
  const f = newFile(`[127.0.0.1]:2222 ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const policy = await policyOn(f, 'strict');
  const proven = [keys.ecdsa.blob, keys.ed2.blob];
  const [a, b] = await Promise.all([
    policy.learnRotatedKeys('127.0.0.1', 2222, keys.ed1.blob, proven),
    policy.learnRotatedKeys('127.0.0.1', 2222, keys.ed1.blob, proven),
  ]);
  assert.equal(a.length + b.length, 2);
  assert.equal(lineCount(f), 3);
});

test('preferStoredHostKeyAlgorithms puts stored key types first', () => {
  const defaults = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  assert.deepEqual(preferStoredHostKeyAlgorithms(['ssh-rsa'], defaults), [
    'rsa-sha2-512',
    'rsa-sha2-256',
    'ssh-rsa',
    'ssh-ed25519',
    'ecdsa-sha2-nistp256',
  ]);
  assert.deepEqual(preferStoredHostKeyAlgorithms([], defaults), defaults);
});

/** Connects an ssh2 client to an in-process ssh2 server using `hostKeyFile`; resolves 'ready' or the error text. */
async function connectWith(
  hostKeyFile: string,
  policy: HostKeyPolicy,
): Promise<{ outcome: string; check?: HostKeyCheck }> {
  const server = new Server({ hostKeys: [fs.readFileSync(hostKeyFile)] }, (conn) => {
    conn.on('authentication', (ctx) => ctx.accept());
    conn.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const client = new Client();
  let check: HostKeyCheck | undefined;
  try {
    const outcome = await new Promise<string>((resolve) => {
      client.once('ready', () => resolve('ready'));
      client.once('error', (e) => resolve(`error: ${e.message}`));
      client.connect({
        host: '127.0.0.1',
        port,
        username: 'tester',
        readyTimeout: 10_000,
        hostVerifier: makeHostVerifier(policy, '127.0.0.1', port, (c) => {
          check = c;
        }),
      });
    });
    return { outcome, check };
  } finally {
    client.end();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test('ssh2 hostVerifier: the blob ssh2 passes is the .pub blob; strict refuses, accept-new connects and saves', async () => {
  const f = newFile();
  const strict = await connectWith(keys.ed1.privFile, await policyOn(f, 'strict'));
  assert.match(strict.outcome, /^error: /);
  assert.equal(strict.check?.accepted === false && strict.check.code, 'HOSTKEY_UNKNOWN');
  assert.equal(strict.check?.verdict.kind === 'unknown' && strict.check.verdict.identity.fingerprint, keys.ed1.fp);

  const acceptNew = await connectWith(keys.ed1.privFile, await policyOn(f, 'accept-new'));
  assert.equal(acceptNew.outcome, 'ready');
  const text = fs.readFileSync(f, 'utf8');
  assert.match(text, /^\[127\.0\.0\.1\]:\d+ ssh-ed25519 /);
  assert.ok(text.includes(keys.ed1.b64));
  assert.equal(sha256Fingerprint(keys.ed1.blob), keys.ed1.fp);
});

const SSH2_DEFAULT_HOST_KEY_ALGOS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

test('real sshd: stored-type ordering avoids a false change, and hostkeys-00 rotation keys are learned', async (t) => {
  if (!fs.existsSync(SSHD_PATH) || process.getuid?.() !== 0) {
    t.skip(`needs ${SSHD_PATH} and root`);
    return;
  }
  // Host keys: ed25519 and ecdsa (unknown to the client) plus rsa (already in known_hosts).
  const sshd = await startSshd({ hostKeyTypes: ['ed25519', 'ecdsa', 'rsa'] });
  try {
    const port = sshd.port;
    const hostKeys = sshd.hostKeyBlobs().map((blob) => ({ type: keyTypeOf(blob), b64: blob.toString('base64') }));
    const rsa = hostKeys[2];
    const f = newFile(`[127.0.0.1]:${port} ${rsa.type} ${rsa.b64}\n`);
    const knownHosts = await KnownHosts.load({ readPaths: [f], writePath: f });
    const policy = new HostKeyPolicy({ knownHosts, mode: 'strict' });

    const connect = (
      algos: string[],
      waitForHostkeys: boolean,
    ): Promise<{ outcome: string; check?: HostKeyCheck; learned?: number }> =>
      new Promise((resolve) => {
        const conn = new Client();
        let check: HostKeyCheck | undefined;
        let presented: Buffer | undefined;
        const timer = setTimeout(() => {
          conn.end();
          resolve({ outcome: 'timeout', check });
        }, 15_000);
        const finish = (r: { outcome: string; learned?: number }): void => {
          clearTimeout(timer);
          conn.end();
          resolve({ ...r, check });
        };
        conn.on('hostkeys', (announced) => {
          if (!presented) return;
          policy
            .learnRotatedKeys(
              '127.0.0.1',
              port,
              presented,
              announced.map((k) => k.getPublicSSH()),
            )
            .then(
              (learned) => finish({ outcome: 'ready', learned: learned.length }),
              (e: Error) => finish({ outcome: `learn failed: ${e.message}` }),
            );
        });
        conn.once('ready', () => {
          if (!waitForHostkeys) finish({ outcome: 'ready' });
        });
        conn.once('error', (e) => finish({ outcome: `error: ${e.message}` }));
        const verifier = makeHostVerifier(policy, '127.0.0.1', port, (c) => {
          check = c;
        });
        conn.connect({
          host: '127.0.0.1',
          port,
          username: sshd.user,
          privateKey: fs.readFileSync(sshd.clientKeyPath),
          readyTimeout: 10_000,
          algorithms: { serverHostKey: algos as never },
          hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
            presented = key;
            verifier(key, verify);
          },
        });
      });

    // ssh2's default order offers ed25519 first: the server presents a key we do not hold, which OpenSSH calls a
    // change.
    const naive = await connect(SSH2_DEFAULT_HOST_KEY_ALGOS, false);
    assert.match(naive.outcome, /^error: /);
    assert.equal(naive.check?.accepted === false && naive.check.code, 'HOSTKEY_CHANGED');

    const ordered = preferStoredHostKeyAlgorithms(
      knownHosts.storedKeyTypes('127.0.0.1', port),
      SSH2_DEFAULT_HOST_KEY_ALGOS,
    );
    const first = await connect(ordered, true);
    assert.equal(first.outcome, 'ready');
    assert.equal(first.check?.accepted && first.check.verdict.kind, 'trusted');
    assert.equal(first.learned, 2, 'ed25519 and ecdsa learned from hostkeys-00@openssh.com');
    assert.equal(lineCount(f), 3);
    const found = spawnSync('ssh-keygen', ['-F', `[127.0.0.1]:${port}`, '-f', f], { encoding: 'utf8' });
    for (const k of hostKeys) assert.ok(found.stdout.includes(k.b64), `${k.type} stored`);

    const again = await connect(SSH2_DEFAULT_HOST_KEY_ALGOS, false);
    assert.equal(again.outcome, 'ready');
    assert.equal(again.check?.accepted && again.check.verdict.kind, 'trusted');
  } finally {
    await sshd.stop();
  }
});
