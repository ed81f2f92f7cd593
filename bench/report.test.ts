import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, readTimeFile, treeManifest, writeRandomTree } from './measure';
import {
  detailTable,
  replaceMarkedBlock,
  rowStats,
  speedup,
  summarize,
  summaryTable,
  transferPhaseTable,
  transferPhases,
  type CaseResult,
} from './report';

function caseOf(
  unit: 'MB/s' | 's',
  rows: Array<[string, 'sluice' | 'openssh' | 'lftp', number[], boolean?]>,
): CaseResult {
  return {
    id: 'x',
    title: 'x',
    link: 'loopback',
    unit,
    bytes: 1e9,
    files: 1,
    rows: rows.map(([client, family, secs, fail]) => ({
      client,
      family,
      label: client,
      runs: secs.map((s, i) => ({
        ok: !(fail && i === 0),
        seconds: s,
        cpuUser: 1,
        cpuSys: 0.5,
        error: fail && i === 0 ? 'boom' : undefined,
      })),
    })),
  };
}

test('median of odd and even lists', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('rowStats ignores failed runs and reports CPU per 10^9 bytes', () => {
  const c = caseOf('MB/s', [['sluice', 'sluice', [0.1, 2, 4], true]]);
  const st = rowStats(c, c.rows[0]);
  assert.equal(st.okRuns, 2);
  assert.equal(st.medianSeconds, 3);
  assert.ok(Math.abs((st.value ?? 0) - 1000 / 3) < 1e-9);
  assert.equal(st.cpu, 1.5);
});

test('speedup is "times faster" for both units', () => {
  assert.equal(speedup('MB/s', 200, 100), 2);
  assert.equal(speedup('s', 5, 10), 2);
});

test('summarize picks sftp, the best peer and the best Sluice row', () => {
  const c = caseOf('s', [
    ['sluice', 'sluice', [10]],
    ['sluice-c4', 'sluice', [4]],
    ['sftp', 'openssh', [100]],
    ['lftp', 'lftp', [20]],
  ]);
  const s = summarize(c, (sl) => sl <= 5);
  assert.equal(s.sftp, 100);
  assert.equal(s.bestPeer?.row.client, 'lftp');
  assert.equal(s.sluiceDefault, 10);
  assert.equal(s.sluiceBest?.row.client, 'sluice-c4');
  assert.equal(s.targetMet, true);
  const table = summaryTable([{ result: { ...c, target: '≤ 5 s' } }]);
  assert.match(table, /25\.00×/); // 100 s ÷ 4 s
  assert.match(detailTable(c), /\| lftp \| 20\.00 s \| 1\/1 \|/);
});

test('replaceMarkedBlock swaps only the marked text, and refuses without markers', () => {
  const readme = 'intro\n<!-- bench:start -->\nold\n<!-- bench:end -->\nrest\n';
  assert.equal(
    replaceMarkedBlock(readme, 'new table'),
    'intro\n<!-- bench:start -->\nnew table\n<!-- bench:end -->\nrest\n',
  );
  assert.equal(replaceMarkedBlock('no markers', 'x'), null);
});

test('readTimeFile takes the last line (time(1) adds one for a non-zero exit)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-test-'));
  try {
    const f = path.join(dir, 't');
    fs.writeFileSync(f, 'Command exited with non-zero status 1\n1.25 0.50 3.00 12345\n');
    assert.deepEqual(readTimeFile(f), { cpuUser: 1.25, cpuSys: 0.5, maxRssKb: 12345 });
    assert.deepEqual(readTimeFile(path.join(dir, 'missing')), {});
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('treeManifest changes when one byte of one file changes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-test-'));
  try {
    const m = writeRandomTree(dir, 12, 64);
    assert.equal(m.files, 12);
    assert.equal(m.bytes, 12 * 64);
    const victim = path.join(dir, 'd3', 'e0', 'f0003.bin');
    const data = fs.readFileSync(victim);
    data[0] ^= 1;
    fs.writeFileSync(victim, data);
    assert.notEqual(treeManifest(dir).digest, m.digest);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("transfer phase subtracts each client's own connect median from its wall time", () => {
  const connect: CaseResult = {
    id: 'connect-rtt50',
    title: 'connect',
    link: 'rtt50',
    unit: 's',
    bytes: 1,
    files: 1,
    rows: [
      {
        client: 'sluice',
        family: 'sluice',
        label: 'sluice',
        runs: [
          { ok: true, seconds: 1 },
          { ok: true, seconds: 0.9 },
          { ok: true, seconds: 1.1 },
        ],
      },
      { client: 'sftp', family: 'openssh', label: 'sftp', runs: [{ ok: true, seconds: 1.2 }] },
    ],
  };
  const mid: CaseResult = {
    id: 'mid-down-rtt50',
    title: 'mid',
    link: 'rtt50',
    unit: 'MB/s',
    bytes: 100e6,
    files: 1,
    rows: [
      { client: 'sluice', family: 'sluice', label: 'sluice', runs: [{ ok: true, seconds: 2 }] },
      { client: 'sftp', family: 'openssh', label: 'sftp', runs: [{ ok: true, seconds: 5.2 }] },
    ],
  };
  const loop: CaseResult = { ...mid, id: 'big-down-loopback', link: 'loopback' };
  const phases = transferPhases([connect, mid, loop]);
  assert.equal(phases.length, 1, 'no connect case on loopback: no entry');
  assert.equal(phases[0].sluice, 100);
  assert.equal(phases[0].sftp, 25);
  assert.equal(phases[0].ratio, 4);
  assert.deepEqual(phases[0].setup, { sftp: 1.2, sluice: 1 });
  assert.match(
    transferPhaseTable([connect, mid]),
    /\| mid \| 25\.0 MB\/s \| 100 MB\/s \| 4\.00× \| 1\.20 s \/ 1\.00 s \|/,
  );
  assert.equal(transferPhaseTable([mid]), '');
});
