import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { CipherMeasurement, MachineFacts } from '../../common/model/cipherSpeed';
import { cipherSpeedPath, readCipherSpeed, saveCipherSpeed } from './cipherSpeed';
import { scratchDir } from '../../../e2e/fixtures/tmp';

const HERE: MachineFacts = {
  cpuModel: 'Test CPU 9000',
  cores: 8,
  aes: true,
  platform: 'linux',
  arch: 'x64',
  node: '20.20.2',
  openssl: '3.0.19',
  ssh2: '1.17.0',
};

function measurement(facts: MachineFacts, perCore: number): CipherMeasurement {
  return {
    facts,
    measuredAt: 1_700_000_000_000,
    secondsPerCombination: 0.5,
    packetBytes: 32768,
    cpuClock: 'thread',
    rows: [
      {
        cipher: 'aes128-gcm@openssh.com',
        mac: null,
        bytes: 1e9,
        cpuSeconds: 1,
        wallSeconds: 1,
        perCoreMBps: perCore,
        encryptMBps: 2 * perCore,
        decryptMBps: 2 * perCore,
        wallMBps: perCore,
      },
    ],
  };
}

function tempHome(): string {
  return scratchDir('sluice-cipher-speed-');
}

test('a saved measurement reads back equal; no file is no measurement and no note', () => {
  const home = tempHome();
  assert.deepEqual(readCipherSpeed(home, HERE), {});
  const m = measurement(HERE, 1500);
  const file = saveCipherSpeed(home, m);
  assert.equal(file, cipherSpeedPath(home));
  assert.deepEqual(readCipherSpeed(home, HERE), { measurement: m });
  assert.deepEqual(fs.readdirSync(home), ['cipher-speed.json'], 'no temporary file left');
});

test("another machine's measurement is ignored with a note naming the differing facts, and kept when this one saves", () => {
  const home = tempHome();
  const other = { ...HERE, cpuModel: 'Other CPU', openssl: '3.5.0' };
  saveCipherSpeed(home, measurement(other, 900));
  const r = readCipherSpeed(home, HERE);
  assert.equal(r.measurement, undefined);
  assert.match(r.note ?? '', /another machine.*cpuModel Other CPU ≠ Test CPU 9000.*openssl 3\.5\.0 ≠ 3\.0\.19/);
  saveCipherSpeed(home, measurement(HERE, 1500));
  assert.equal(readCipherSpeed(home, HERE).measurement?.rows[0].perCoreMBps, 1500);
  assert.equal(readCipherSpeed(home, other).measurement?.rows[0].perCoreMBps, 900, 'the other machine keeps its own');
  saveCipherSpeed(home, measurement(HERE, 1600));
  const doc = JSON.parse(fs.readFileSync(cipherSpeedPath(home), 'utf8')) as { measurements: unknown[] };
  assert.equal(doc.measurements.length, 2, "measuring again replaces this machine's entry");
});

test('a corrupt file is ignored with a note, never thrown, and the next save replaces it', () => {
  const home = tempHome();
  const file = cipherSpeedPath(home);
  for (const [text, re] of [
    ['{"version": 1, "measurements": [', /is not JSON/],
    [
      '{"version": 1, "measurements": [{"facts": {}}]}',
      /is not a cipher measurement \(measurements\.0\.facts\.cpuModel/,
    ],
    ['[]', /is not a cipher measurement/],
  ] as const) {
    fs.writeFileSync(file, text);
    const r = readCipherSpeed(home, HERE);
    assert.equal(r.measurement, undefined);
    assert.match(r.note ?? '', re);
    assert.ok((r.note ?? '').includes(file), 'the note names the file');
  }
  saveCipherSpeed(home, measurement(HERE, 1500));
  assert.equal(readCipherSpeed(home, HERE).measurement?.rows[0].perCoreMBps, 1500);
});
