/**
 * A child process for the queue store's multi-process tests (not used by the product): run as
 * `node queueChild.js <mode> <db file> …` it opens `queue.db` like a second app or CLI would and reports on stdout,
 * one line per event. Modes:
 * - `journal <db> <seed> <fileIds> <batch>`: records the seeded plan of {@link journalPlan} through a RangeRecorder,
 *   flushing every `batch` ranges and printing `flushed <n>` after the n-th flush, then `done`.
 * - `lease <db> <jobId>`: acquires the job's lease, prints `{"ok":…,"pid":…,"holderPid":…}` and, when it won,
 *   keeps the lease (heartbeats) until killed.
 * - `claim <db> <tag>`: claims jobs until none is left, finishing each (`done`); prints `claimed <id>` for each.
 * - `add <db> <batches> <perBatch> <tag>`: adds that many batches of jobs with sources `/<tag>/<batch>/<i>`.
 */
import { SluiceError } from '../../errors';
import { currentOwner, keepLease } from '../lease';
import { QueueStore } from '../queueStore';

/** A deterministic PRNG (mulberry32) in [0, 1), so the parent can rebuild the child's plan from the seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One range of the plan: which of the files (index into the ids) and which bytes. */
export interface PlannedRange {
  file: number;
  start: number;
  end: number;
}

/**
 * The journal child's work: `files` files of 1–32 MiB cut into chunks of 4–256 KiB, interleaved across files and
 * shuffled within windows of 16 (segments finishing out of order).
 */
export function journalPlan(seed: number, files: number): PlannedRange[] {
  const rnd = seededRandom(seed);
  const perFile: PlannedRange[][] = [];
  for (let f = 0; f < files; f++) {
    const size = Math.floor((1 + rnd() * 31) * 1024 * 1024);
    const list: PlannedRange[] = [];
    for (let at = 0; at < size;) {
      const end = Math.min(size, at + Math.floor((4 + rnd() * 252) * 1024));
      list.push({ file: f, start: at, end });
      at = end;
    }
    perFile.push(list);
  }
  const out: PlannedRange[] = [];
  while (perFile.some((l) => l.length > 0)) {
    const live = perFile.filter((l) => l.length > 0);
    out.push(live[Math.floor(rnd() * live.length)].shift()!);
  }
  for (let w = 0; w < out.length; w += 16) {
    for (let i = Math.min(out.length, w + 16) - 1; i > w; i--) {
      const j = w + Math.floor(rnd() * (i - w + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
  }
  return out;
}

function runJournal(store: QueueStore, seed: number, fileIds: number[], batch: number): void {
  let flushes = 0;
  const recorder = store.recorder({ flushBytes: Number.MAX_SAFE_INTEGER, flushMs: 3_600_000 });
  const plan = journalPlan(seed, fileIds.length);
  plan.forEach((r, i) => {
    recorder.record(fileIds[r.file], r.start, r.end);
    if ((i + 1) % batch === 0 || i === plan.length - 1) {
      recorder.flush();
      process.stdout.write(`flushed ${++flushes}\n`);
    }
  });
  process.stdout.write('done\n');
}

function runLease(store: QueueStore, jobId: string): void {
  const got = store.leases.acquire(jobId, currentOwner());
  const holderPid = got.ok ? process.pid : got.holder.owner.pid;
  process.stdout.write(`${JSON.stringify({ ok: got.ok, pid: process.pid, holderPid })}\n`);
  if (!got.ok) return;
  keepLease(store.leases, got.lease, { intervalMs: 200, onLost: () => process.exit(3) });
  setInterval(() => undefined, 60_000);
}

function runClaim(store: QueueStore): void {
  const owner = currentOwner();
  for (let c = store.claimNext(owner); c; c = store.claimNext(owner)) {
    process.stdout.write(`claimed ${c.job.id}\n`);
    store.releaseJob(c.lease, 'done');
  }
  process.stdout.write('done\n');
}

function runAdd(store: QueueStore, batches: number, perBatch: number, tag: string): void {
  for (let b = 0; b < batches; b++) {
    const jobs = Array.from({ length: perBatch }, (_, i) => ({
      target: { siteId: 's' },
      direction: 'upload' as const,
      source: `/${tag}/${b}/${i}`,
      dest: '/in',
    }));
    store.jobs.addBatch(jobs, `${tag}-${b}`);
  }
  process.stdout.write('done\n');
}

function main(argv: string[]): void {
  const [mode, file, ...args] = argv;
  const store = QueueStore.open({ file });
  if (mode === 'journal') runJournal(store, Number(args[0]), args[1].split(',').map(Number), Number(args[2]));
  else if (mode === 'lease') runLease(store, args[0]);
  else if (mode === 'claim') runClaim(store);
  else if (mode === 'add') runAdd(store, Number(args[0]), Number(args[1]), args[2]);
  else throw new SluiceError('USAGE', `queueChild: unknown mode ${mode}`);
}

if (require.main === module) main(process.argv.slice(2));
