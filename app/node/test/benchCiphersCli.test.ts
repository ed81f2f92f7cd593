/**
 * `sluice bench-ciphers` (issue #15) as a user runs it: every AEAD cipher and CTR + MAC combination measured with
 * positive figures, `--no-save` writing nothing, and a saved run becoming the default order of the next connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { combinationName, type CipherSpeedRow } from '../../common/model/cipherSpeed';
import { benchCombinations } from '../ssh/cipherBench';
import { describeRun, makeTempDir, removeDir, runCli } from './helpers';

test('bench-ciphers --seconds 0.2 --json --no-save lists every combination with positive figures and saves nothing', async () => {
  const home = await makeTempDir('sluice-bench-ciphers-');
  try {
    const r = await runCli(['bench-ciphers', '--seconds', '0.2', '--json', '--no-save'], {
      knownHosts: path.join(home, 'known_hosts'),
      env: { SLUICE_HOME: home },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, describeRun(r));
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>);
    const rows = lines.filter((l) => l.type === 'row') as unknown as CipherSpeedRow[];
    const expected = benchCombinations().map(combinationName).sort();
    assert.ok(
      expected.includes('chacha20-poly1305@openssh.com') &&
        expected.includes('aes256-ctr + hmac-sha2-512-etm@openssh.com'),
      expected.join(', '),
    );
    assert.deepEqual(rows.map(combinationName).sort(), expected);
    for (const row of rows) {
      for (const k of [
        'bytes',
        'cpuSeconds',
        'wallSeconds',
        'perCoreMBps',
        'encryptMBps',
        'decryptMBps',
        'wallMBps',
      ] as const) {
        assert.ok(row[k] > 0 && Number.isFinite(row[k]), `${combinationName(row)}: ${k} = ${row[k]}`);
      }
    }
    const last = lines[lines.length - 1] as {
      type: string;
      saved: string | null;
      defaults: { cipher: string[]; hmac: string[] };
      facts: { cores: number };
    };
    assert.equal(last.type, 'measurement');
    assert.equal(last.saved, null);
    assert.ok(last.defaults.cipher.length >= 6 && last.defaults.hmac.length >= 6, JSON.stringify(last.defaults));
    assert.ok(last.facts.cores >= 1);
    assert.deepEqual(fs.readdirSync(home), [], '--no-save writes no cipher-speed.json');
  } finally {
    await removeDir(home);
  }
});

test("bench-ciphers saves this machine's measurement and prints the table and the default order; --seconds is checked", async () => {
  const home = await makeTempDir('sluice-bench-ciphers-');
  try {
    const opts = { knownHosts: path.join(home, 'known_hosts'), env: { SLUICE_HOME: home }, timeoutMs: 120_000 };
    const r = await runCli(['bench-ciphers', '--seconds', '0.05'], opts);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stdout, /^cipher \(\+ MAC\)\s+MB\/s per core\s+encrypt\s+decrypt\s+wall$/m);
    assert.match(r.stdout, /^default cipher order: (aes|chacha)/m);
    assert.match(
      r.stdout,
      new RegExp(`saved as this machine's measurement: ${path.join(home, 'cipher-speed.json').replace(/[.]/g, '\\.')}`),
    );
    assert.ok(fs.existsSync(path.join(home, 'cipher-speed.json')));
    const bad = await runCli(['bench-ciphers', '--seconds', '0'], opts);
    assert.equal(bad.code, 2, describeRun(bad));
    assert.match(bad.stderr, /seconds per combination/);
  } finally {
    await removeDir(home);
  }
});
