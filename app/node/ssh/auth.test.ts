import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Client, Server, utils, type AuthContext, type ParsedKey, type Algorithms } from 'ssh2';
import { gatherAuth, makeAuthHandler, type AuthMaterial, type PassphraseStore, type Prompter } from './auth';
import { buildAlgorithms, defaultCipherOrder } from './algorithms';
import { SluiceError } from '../errors';
import { parsableEd25519Pair } from '../../../e2e/fixtures/tmp';

let dir: string;
const PASSPHRASE = 'correct horse';

function keygen(name: string, args: string[], passphrase = ''): string {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', ...args, '-N', passphrase, '-C', `test-${name}`, '-f', file], { stdio: 'ignore' });
  return file;
}

function publicKeyOf(file: string): ParsedKey {
  const parsed = utils.parseKey(fs.readFileSync(`${file}.pub`));
  if (parsed instanceof Error) throw parsed;
  return Array.isArray(parsed) ? parsed[0] : parsed;
}

const keys: Record<string, string> = {};

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-auth-'));
  keys.ed25519 = keygen('id_ed25519', ['-t', 'ed25519']);
  keys.ecdsa = keygen('id_ecdsa', ['-t', 'ecdsa', '-b', '384']);
  keys.rsa = keygen('id_rsa', ['-t', 'rsa', '-b', '2048']);
  keys.rsaPem = keygen('rsa_pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM']);
  keys.ecdsaPem = keygen('ecdsa_pem', ['-t', 'ecdsa', '-m', 'PEM']);
  keys.encrypted = keygen('enc_ed25519', ['-t', 'ed25519'], PASSPHRASE);
  keys.encryptedPem = keygen('enc_rsa_pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM'], PASSPHRASE);
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A prompter that replays answers and records questions. */
function fakePrompter(answers: string[]): Prompter & { questions: string[] } {
  const questions: string[] = [];
  return {
    questions,
    secret(question: string): Promise<string> {
      questions.push(question);
      const a = answers.shift();
      return a === undefined ? Promise.reject(new Error('no more answers')) : Promise.resolve(a);
    },
  };
}

test('gatherAuth parses ed25519, ecdsa and rsa keys in OpenSSH and PEM formats', async () => {
  const cases: Array<[string, string]> = [
    [keys.ed25519, 'ssh-ed25519'],
    [keys.ecdsa, 'ecdsa-sha2-nistp384'],
    [keys.rsa, 'ssh-rsa'],
    [keys.rsaPem, 'ssh-rsa'],
    [keys.ecdsaPem, 'ecdsa-sha2-nistp256'],
  ];
  assert.match(fs.readFileSync(keys.rsaPem, 'utf8'), /BEGIN RSA PRIVATE KEY/);
  assert.match(fs.readFileSync(keys.ed25519, 'utf8'), /BEGIN OPENSSH PRIVATE KEY/);
  const m = await gatherAuth({ identityFiles: cases.map(([f]) => f), env: {}, username: 'alice' });
  assert.equal(m.username, 'alice');
  assert.equal(m.agent, undefined);
  assert.equal(m.password, undefined);
  assert.equal(m.tryKeyboardInteractive, true, 'keyboard-interactive is offered whenever the server allows it');
  assert.deepEqual(
    m.keys.map((k) => [k.path, k.type]),
    cases,
  );
  for (const k of m.keys) {
    assert.ok(Buffer.isBuffer(k.privateKey));
    assert.equal(k.passphrase, undefined);
  }
});

test('an encrypted key asks the prompter, retries a wrong passphrase, keeps the right one', async () => {
  for (const file of [keys.encrypted, keys.encryptedPem]) {
    const prompter = fakePrompter(['wrong', PASSPHRASE]);
    const warnings: string[] = [];
    const m = await gatherAuth({ identityFiles: [file], env: {}, prompter }, (w) => warnings.push(w));
    assert.equal(m.keys.length, 1);
    assert.equal(m.keys[0].passphrase, PASSPHRASE);
    assert.equal(prompter.questions.length, 2);
    assert.match(prompter.questions[0], /passphrase for key/);
    assert.ok(prompter.questions[0].includes(file));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /Bad passphrase/);
    assert.ok(
      !warnings.join('\n').includes('wrong') && !warnings.join('\n').includes(PASSPHRASE),
      'no secrets in warnings',
    );
  }
});

