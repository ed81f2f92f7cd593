/**
 * Is listing 100,000 queued jobs fast? (issue #14: "Listing 100,000 jobs stays fast (a benchmark figure, not a timed
 * test)"). Fills a fresh queue.db (SLUICE_HOME in a temporary folder) with N jobs in batches of 1,000, then times:
 * the store's first page (50 jobs), a page deep in the queue by cursor and by offset, the whole queue by cursor, and
 * the CLI as a user runs it: `sluice queue list --first 50`, `sluice queue list > /dev/null`, `sluice queue list
 * --json`.
 *
 *   npm run build && node dist/bench/queueList.js [--jobs 100000] [--runs 3]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { QueueStore } from '../app/node/stores/queueStore';
import type { NewJob } from '../app/node/stores/queueRows';
import { sluiceBin } from './clients';
import { median } from './measure';

function parseArgs(argv: string[]): { jobs: number; runs: number } {
  let jobs = 100_000;
  let runs = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jobs') jobs = Number(argv[++i]);
    else if (argv[i] === '--runs') runs = Number(argv[++i]);
    else throw new Error(`unknown option ${argv[i]}\nusage: node dist/bench/queueList.js [--jobs N] [--runs N]`);
  }
  return { jobs, runs };
}

/** Milliseconds `fn` takes (median of `runs`). */
function timed(runs: number, fn: () => void): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ms);
}

/** Fills the queue: `jobs` uploads of one file each, as `sluice queue add` stores them, in batches of 1,000. */
function fill(store: QueueStore, jobs: number): number {
  const t0 = Date.now();
  for (let b = 0; b < jobs; b += 1000) {
    const batch: NewJob[] = [];
    for (let i = b; i < Math.min(jobs, b + 1000); i++) {
      batch.push({
        target: { user: 'alice', host: 'files.example.com', port: 22 },
        direction: 'upload',
        source: `/home/alice/photos/2026/img-${String(i).padStart(6, '0')}.jpg`,
        dest: '/srv/photos/',
        conflict: 'overwrite',
        options: { origin: 'queue', verify: 'size', cli: { recursive: false } },
      });
    }
    store.jobs.addBatch(batch);
  }
  return Date.now() - t0;
}

function main(): void {
  const { jobs, runs } = parseArgs(process.argv.slice(2));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-list-'));
  try {
    const store = QueueStore.open({ home });
    const fillMs = fill(store, jobs);
    const rows: Array<[string, number]> = [[`add ${jobs} jobs (1,000 per batch)`, fillMs]];
    rows.push(['store: first page (50)', timed(runs, () => store.jobs.list({ limit: 50 }))]);
    const deep = Math.floor(jobs * 0.9);
    rows.push([`store: page at offset ${deep} (50)`, timed(runs, () => store.jobs.list({ limit: 50, offset: deep }))]);
    rows.push(['store: count', timed(runs, () => store.jobs.count())]);
    rows.push([
      `store: all ${jobs} by cursor (pages of 5,000)`,
      timed(runs, () => {
        for (let p = store.jobs.list({ limit: 5000 }); p.next; p = store.jobs.list({ limit: 5000, after: p.next })) {
          /* paging */
        }
      }),
    ]);
    store.close();
    const env = { ...process.env, SLUICE_HOME: home };
    const cli = (args: string[]) =>
      timed(runs, () => {
        const r = spawnSync(process.execPath, [sluiceBin(), 'queue', 'list', ...args], {
          env,
          stdio: ['ignore', 'ignore', 'pipe'],
          maxBuffer: 1 << 30,
        });
        if (r.status !== 0) throw new Error(`sluice queue list ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      });
    rows.push([
      'node --version (process start, for scale)',
      timed(runs, () => spawnSync(process.execPath, ['--version'])),
    ]);
    rows.push(['sluice queue list --first 50', cli(['--first', '50'])]);
    rows.push([`sluice queue list (all ${jobs}, to /dev/null)`, cli([])]);
    rows.push([`sluice queue list --json (all ${jobs})`, cli(['--json'])]);
    process.stdout.write(
      `queue listing, ${jobs} jobs, median of ${runs} (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)})\n`,
    );
    for (const [what, ms] of rows) process.stdout.write(`  ${what.padEnd(52)} ${ms.toFixed(1).padStart(9)} ms\n`);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

main();
