import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  algorithmCatalog,
  buildAlgorithms,
  defaultCipherOrder,
  defaultMacOrder,
  cipherOrderFor,
  aesFromCpuinfo,
  detectAes,
  supportedAlgorithms,
} from './algorithms';
import { SluiceError } from '../errors';
import { scratchDir } from '../../../e2e/fixtures/tmp';

// No stored cipher measurement here (a developer's own cipher-speed.json would change the defaults): the AES rule.
process.env.SLUICE_HOME = scratchDir('sluice-algorithms-');

const constants = require('ssh2/lib/protocol/constants') as {
  SUPPORTED_CIPHER: string[];
  DEFAULT_KEX: string[];
  DEFAULT_MAC: string[];
};

function usageError(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, 'USAGE');
    assert.match(e.message, re);
    return true;
  });
}

test('cipherOrderFor puts aes128-gcm first with AES instructions, chacha20-poly1305 without', () => {
  const withAes = cipherOrderFor(true);
  const without = cipherOrderFor(false);
  assert.equal(withAes[0], 'aes128-gcm@openssh.com');
  assert.equal(without[0], 'chacha20-poly1305@openssh.com');
  assert.deepEqual([...withAes].sort(), [...without].sort());
  for (const c of withAes) assert.ok(constants.SUPPORTED_CIPHER.includes(c), c);
  assert.ok(!withAes.some((c) => /cbc|arcfour/.test(c)), 'no weak ciphers by default');
  assert.deepEqual(cipherOrderFor(undefined), withAes);
});

test('aesFromCpuinfo reads x86 flags and ARM Features lines', () => {
  assert.equal(aesFromCpuinfo('processor\t: 0\nflags\t\t: fpu sse2 aes avx\n'), true);
  assert.equal(aesFromCpuinfo('flags\t\t: fpu sse2 avx\n'), false);
  assert.equal(aesFromCpuinfo('Features\t: fp asimd aes pmull sha1\n'), true);
  assert.equal(aesFromCpuinfo('model name: x\n'), undefined);
  assert.equal(aesFromCpuinfo('flags: aesni\n'), false, 'whole words only');
});

test('defaultCipherOrder matches this machine', () => {
  const detected = detectAes();
  assert.equal(detected.source, 'cpu-features', 'cpu-features loads in the main thread');
  const order = defaultCipherOrder();
  assert.equal(order[0], detected.aes === false ? 'chacha20-poly1305@openssh.com' : 'aes128-gcm@openssh.com');
  if (fs.existsSync('/proc/cpuinfo')) {
    assert.equal(
      detected.aes,
      aesFromCpuinfo(fs.readFileSync('/proc/cpuinfo', 'utf8')),
      'cpu-features and /proc/cpuinfo agree',
    );
  }
});

