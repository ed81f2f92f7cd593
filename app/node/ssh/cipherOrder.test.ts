/**
 * The default cipher and MAC orders from a stored measurement (issue #15): ranking, weak names left out, the AES rule
 * without a measurement, and a real connection to the test sshd negotiating the measured first cipher and MAC.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rankCiphers, rankMacs } from '../../common/model/cipherRank';
import type { CipherMeasurement, CipherSpeedRow } from '../../common/model/cipherSpeed';
import { saveCipherSpeed } from '../stores/cipherSpeed';
import { buildAlgorithms, cipherOrderFor, defaultAlgorithmOrders, detectAes, fallbackMacOrder } from './algorithms';
import { machineFacts } from './machineFacts';
import { openEngine } from '../engine/engine';
import { startTestServer, withTrustedServer } from '../test/helpers';
import { scratchDir } from '../../../e2e/fixtures/tmp';

function row(cipher: string, mac: string | null, perCore: number): CipherSpeedRow {
  return {
    cipher,
    mac,
    bytes: 1e8,
    cpuSeconds: 0.1,
    wallSeconds: 0.1,
    perCoreMBps: perCore,
    encryptMBps: 2 * perCore,
    decryptMBps: 2 * perCore,
    wallMBps: perCore,
  };
}

/**
 * A measurement where chacha20-poly1305 is fastest and hmac-sha2-512 (the slowest MAC in practice) beats
 * hmac-sha2-256-etm: the encrypt-then-MAC one still comes first, and a CTR cipher is scored with it.
 */
const CHACHA_FIRST: CipherSpeedRow[] = [
  row('aes128-gcm@openssh.com', null, 900),
  row('aes256-gcm@openssh.com', null, 800),
  row('chacha20-poly1305@openssh.com', null, 2000),
  row('aes128-ctr', 'hmac-sha2-256-etm@openssh.com', 400),
  row('aes128-ctr', 'hmac-sha2-512', 700),
  row('aes256-ctr', 'hmac-sha2-256-etm@openssh.com', 500),
  row('aes256-ctr', 'hmac-sha2-512', 1000),
  row('aes128-cbc', 'hmac-sha2-512', 5000),
  row('aes192-ctr', 'hmac-md5', 6000),
];

function tempHome(): string {
  return scratchDir('sluice-cipher-order-');
}

function storedIn(rows: CipherSpeedRow[]): string {
  const home = tempHome();
  const m: CipherMeasurement = {
    facts: machineFacts(),
    measuredAt: Date.now(),
    secondsPerCombination: 0.2,
    packetBytes: 32768,
    cpuClock: 'thread',
    rows,
  };
  saveCipherSpeed(home, m);
  return home;
}

