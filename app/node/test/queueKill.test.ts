/**
 * The queue survives SIGKILL (issue #14): jobs of mixed sizes (0 B up) are queued in four batches (two puts, two gets)
 * and `sluice queue run` is SIGKILLed at seeded random points (after a seeded number of files or bytes), then run
 * again, until a run finishes. Then every job is done, every file arrived with its source's SHA-256, no temporary
 * file is left, and the database passes integrity_check with no lease left. A file that had arrived whole by some
 * kill was never written again (same inode and ctime at the end): no file arrives twice, no job is done twice.
 *
 * CI runs 240 jobs (~200 MiB) and three kills; SLUICE_LARGE=1 runs 1,000 jobs up to 64 MiB (under 2 GiB) and five.
 * SLUICE_TEST_SEED=N replays a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QueueStore } from '../stores/queueStore';
import { seededRandom } from '../stores/testing/queueChild';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  startCli,
  startTestServer,
  tempFilesUnder,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

const LARGE = process.env.SLUICE_LARGE === '1';
const JOBS = LARGE ? 1000 : 240;
const KILLS = LARGE ? 5 : 3;
const MiB = 1024 * 1024;

let server: SshServer;
let work: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-qkill-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

/** A job's file: where it comes from and where it lands (both local paths: the server's root is a local folder). */
interface Pair {
  source: string;
  target: string;
  size: number;
}

/** Sizes of the seeded mix: many tiny and small files, some mid-sized, a few large ones. */
function sizeMix(rnd: () => number, n: number): number[] {
  const big = LARGE ? 64 * MiB : 24 * MiB;
  return Array.from({ length: n }, (_, i) => {
    const r = rnd();
    if (i % 25 === 0) return 0;
    if (r < 0.42) return Math.floor(rnd() * 4096);
    if (r < 0.84) return 4096 + Math.floor(rnd() * 508 * 1024);
    if (r < 0.97) return 512 * 1024 + Math.floor(rnd() * 3.5 * MiB);
    return 4 * MiB + Math.floor(rnd() * (big - 4 * MiB));
  });
}

/** The files of four batches: two of puts (local → server), two of gets (server → local). */
function makeBatches(seed: number): Array<{ direction: 'put' | 'get'; pairs: Pair[]; destDir: string }> {
  const rnd = seededRandom(seed);
  const sizes = sizeMix(rnd, JOBS);
  const quarter = Math.ceil(JOBS / 4);
  return [0, 1, 2, 3].map((b) => {
    const direction = b < 2 ? ('put' as const) : ('get' as const);
    const srcDir = direction === 'put' ? path.join(work, `src-${b}`) : path.join(server.root, `kill-src-${b}`);
    const destDir = direction === 'put' ? path.join(server.root, `kill-dest-${b}`) : path.join(work, `dest-${b}`);
    fs.mkdirSync(srcDir);
    fs.mkdirSync(destDir);
    const pairs = sizes.slice(b * quarter, (b + 1) * quarter).map((size, i) => {
      const name = `f${b}-${String(i).padStart(4, '0')}.bin`;
      writeRandomFile(path.join(srcDir, name), size);
      return { source: path.join(srcDir, name), target: path.join(destDir, name), size };
    });
    return { direction, pairs, destDir };
  });
}

