/**
 * `sluice sync --delete` survives SIGKILL (#27): a seeded tree (many small files in nested folders, a few of several
 * MiB) is synced onto a DEST holding stale files, both directions against a private sshd; each run is SIGKILLed at a
 * seeded point (after a seeded number of files or bytes) and the same command is run again, until one finishes. Then
 * the trees are identical (hashes), no file that had arrived by a kill was written again (same inode and ctime), no
 * temporary file is left, no batch is left in the queue (each run took the killed one's over), and at no kill had
 * a stale path been deleted while some copy was still missing (deletions only after every copy is committed).
 * The put books its batch's rows one at a time while its copies run (SLUICE_TEST_BOOK_FIRST=1, cli/syncRun.ts), so
 * its kills also land before every row is written. SLUICE_TEST_SEED=N replays a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QueueStore } from '../stores/queueStore';
import { seededRandom } from '../stores/testing/queueChild';
import {
  describeRun,
  runCli,
  sha256File,
  sshdWithKnownHosts,
  startCli,
  tempFilesUnder,
  treeOf,
  writeRandomFile,
} from './helpers';

const MiB = 1024 * 1024;
const KILLS = 3;

/** A target's identity: rewritten (a second arrival) changes its inode or ctime. */
function identity(p: string): string | undefined {
  try {
    const st = fs.statSync(p, { bigint: true });
    return `${st.ino}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Seeds SRC (files in nested folders, sizes 0 B to 6 MiB) and DEST's stale paths; @returns SRC's relative files. */
function seed(rnd: () => number, src: string, dest: string): { files: string[]; stale: string[] } {
  const files: string[] = [];
  for (let i = 0; i < 90; i++) {
    const rel = `d${i % 7}/s${i % 3}/f${String(i).padStart(3, '0')}.bin`;
    const r = rnd();
    const size = i % 20 === 0 ? 0 : r < 0.9 ? Math.floor(rnd() * 64 * 1024) : MiB + Math.floor(rnd() * 5 * MiB);
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    writeRandomFile(path.join(src, rel), size);
    files.push(rel);
  }
  const stale = ['old/a.txt', 'old/deep/b.txt', 'd1/stale.txt', 'top-stale.txt'];
  for (const rel of stale) {
    fs.mkdirSync(path.dirname(path.join(dest, rel)), { recursive: true });
    fs.writeFileSync(path.join(dest, rel), `stale ${rel}`);
  }
  return { files, stale };
}

for (const direction of ['put', 'get'] as const) {
  test(
    `SIGKILL of sluice sync ${direction} --delete at seeded points, then the same command`,
    { timeout: 300_000 },
    async (t) => {
      const s = Number(process.env.SLUICE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
      t.diagnostic(`seed ${s} (SLUICE_TEST_SEED=${s} replays this run)`);
      const { server, local, knownHosts, stop } = await sshdWithKnownHosts(`sluice-synckill-${direction}-`);
      try {
        const remoteDir = path.join(server.root, 'tree');
        const localDir = path.join(local, 'tree');
        const [srcDir, destDir] = direction === 'put' ? [localDir, remoteDir] : [remoteDir, localDir];
        const rnd = seededRandom(s);
        const { files, stale } = seed(rnd, srcDir, destDir);
        const url = `sftp://${server.user}@127.0.0.1:${server.port}${remoteDir}`;
        const operands = direction === 'put' ? [localDir, url] : [url, localDir];
        const home = path.join(local, 'home');
        // put: the batch's rows written one per turn of the event loop, so that kills land while they are written.
        const env = { SLUICE_HOME: home, ...(direction === 'put' ? { SLUICE_TEST_BOOK_FIRST: '1' } : {}) };
        const args = [
          'sync',
          '--delete',
          '--json',
          '--limit',
          '8M',
          '--batch',
          '--no-agent',
          '-i',
          server.clientKeyPath,
        ];
        const arrived = new Map<string, string>();
        for (let kill = 0; kill < KILLS; kill++) {
          const afterFiles = 1 + Math.floor(rnd() * 40);
          const afterBytes = Math.floor((0.5 + rnd() * 6) * MiB);
          const run = startCli([...args, ...operands], { knownHosts, env, timeoutMs: 240_000 });
          let done = 0;
          const hit = await run
            .waitForEvent((e) => {
              if (e.type === 'file' && e.state === 'done') done++;
              return done >= afterFiles || (e.type === 'progress' && (e.bytesDone as number) >= afterBytes);
            }, 120_000)
            .then(
              () => true,
              () => false,
            );
          run.child.kill('SIGKILL');
          const r = await run.result;
          let have = 0;
          for (const rel of files) {
            const target = path.join(destDir, rel);
            if (arrived.has(rel)) {
              have++;
              continue;
            }
            const id = identity(target);
            if (id && (await sha256File(target)) === (await sha256File(path.join(srcDir, rel)))) {
              arrived.set(rel, id);
              have++;
            }
          }
          const deleted = stale.filter((rel) => !fs.existsSync(path.join(destDir, rel)));
          t.diagnostic(
            `kill ${kill + 1}: after ${done} file(s) (${hit ? 'killed' : `ended first: ${r.code}`}): ${have} of ${files.length} arrived, ${deleted.length} stale deleted`,
          );
          if (deleted.length)
            assert.equal(have, files.length, 'a stale path was deleted before every copy was committed');
          if (!hit) break;
        }
        const last = await runCli([...args, ...operands], { knownHosts, env, timeoutMs: 240_000 });
        assert.equal(last.code, 0, describeRun(last));
        assert.deepEqual(await treeOf(destDir), await treeOf(srcDir), 'the trees are identical');
        for (const [rel, id] of arrived)
          assert.equal(identity(path.join(destDir, rel)), id, `${rel} arrived before a kill and was not written again`);
        assert.deepEqual(tempFilesUnder(destDir), [], 'no temporary file left');
        const store = QueueStore.open({ home });
        try {
          // Each run took over the batch the killed one left: none is left behind once the sync finished.
          assert.equal(store.jobs.count(), 0, 'no batch left in the queue');
        } finally {
          store.close();
        }
        const again = await runCli([...args, ...operands], { knownHosts, env });
        assert.equal(again.code, 0, describeRun(again));
        assert.equal(again.events.filter((e) => e.type === 'file').length, 0, 'a run after that copies nothing');
      } finally {
        await stop();
      }
    },
  );
}