test('ranking: ETM MACs first, each group by its mean over CTR ciphers; a CTR cipher by its figure with the first MAC; weak names never ranked', () => {
  assert.deepEqual(rankCiphers(CHACHA_FIRST), [
    'chacha20-poly1305@openssh.com',
    'aes128-gcm@openssh.com',
    'aes256-gcm@openssh.com',
    'aes256-ctr',
    'aes128-ctr',
  ]);
  assert.deepEqual(rankMacs(CHACHA_FIRST), ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512']);
  const etmOnly = CHACHA_FIRST.filter((r) => r.mac !== 'hmac-sha2-256-etm@openssh.com');
  assert.deepEqual(rankMacs(etmOnly), ['hmac-sha2-512'], 'without an ETM MAC measured, the fastest other one');
  assert.equal(rankCiphers(etmOnly)[1], 'aes256-ctr', 'scored with the MAC it is paired with (1000 MB/s)');
  assert.deepEqual(rankCiphers([]), []);
});

test("figures within 5 % tie and keep OpenSSH's order, whichever measured faster; 10 % apart ranks by speed", () => {
  const gcm = (a128: number, a256: number): CipherSpeedRow[] => [
    row('aes256-gcm@openssh.com', null, a256),
    row('aes128-gcm@openssh.com', null, a128),
  ];
  const expected = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com'];
  assert.deepEqual(rankCiphers(gcm(1620, 1650)), expected);
  assert.deepEqual(rankCiphers(gcm(1650, 1620)), expected);
  assert.deepEqual(rankCiphers(gcm(1500, 1650)), [...expected].reverse(), '10 % faster is not a tie');
  const macs = [
    row('aes128-ctr', 'hmac-sha2-512-etm@openssh.com', 650),
    row('aes128-ctr', 'hmac-sha2-256-etm@openssh.com', 640),
  ];
  assert.deepEqual(rankMacs(macs), ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com']);
});

test('a stored measurement saying chacha20 is fastest changes the default order; the rest follows the fallback', () => {
  const home = storedIn(CHACHA_FIRST);
  const orders = defaultAlgorithmOrders(home);
  assert.equal(orders.source, 'measurement');
  assert.deepEqual(orders.cipher.slice(0, 5), rankCiphers(CHACHA_FIRST));
  assert.ok(orders.cipher.includes('aes192-ctr'), 'unmeasured supported ciphers come after the measured ones');
  assert.ok(!orders.cipher.some((c) => c.includes('cbc')), 'a weak cipher is never a default, however fast');
  assert.deepEqual(orders.hmac.slice(0, 2), ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512']);
  assert.deepEqual([...orders.hmac].sort(), [...fallbackMacOrder()].sort());
  assert.ok(!orders.hmac.includes('hmac-md5'));
  const built = buildAlgorithms({}, home);
  assert.deepEqual(built.cipher, orders.cipher);
  assert.deepEqual(built.hmac, orders.hmac);
  assert.deepEqual(
    (buildAlgorithms({ cipher: ['^aes128-ctr'] }, home).cipher as string[]).slice(0, 2),
    ['aes128-ctr', 'chacha20-poly1305@openssh.com'],
    '^ applies to the measured order',
  );
});

test("without a measurement (or with a corrupt file) the AES rule and ssh2's MAC order stay the default", () => {
  const home = tempHome();
  const expected = { cipher: cipherOrderFor(detectAes().aes), hmac: fallbackMacOrder(), source: 'aes-rule' };
  assert.deepEqual(defaultAlgorithmOrders(home), expected);
  fs.writeFileSync(path.join(home, 'cipher-speed.json'), 'not json');
  assert.deepEqual(defaultAlgorithmOrders(home), expected);
  const other = storedIn(CHACHA_FIRST);
  const file = path.join(other, 'cipher-speed.json');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { measurements: Array<{ facts: { cpuModel: string } }> };
  doc.measurements[0].facts.cpuModel = 'Another CPU';
  fs.writeFileSync(file, JSON.stringify(doc));
  assert.deepEqual(defaultAlgorithmOrders(other), expected, "another machine's measurement is not used");
});

test('a real connection to the test sshd negotiates the measured first cipher (and MAC with a CTR cipher first)', async () => {
  await withTrustedServer(startTestServer, 'sluice-cipher-order-', async ({ server, dir, knownHosts }) => {
    const connect = async (dataDir: string) => {
      const engine = await openEngine({
        host: '127.0.0.1',
        port: server.port,
        username: server.user,
        dataDir,
        auth: { identityFiles: [server.clientKeyPath], useAgent: false, env: {}, home: dir },
        hostKeyMode: 'strict',
        knownHostsPaths: { readPaths: [knownHosts], writePath: knownHosts },
      });
      try {
        return engine.traits.negotiated;
      } finally {
        await engine.close();
      }
    };
    const chacha = await connect(storedIn(CHACHA_FIRST));
    assert.equal(chacha.cipher, 'chacha20-poly1305@openssh.com');
    const ctrFirst = CHACHA_FIRST.map((r) =>
      r.cipher === 'aes256-ctr' && r.mac === 'hmac-sha2-256-etm@openssh.com' ? { ...r, perCoreMBps: 9000 } : r,
    );
    const ctr = await connect(storedIn(ctrFirst));
    assert.equal(ctr.cipher, 'aes256-ctr');
    assert.equal(ctr.mac, 'hmac-sha2-256-etm@openssh.com', 'the ETM MAC, though hmac-sha2-512 measured faster');
  });
});
