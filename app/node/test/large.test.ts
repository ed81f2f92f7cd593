/**
 * `npm run test:large` only (SLUICE_LARGE=1): a sparse file just over 4 GiB, with random bytes written on
 * both sides of the 4 GiB boundary, put then get through the real CLI with --verify sha256. Proves 64-bit
 * offsets end to end (a 32-bit wrap would land the high blocks at the start of the file).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  makeTempDir,
  removeDir,
  runCli,
  sha256File,
  startTestServer,
  urlOf,
  type SshServer,
} from './helpers';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const SIZE = 4 * GiB + MiB;
/** Enough room for the remote copy and the downloaded copy (neither stays sparse) plus slack. */
const NEEDED_BYTES = 2 * SIZE + GiB;

function skipReason(): string | false {
  if (process.env.SLUICE_LARGE !== '1') return 'set SLUICE_LARGE=1 (npm run test:large) to run the 4 GiB test';
  const st = fs.statfsSync(os.tmpdir());
  const free = st.bavail * st.bsize;
  if (free < NEEDED_BYTES)
    return `needs ${(NEEDED_BYTES / GiB).toFixed(1)} GiB free in the temp folder, has ${(free / GiB).toFixed(1)} GiB`;
  return false;
}

const skip = skipReason();
if (skip) console.log(`# large.test: skipped: ${skip}`);

let server: SshServer | undefined;
let work: string | undefined;

before(async () => {
  if (skip) return;
  server = await startTestServer();
  work = await makeTempDir('sluice-large-');
});

after(async () => {
  await server?.stop();
  if (work) await removeDir(work);
});

test(
  'sparse 4 GiB + 1 MiB file: put then get with --verify sha256, byte-identical, high blocks in place',
  { skip, timeout: 20 * 60_000 },
  async () => {
    const s = server!;
    const dir = work!;
    const knownHosts = path.join(dir, 'known_hosts');
    fs.writeFileSync(knownHosts, `${s.knownHostsLine()}\n`);

    // Sparse source: holes, plus random blocks at 0, straddling 4 GiB, past 4 GiB and at the very end.
    const src = path.join(dir, 'sparse.bin');
    fs.closeSync(fs.openSync(src, 'w'));
    fs.truncateSync(src, SIZE);
    const marks: Array<[number, Buffer]> = [
      [0, randomBytes(4096)],
      [4 * GiB - 1000, randomBytes(3000)],
      [4 * GiB + 123_457, randomBytes(65_536)],
      [SIZE - 4096, randomBytes(4096)],
    ];
    const fd = fs.openSync(src, 'r+');
    for (const [at, bytes] of marks) fs.writeSync(fd, bytes, 0, bytes.length, at);
    fs.closeSync(fd);
    assert.equal(fs.statSync(src).size, SIZE);
    const want = await sha256File(src);

    const remote = path.join(s.root, 'large.bin');
    const up = await runCli(['put', '--json', '--verify', 'sha256', ...baseFlags(s), src, urlOf(s, remote)], {
      knownHosts,
      timeoutMs: 10 * 60_000,
    });
    assert.equal(up.code, 0, describeRun(up));
    assert.equal(up.report?.bytes, SIZE);
    assert.match(up.report?.verify ?? '', /^sha256/);
    assert.equal(fs.statSync(remote).size, SIZE);

    const back = path.join(dir, 'back.bin');
    const down = await runCli(
      ['get', '--json', '--verify', 'sha256', '--connections', '2', ...baseFlags(s), urlOf(s, remote), back],
      { knownHosts, timeoutMs: 10 * 60_000 },
    );
    assert.equal(down.code, 0, describeRun(down));
    assert.equal(down.report?.bytes, SIZE);
    assert.match(down.report?.verify ?? '', /^sha256/);

    // Block checks first: they say where a wrap went wrong, which a hash mismatch cannot.
    for (const file of [remote, back]) {
      const h = fs.openSync(file, 'r');
      try {
        for (const [at, bytes] of marks) {
          const got = Buffer.alloc(bytes.length);
          fs.readSync(h, got, 0, got.length, at);
          assert.ok(got.equals(bytes), `${path.basename(file)}: block at offset ${at} differs`);
        }
      } finally {
        fs.closeSync(h);
      }
    }
    fs.rmSync(src);
    assert.equal(await sha256File(remote), want, 'remote copy differs');
    fs.rmSync(remote);
    assert.equal(await sha256File(back), want, 'downloaded copy differs');
  },
);