/** A target's identity: rewritten (a second arrival) changes its inode or ctime. */
function identity(p: string): string | undefined {
  try {
    const st = fs.statSync(p, { bigint: true });
    return `${st.ino}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Checks the database after a kill and returns the queue's state counts. */
function checkDatabase(home: string): Record<string, number> {
  const store = QueueStore.open({ home });
  try {
    assert.equal(store.q.db.pragma('integrity_check', { simple: true }) as string, 'ok');
    const counts: Record<string, number> = {};
    for (let page = store.jobs.list({ limit: 10_000 }); ; page = store.jobs.list({ limit: 10_000, after: page.next })) {
      for (const j of page.jobs) counts[j.state] = (counts[j.state] ?? 0) + 1;
      if (!page.next) return counts;
    }
  } finally {
    store.close();
  }
}

test(
  `SIGKILL of sluice queue run at seeded points: ${JOBS} jobs each arrive exactly once`,
  { timeout: LARGE ? 1_800_000 : 300_000 },
  async (t) => {
    const seed = Number(process.env.SLUICE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
    t.diagnostic(`seed ${seed} (SLUICE_TEST_SEED=${seed} replays this run)`);
    const home = path.join(work, 'home');
    fs.mkdirSync(home);
    const env = { SLUICE_HOME: home };
    const batches = makeBatches(seed);
    const all = batches.flatMap((b) => b.pairs);
    t.diagnostic(`${all.length} jobs, ${(all.reduce((n, p) => n + p.size, 0) / MiB).toFixed(0)} MiB`);
    for (const b of batches) {
      const sources = b.pairs.map((p) => (b.direction === 'put' ? p.source : urlOf(server, p.source)));
      const dest = b.direction === 'put' ? urlOf(server, `${b.destDir}/`) : `${b.destDir}/`;
      const r = await runCli(['queue', 'add', b.direction, ...baseFlags(server), ...sources, dest], {
        knownHosts,
        env,
      });
      assert.equal(r.code, 0, describeRun(r));
    }

    const rnd = seededRandom(seed ^ 0x4b111);
    const arrived = new Map<string, string>();
    let remaining = all.length;
    for (let kill = 0; kill < KILLS; kill++) {
      // Spread over the queue: on average the kills split what is left evenly.
      const afterFiles = 1 + Math.floor(rnd() * ((2 * remaining) / (KILLS - kill + 1)));
      const afterBytes = Math.floor((1 + rnd() * 63) * MiB);
      const run = startCli(['queue', 'run', '--json'], { knownHosts, env, timeoutMs: 240_000 });
      let files = 0;
      const hit = await run
        .waitForEvent((e) => {
          if (e.type === 'file' && e.state === 'done') files++;
          return files >= afterFiles || (e.type === 'progress' && (e.bytesDone as number) >= afterBytes);
        }, 120_000)
        .then(
          () => true,
          () => false,
        );
      run.child.kill('SIGKILL');
      const r = await run.result;
      const counts = checkDatabase(home);
      remaining = all.length - (counts.done ?? 0);
      t.diagnostic(
        `kill ${kill + 1}: after ${files} file(s) (${afterFiles} files or ${(afterBytes / MiB).toFixed(0)} MiB asked; ${hit ? 'killed' : `ended first: ${r.code}`}): ${JSON.stringify(counts)}`,
      );
      for (const p of all) {
        if (arrived.has(p.target)) continue;
        const id = identity(p.target);
        if (
          id &&
          fs.statSync(p.target).size === p.size &&
          (await sha256File(p.target)) === (await sha256File(p.source))
        )
          arrived.set(p.target, id);
      }
      if (!hit) break;
    }
    t.diagnostic(`${arrived.size} of ${all.length} files had arrived whole by the last kill`);

    const last = await runCli(['queue', 'run', '--json'], { knownHosts, env, timeoutMs: LARGE ? 1_200_000 : 240_000 });
    assert.equal(last.code, 0, describeRun(last));
    assert.deepEqual(checkDatabase(home), { done: all.length }, 'every job is done');
    for (const p of all) {
      assert.equal(await sha256File(p.target), await sha256File(p.source), `${p.target} has its source's bytes`);
      const before = arrived.get(p.target);
      if (before)
        assert.equal(identity(p.target), before, `${p.target} arrived before a kill and was not written again`);
    }
    for (const b of batches) assert.deepEqual(tempFilesUnder(b.destDir), [], `no temporary file left in ${b.destDir}`);
    const store = QueueStore.open({ home });
    try {
      assert.equal(
        (store.q.db.prepare('SELECT COUNT(*) AS n FROM leases').get() as { n: number }).n,
        0,
        'no lease left',
      );
    } finally {
      store.close();
    }
  },
);