test('an encrypted key is skipped after 3 wrong passphrases, and without a prompter', async () => {
  const prompter = fakePrompter(['a', 'b', 'c', 'never asked']);
  const warnings: string[] = [];
  const m = await gatherAuth({ identityFiles: [keys.encrypted, keys.ed25519], env: {}, prompter }, (w) =>
    warnings.push(w),
  );
  assert.equal(prompter.questions.length, 3);
  assert.deepEqual(
    m.keys.map((k) => k.path),
    [keys.ed25519],
  );
  assert.match(warnings.at(-1) ?? '', /Skipping key .*no correct passphrase/);

  const batchWarnings: string[] = [];
  const batch = await gatherAuth({ identityFiles: [keys.encrypted, keys.ed25519], env: {} }, (w) =>
    batchWarnings.push(w),
  );
  assert.deepEqual(
    batch.keys.map((k) => k.path),
    [keys.ed25519],
  );
  assert.equal(batchWarnings.length, 1);
  assert.match(batchWarnings[0], /encrypted key .*batch mode/);

  const empty = fakePrompter(['']);
  const skipped = await gatherAuth({ identityFiles: [keys.encrypted], env: {}, prompter: empty });
  assert.equal(skipped.keys.length, 0, 'an empty passphrase skips the key');
  assert.equal(empty.questions.length, 1);
});

test('an encrypted key: a kept passphrase opens it without asking; a stale one is forgotten, then the dialog asks again after a wrong one and keeps the right one on request', async () => {
  const kept = new Map<string, string>();
  const calls: string[] = [];
  const store: PassphraseStore = {
    get: async (k) => kept.get(k),
    set: async (k, p) => {
      calls.push(`set ${p === PASSPHRASE ? 'right' : 'other'}`);
      kept.set(k, p);
    },
    delete: async (k) => {
      calls.push('delete');
      kept.delete(k);
    },
    opened: (k) => {
      calls.push(`opened ${path.basename(k)}`);
    },
  };
  const asks: boolean[] = [];
  const answers = [{ passphrase: 'wrong' }, { passphrase: PASSPHRASE, remember: true }];
  const prompter: Prompter = {
    secret: () => Promise.reject(new Error('the passphrase method is used')),
    passphrase: async ({ keyPath, again }) => {
      assert.equal(keyPath, keys.encrypted);
      asks.push(again);
      return answers.shift()!;
    },
  };
  kept.set(keys.encrypted, 'stale');
  const warnings: string[] = [];
  const m = await gatherAuth({ identityFiles: [keys.encrypted], env: {}, prompter, passphrases: store }, (w) =>
    warnings.push(w),
  );
  assert.equal(m.keys[0]?.passphrase, PASSPHRASE);
  assert.deepEqual(asks, [false, true], 'asked, then asked again after the wrong one');
  assert.deepEqual(calls, ['delete', `opened ${path.basename(keys.encrypted)}`, 'set right']);
  assert.match(warnings.join('\n'), /saved passphrase .* no longer opens it/);
  assert.ok(
    !warnings.join('\n').includes(PASSPHRASE) && !warnings.join('\n').includes('stale'),
    'no secrets in warnings',
  );

  calls.length = 0;
  const again = await gatherAuth({ identityFiles: [keys.encrypted], env: {}, prompter, passphrases: store });
  assert.equal(again.keys[0]?.passphrase, PASSPHRASE);
  assert.deepEqual(asks, [false, true], 'the kept passphrase was used without asking');
  assert.deepEqual(calls, [`opened ${path.basename(keys.encrypted)}`]);
});

test('a PuTTY PPK v3 key given with -i fails with UNSUPPORTED_KEY and puttygen advice', async () => {
  const ppk = path.join(dir, 'mykey.ppk');
  fs.writeFileSync(
    ppk,
    [
      'PuTTY-User-Key-File-3: ssh-ed25519',
      'Encryption: none',
      'Comment: eddsa-key-20260101',
      'Public-Lines: 2',
      'AAAAC3NzaC1lZDI1NTE5AAAAIOHo5sn6ZqZ0JmZ6eOvTqMvSPpKxv+LhGJ+wo2XH',
      'Ibkz',
      'Private-Lines: 1',
      'AAAAIBnMDMtqxPMXiQ0Dk0wBdE3qZZn9f3YjHSYk4JDNk5F/',
      'Private-MAC: 2ba8a39e1ad8d4d1f4d1e0d5c7b0f0e6c2cb8a0f7c55c1e6a7d3b9b3e5f2a1c0',
      '',
    ].join('\n'),
  );
  await assert.rejects(gatherAuth({ identityFiles: [ppk], env: {} }), (e: unknown) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, 'UNSUPPORTED_KEY');
    assert.ok(e.message.includes(`puttygen ${ppk} -O private-openssh -o ${ppk.replace(/\.ppk$/, '')}`), e.message);
    return true;
  });
});