test('a worker thread gets the same order through the /proc/cpuinfo fallback', async (t) => {
  if (!fs.existsSync('/proc/cpuinfo')) {
    t.skip('no /proc/cpuinfo on this platform');
    return;
  }
  const modulePath = path.join(__dirname, 'algorithms.js');
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const a = require(${JSON.stringify(modulePath)});
     parentPort.postMessage({ order: a.defaultCipherOrder(), detection: a.detectAes() });`,
    { eval: true },
  );
  const result = await new Promise<{ order: string[]; detection: { source: string } }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(result.detection.source, '/proc/cpuinfo');
  assert.deepEqual(result.order, defaultCipherOrder());
});

test('buildAlgorithms defaults: explicit cipher and MAC orders, host-key list without ssh-rsa, ssh2 defaults for kex', () => {
  const algos = buildAlgorithms({});
  assert.deepEqual(algos.cipher, defaultCipherOrder());
  assert.deepEqual(algos.hmac, defaultMacOrder());
  assert.deepEqual(
    defaultMacOrder(),
    constants.DEFAULT_MAC,
    "without a measurement: ssh2's MAC order (no weak MAC in it)",
  );
  assert.equal(algos.kex, undefined);
  const ssh2Defaults = (constants as unknown as { DEFAULT_SERVER_HOST_KEY: string[] }).DEFAULT_SERVER_HOST_KEY;
  assert.ok(ssh2Defaults.includes('ssh-rsa'), 'ssh2 itself would offer ssh-rsa');
  assert.deepEqual(
    algos.serverHostKey,
    ssh2Defaults.filter((a) => a !== 'ssh-rsa'),
  );
  assert.deepEqual(
    buildAlgorithms({ serverHostKey: ['+ssh-rsa'] }).serverHostKey,
    [...ssh2Defaults.filter((a) => a !== 'ssh-rsa'), 'ssh-rsa'],
    'a weak one is offered when asked for',
  );
});

test('algorithmCatalog: supported names, weak ones marked with their reason and never in the defaults', () => {
  const catalog = algorithmCatalog();
  assert.deepEqual(catalog.cipher.defaults, defaultCipherOrder());
  assert.deepEqual(catalog.kex.defaults, constants.DEFAULT_KEX);
  assert.deepEqual(catalog.hmac.defaults, defaultMacOrder());
  assert.match(catalog.cipher.weak['aes128-cbc'], /CBC/);
  assert.match(catalog.kex.weak['diffie-hellman-group1-sha1'], /RFC 9142/);
  assert.match(catalog.serverHostKey.weak['ssh-rsa'], /SHA-1/);
  assert.ok(!('hmac-md5-96' in catalog.cipher.weak), 'weak names are per family');
  for (const [family, c] of Object.entries(catalog)) {
    for (const name of Object.keys(c.weak)) {
      assert.ok(c.supported.includes(name), `${family} ${name} is supported`);
      assert.ok(!c.defaults.includes(name), `${family} ${name} is not a default`);
    }
    for (const name of c.defaults) assert.ok(c.supported.includes(name), `${family} default ${name} is supported`);
  }
});

test('algorithmCatalog: AES-GCM is one row (RFC 5647 aes128-gcm is an alias of aes128-gcm@openssh.com in ssh2)', () => {
  const { cipher } = algorithmCatalog();
  assert.ok(supportedAlgorithms().cipher.includes('aes128-gcm'), 'ssh2 lists both spellings');
  assert.ok(cipher.supported.includes('aes128-gcm@openssh.com'));
  assert.ok(!cipher.supported.includes('aes128-gcm') && !cipher.supported.includes('aes256-gcm'));
  assert.deepEqual(cipher.aliases, { 'aes128-gcm': 'aes128-gcm@openssh.com', 'aes256-gcm': 'aes256-gcm@openssh.com' });
});

test('buildAlgorithms parses comma lists and validates names', () => {
  const algos = buildAlgorithms({
    cipher: ['aes256-ctr, aes128-ctr', 'aes256-ctr'],
    kex: ['curve25519-sha256'],
    hmac: ['hmac-sha2-256-etm@openssh.com'],
    serverHostKey: ['ssh-ed25519,rsa-sha2-512'],
  });
  assert.deepEqual(algos.cipher, ['aes256-ctr', 'aes128-ctr']);
  assert.deepEqual(algos.kex, ['curve25519-sha256']);
  assert.deepEqual(algos.hmac, ['hmac-sha2-256-etm@openssh.com']);
  assert.deepEqual(algos.serverHostKey, ['ssh-ed25519', 'rsa-sha2-512']);
  usageError(
    () => buildAlgorithms({ cipher: ['aes128-ctr,rot13'] }),
    /--cipher algorithm "rot13".*Supported: .*aes128-gcm@openssh\.com/,
  );
  usageError(() => buildAlgorithms({ kex: ['nope'] }), /--kex algorithm "nope".*curve25519-sha256/);
  usageError(() => buildAlgorithms({ hmac: ['hmac-sha3'] }), /--mac algorithm "hmac-sha3"/);
  usageError(() => buildAlgorithms({ serverHostKey: ['ssh-foo'] }), /--host-key-algorithms algorithm "ssh-foo"/);
  usageError(() => buildAlgorithms({ cipher: [' , '] }), /at least one/);
});

test('buildAlgorithms supports ssh_config-style +, - and ^ lists', () => {
  const base = defaultCipherOrder();
  assert.deepEqual(buildAlgorithms({ cipher: ['+aes128-cbc'] }).cipher, [...base, 'aes128-cbc']);
  assert.deepEqual(buildAlgorithms({ cipher: ['^aes256-ctr'] }).cipher, [
    'aes256-ctr',
    ...base.filter((c) => c !== 'aes256-ctr'),
  ]);
  assert.deepEqual(
    buildAlgorithms({ cipher: ['-chacha20-poly1305@openssh.com'] }).cipher,
    base.filter((c) => !c.startsWith('chacha')),
  );
  assert.deepEqual(
    buildAlgorithms({ hmac: ['-hmac-sha1'] }).hmac,
    constants.DEFAULT_MAC.filter((m) => m !== 'hmac-sha1'),
  );
  usageError(() => buildAlgorithms({ cipher: [`-${base.join(',')}`] }), /leaves no algorithm/);
  usageError(() => buildAlgorithms({ cipher: ['+'] }), /names no algorithm/);
});

test('supportedAlgorithms lists ssh2 names', () => {
  const s = supportedAlgorithms();
  assert.ok(s.cipher.includes('aes128-gcm@openssh.com'));
  assert.ok(s.kex.includes('curve25519-sha256'));
  assert.ok(s.hmac.includes('hmac-sha2-256'));
  assert.ok(s.serverHostKey.includes('ssh-ed25519'));
});