test('explicit -i problems: a public key is UNSUPPORTED_KEY, a missing file is LOCAL_IO', async () => {
  await assert.rejects(
    gatherAuth({ identityFiles: [`${keys.ed25519}.pub`], env: {} }),
    (e: unknown) => e instanceof SluiceError && e.code === 'UNSUPPORTED_KEY' && /not a private key/.test(e.message),
  );
  await assert.rejects(
    gatherAuth({ identityFiles: [path.join(dir, 'nope')], env: {} }),
    (e: unknown) => e instanceof SluiceError && e.code === 'LOCAL_IO' && e.message.includes(path.join(dir, 'nope')),
  );
});

test('default keys are discovered in <home>/.ssh in OpenSSH order; unreadable defaults only warn', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-home-'));
  try {
    assert.deepEqual((await gatherAuth({ home, env: {} })).keys, [], 'no ~/.ssh: no keys');
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.copyFileSync(keys.rsa, path.join(home, '.ssh', 'id_rsa'));
    fs.copyFileSync(keys.ed25519, path.join(home, '.ssh', 'id_ed25519'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_ecdsa'), 'not a key');
    fs.copyFileSync(keys.ecdsa, path.join(home, '.ssh', 'id_other'));
    const warnings: string[] = [];
    const m = await gatherAuth({ home, env: {} }, (w) => warnings.push(w));
    assert.deepEqual(
      m.keys.map((k) => path.basename(k.path)),
      ['id_ed25519', 'id_rsa'],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /id_ecdsa/);
    assert.equal(m.username, os.userInfo().username);
    // -i given: defaults are not added.
    const explicit = await gatherAuth({ home, env: {}, identityFiles: [keys.ecdsa] });
    assert.deepEqual(
      explicit.keys.map((k) => k.path),
      [keys.ecdsa],
    );
    // ~/ in -i expands against home.
    const tilde = await gatherAuth({ home, env: {}, identityFiles: ['~/.ssh/id_other'] });
    assert.deepEqual(
      tilde.keys.map((k) => k.path),
      [path.join(home, '.ssh', 'id_other')],
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('password from SLUICE_PASSWORD or options; agent only when SSH_AUTH_SOCK is a socket', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-home-'));
  try {
    const fromEnv = await gatherAuth({ home, env: { SLUICE_PASSWORD: 'envpw' } });
    assert.equal(fromEnv.password, 'envpw');
    assert.equal(fromEnv.tryKeyboardInteractive, true);
    assert.equal((await gatherAuth({ home, env: { SLUICE_PASSWORD: 'envpw' }, password: 'opt' })).password, 'opt');
    assert.equal((await gatherAuth({ home, env: {}, prompter: fakePrompter([]) })).tryKeyboardInteractive, true);

    const warnings: string[] = [];
    const notSocket = await gatherAuth({ home, env: { SSH_AUTH_SOCK: keys.ed25519 } }, (w) => warnings.push(w));
    assert.equal(notSocket.agent, undefined);
    assert.match(warnings[0], /not a socket/);
    const disabled = await gatherAuth({ home, env: { SSH_AUTH_SOCK: keys.ed25519 }, useAgent: false }, (w) =>
      warnings.push(w),
    );
    assert.equal(disabled.agent, undefined);
    assert.equal(warnings.length, 1, 'no warning when the agent is turned off');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

// ---- makeAuthHandler against a real in-process ssh2 server (ssh2 test/common.js style) ----

interface ServerPolicy {
  /** Public keys accepted for publickey auth. */
  keys?: ParsedKey[];
  password?: string;
  keyboardPassword?: string;
  /** Methods advertised on rejection. */
  methods: Array<'publickey' | 'password' | 'keyboard-interactive'>;
}

interface TestServer {
  port: number;
  attempts: string[];
  close(): Promise<void>;
}

async function startServer(policy: ServerPolicy): Promise<TestServer> {
  const hostKey = parsableEd25519Pair().private;
  const attempts: string[] = [];
  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx: AuthContext) => {
      const reject = (): void => ctx.reject(policy.methods);
      switch (ctx.method) {
        case 'publickey': {
          const match = policy.keys?.find((k) => k.getPublicSSH().equals(ctx.key.data));
          attempts.push(`publickey:${ctx.key.algo}${ctx.signature ? ':signed' : ''}`);
          if (!policy.methods.includes('publickey') || !match) return reject();
          if (!ctx.signature || !ctx.blob) return ctx.accept(); // "is this key acceptable?" (RFC 4252 §7)
          return match.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true ? ctx.accept() : reject();
        }
        case 'password':
          attempts.push('password');
          return policy.methods.includes('password') && ctx.password === policy.password ? ctx.accept() : reject();
        case 'keyboard-interactive':
          attempts.push('keyboard-interactive');
          if (!policy.methods.includes('keyboard-interactive')) return reject();
          return ctx.prompt([{ prompt: 'Password: ', echo: false }], 'Sluice test', (answers) =>
            answers[0] === policy.keyboardPassword ? ctx.accept() : reject(),
          );
        default:
          attempts.push(ctx.method);
          return reject();
      }
    });
    client.on('ready', () => client.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Connects with the handler; resolves 'ok' on ready or the error message; bounded by a timeout. */
async function connect(
  port: number,
  m: AuthMaterial,
  askPassword?: () => Promise<string | undefined>,
  algorithms?: Algorithms,
): Promise<{ result: string; cipher?: string }> {
  const client = new Client();
  let cipher: string | undefined;
  client.on('handshake', (negotiated) => {
    cipher = negotiated.cs.cipher;
  });
  const done = new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), 15000);
    client.on('ready', () => {
      clearTimeout(timer);
      resolve('ok');
    });
    client.on('error', (e: Error & { level?: string }) => {
      if (e.level === 'agent') return; // ssh2 reports an unreachable agent, then continues
      clearTimeout(timer);
      resolve(e.message);
    });
  });
  client.connect({
    host: '127.0.0.1',
    port,
    username: m.username,
    authHandler: makeAuthHandler(m, askPassword),
    hostVerifier: () => true,
    algorithms,
    readyTimeout: 10000,
  });
  const result = await done;
  client.end();
  return { result, cipher };
}

test('makeAuthHandler tries each key in order until the accepted one, using posted (cloned) material', async () => {
  const server = await startServer({ keys: [publicKeyOf(keys.ecdsa)], methods: ['publickey', 'password'] });
  try {
    const m = await gatherAuth({ identityFiles: [keys.rsaPem, keys.ed25519, keys.ecdsa], env: {}, username: 'u' });
    const posted = structuredClone(m); // what a worker receives: Buffers become Uint8Arrays
    assert.equal(Buffer.isBuffer(posted.keys[0].privateKey), false);
    const { result } = await connect(server.port, posted);
    assert.equal(result, 'ok');
    assert.deepEqual(
      server.attempts.filter((a) => !a.endsWith(':signed')).map((a) => a.split(':')[0]),
      ['publickey', 'publickey', 'publickey'],
    );
    assert.ok(server.attempts.at(-1)?.startsWith('publickey:ecdsa-sha2-nistp384'), server.attempts.join());
    assert.ok(server.attempts.at(-1)?.endsWith(':signed'));
  } finally {
    await server.close();
  }
});

test('makeAuthHandler uses an encrypted key with its gathered passphrase', async () => {
  const server = await startServer({ keys: [publicKeyOf(keys.encrypted)], methods: ['publickey'] });
  try {
    const m = await gatherAuth({
      identityFiles: [keys.encrypted],
      env: {},
      username: 'u',
      prompter: fakePrompter([PASSPHRASE]),
    });
    assert.equal((await connect(server.port, structuredClone(m))).result, 'ok');
  } finally {
    await server.close();
  }
});

test('makeAuthHandler asks for the password lazily, once, after keys fail', async () => {
  const server = await startServer({ keys: [], password: 'sekret', methods: ['publickey', 'password'] });
  try {
    const m = await gatherAuth({ identityFiles: [keys.ed25519], env: {}, username: 'u' });
    let asked = 0;
    const { result } = await connect(server.port, m, async () => {
      asked++;
      assert.ok(server.attempts.includes('publickey:ssh-ed25519'), 'keys are tried before the password is asked');
      return 'sekret';
    });
    assert.equal(result, 'ok');
    assert.equal(asked, 1);
    assert.deepEqual(server.attempts, ['publickey:ssh-ed25519', 'password']);
  } finally {
    await server.close();
  }
});

test('makeAuthHandler answers keyboard-interactive with the same password and skips methods the server refuses', async () => {
  const server = await startServer({ keyboardPassword: 'kbd-pw', methods: ['keyboard-interactive'] });
  try {
    const m: AuthMaterial = {
      username: 'u',
      keys: [{ path: keys.ed25519, privateKey: fs.readFileSync(keys.ed25519) }],
      password: 'kbd-pw',
      tryKeyboardInteractive: true,
    };
    const { result } = await connect(server.port, m);
    assert.equal(result, 'ok');
    // After the key is refused with methods ['keyboard-interactive'], password auth is skipped.
    assert.deepEqual(server.attempts, ['publickey:ssh-ed25519', 'keyboard-interactive']);
  } finally {
    await server.close();
  }
});

test('makeAuthHandler gives up cleanly when nothing works', async () => {
  const server = await startServer({
    password: 'right',
    keyboardPassword: 'right',
    methods: ['publickey', 'password', 'keyboard-interactive'],
  });
  try {
    const m: AuthMaterial = { username: 'u', keys: [], password: 'wrong', tryKeyboardInteractive: true };
    const { result } = await connect(server.port, m);
    assert.match(result, /All configured authentication methods failed/);
    assert.deepEqual(server.attempts, ['password', 'keyboard-interactive']);
    // Declining the password prompt skips both password methods.
    server.attempts.length = 0;
    const declined = await connect(
      server.port,
      { username: 'u', keys: [], tryKeyboardInteractive: true },
      async () => undefined,
    );
    assert.match(declined.result, /All configured authentication methods failed/);
    assert.deepEqual(server.attempts, []);
  } finally {
    await server.close();
  }
});

test('makeAuthHandler offers ssh-agent keys first (real ssh-agent)', async (t) => {
  const sock = path.join(dir, 'agent.sock');
  let agent: ChildProcess | undefined;
  try {
    agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10000);
      agent?.stdout?.on('data', (d: Buffer) => {
        if (d.toString().includes('SSH_AUTH_SOCK')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      agent?.once('error', () => resolve(false));
      agent?.once('exit', () => resolve(false));
    });
    if (!ready) {
      t.skip('ssh-agent did not start');
      return;
    }
    execFileSync('ssh-add', [keys.rsa], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
    const server = await startServer({ keys: [publicKeyOf(keys.rsa)], methods: ['publickey'] });
    try {
      const m = await gatherAuth({ identityFiles: [keys.ed25519], env: { SSH_AUTH_SOCK: sock }, username: 'u' });
      assert.equal(m.agent, sock);
      const { result } = await connect(server.port, m);
      assert.equal(result, 'ok');
      assert.ok(
        server.attempts[0].startsWith('publickey:rsa-sha2-') || server.attempts[0].startsWith('publickey:ssh-rsa'),
        server.attempts.join(),
      );
      assert.ok(!server.attempts.includes('publickey:ssh-ed25519'), 'the agent key was accepted before the file key');
    } finally {
      await server.close();
    }
  } finally {
    if (agent && agent.exitCode === null) {
      agent.kill();
      await once(agent, 'exit');
    }
  }
});

test('buildAlgorithms output is accepted by ssh2 and negotiates the first cipher', async () => {
  const server = await startServer({ password: 'pw', methods: ['password'] });
  try {
    const m: AuthMaterial = { username: 'u', keys: [], password: 'pw', tryKeyboardInteractive: false };
    const byDefault = await connect(server.port, m, undefined, buildAlgorithms({}));
    assert.equal(byDefault.result, 'ok');
    assert.equal(byDefault.cipher, defaultCipherOrder()[0]);
    const chosen = await connect(
      server.port,
      m,
      undefined,
      buildAlgorithms({ cipher: ['aes256-ctr'], hmac: ['hmac-sha2-256'] }),
    );
    assert.equal(chosen.result, 'ok');
    assert.equal(chosen.cipher, 'aes256-ctr');
  } finally {
    await server.close();
  }
});
