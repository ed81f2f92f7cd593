/**
 * Hostile and unlucky servers through the real CLI against a private OpenSSH sshd (issue 24): symlinks whose STAT
 * fails with something other than NO_SUCH_FILE must fail only that entry of a `get -r`, every other file arriving
 * and every missing one named; a server's identification line, names and messages reach the terminal escaped (ESC,
 * C1 and the bidi controls U+202A–U+202E, U+2066–U+2069 as \\xNN / \\uNNNN).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  fakeFileEntry,
  openTrusting,
  runCli,
  startCli,
  startScriptedServer,
  startSshd,
  treeOf,
  trustedServerHooks,
  urlOf,
  waitUntil,
  withTrustedServer,
  writeRandomFile,
  type SshdServer,
} from './helpers';

/** What must never reach a terminal raw: C0 (ESC, BEL), DEL, C1 (CSI) and the bidi controls. */
// eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let sshd: SshdServer;
let work: string;
let knownHosts: string;

trustedServerHooks(
  () => startSshd(),
  'sluice-hostile-',
  (t) => {
    ({ server: sshd, dir: work, knownHosts } = t);
  },
);

describe('bad symlinks in a recursive download (OpenSSH)', () => {
  test('links whose STAT fails (BAD_MESSAGE) or loops fail alone; the rest arrives, each named', async () => {
    const src = path.join(sshd.root, 'badlinks');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    writeRandomFile(path.join(src, 'good1.txt'), 1000);
    writeRandomFile(path.join(src, 'sub', 'good3.txt'), 3000);
    writeRandomFile(path.join(src, 'sub', 'good4.txt'), 0);
    fs.symlinkSync('loop', path.join(src, 'loop'));
    fs.symlinkSync('x'.repeat(300), path.join(src, 'long'));
    fs.symlinkSync('subloop', path.join(src, 'sub', 'subloop'));
    fs.symlinkSync(`${'y'.repeat(300)}/z`, path.join(src, 'sub', 'sublong'));
    // OpenSSH answers STAT of the over-long ones with BAD_MESSAGE (ENAMETOOLONG): failed, each named. The loops get
    // FAILURE or NO_SUCH_FILE depending on the version: failed or skipped, each named either way.
    const missing = [path.join(src, 'long'), path.join(src, 'sub', 'sublong')];
    const loops = [path.join(src, 'loop'), path.join(src, 'sub', 'subloop')];

    const dest = path.join(work, 'out-json');
    const r = await runCli(['get', '-r', '--json', ...baseFlags(sshd), urlOf(sshd, src), dest], { knownHosts });
    assert.equal(r.code, 1, describeRun(r));
    assert.deepEqual(
      (await treeOf(dest)).map((e) => e.rel),
      ['good1.txt', 'sub', 'sub/good3.txt', 'sub/good4.txt'],
    );
    assert.equal(r.report?.files, 3, describeRun(r));
    const failed = r.report?.failed ?? [];
    const loopsFailed = failed.filter((f) => loops.includes(f.path));
    assert.deepEqual(
      failed
        .map((f) => f.path)
        .filter((p) => !loops.includes(p))
        .sort(),
      missing,
      describeRun(r),
    );
    assert.equal(loopsFailed.length + (r.report?.skipped ?? 0), loops.length, describeRun(r));
    for (const f of failed) assert.match(f.message, /^cannot follow the symlink: .*SSH_FX_/, JSON.stringify(f));

    const plain = await runCli(['get', '-r', ...baseFlags(sshd), urlOf(sshd, src), path.join(work, 'out-plain')], {
      knownHosts,
    });
    assert.equal(plain.code, 1, describeRun(plain));
    assert.match(plain.stderr, new RegExp(`\\b${failed.length} FAILED\\b`), plain.stderr);
    for (const m of [...missing, ...loops]) assert.ok(plain.stderr.includes(m), `${m} is not named\n${plain.stderr}`);
    assert.ok(fs.existsSync(path.join(work, 'out-plain', 'sub', 'good3.txt')), plain.stderr);
  });
});

describe('terminal escape injection (scripted server)', () => {
  test('-v: the identification line, names and skip reasons are escaped on stderr, bidi controls included', async () => {
    await withTrustedServer(
      () => startScriptedServer({ ident: 'Evil_1.0 \u001b]0;pwned\u0007\u001b[2J' }),
      'sluice-escape-',
      async (t) => {
        const src = path.join(t.server.root, 'src');
        fs.mkdirSync(src);
        const spoof = 'report\u202Efdp.exe';
        writeRandomFile(path.join(src, spoof), 100);
        fs.symlinkSync('missing', path.join(src, 'dang\u2066ling\u2069'));
        const dest = path.join(t.dir, 'out');
        const r = await runCli(['get', '-r', '-v', ...baseFlags(t.server), urlOf(t.server, src), dest], {
          knownHosts: t.knownHosts,
        });
        assert.equal(r.code, 0, describeRun(r));
        assert.ok(fs.existsSync(path.join(dest, spoof)), 'the file itself keeps its name');
        const bad = RAW_CONTROL.exec(r.stderr);
        assert.equal(
          bad,
          null,
          `raw U+${bad?.[0].codePointAt(0)?.toString(16)} on stderr:\n${JSON.stringify(r.stderr)}`,
        );
        assert.ok(r.stderr.includes('server SSH-2.0-Evil_1.0 \\x1b]0;pwned\\x07\\x1b[2J'), r.stderr);
        assert.ok(r.stderr.includes('report\\u202efdp.exe'), r.stderr);
        assert.ok(r.stderr.includes('dang\\u2066ling\\u2069'), r.stderr);
      },
    );
  });
});

describe('concurrency and size options are bounded (real CLI)', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--connections', '100000'], /--connections <n>.*'100000' is invalid\. must be a whole number from 1 to 16/],
    [['--connections', '17'], /must be a whole number from 1 to 16/],
    [['--channels', '1000'], /--channels <n>.*must be a whole number from 1 to 16/],
    [['--requests', '100000'], /--requests <n>.*must be a whole number from 1 to 1024/],
    [['--window', '1'], /--window <size>.*must be from 2M to 256M/],
    [['--window', '1G'], /--window <size>.*must be from 2M to 256M/],
    [['--segment-size', '2000G'], /--segment-size <size>.*must be from 64K to 1024G/],
    [['--limit', '0.4'], /--limit <rate>.*must be 0 \(no limit\) or at least 1K/],
  ];
  for (const [flags, expected] of cases) {
    test(`get ${flags.join(' ')}: a usage error naming the range, before connecting`, async () => {
      const dest = path.join(work, 'never');
      const r = await runCli(['get', ...flags, ...baseFlags(sshd), urlOf(sshd, path.join(sshd.root, 'x')), dest], {
        knownHosts,
      });
      assert.equal(r.code, 2, describeRun(r));
      assert.match(r.stderr, expected, describeRun(r));
      assert.equal(fs.existsSync(dest), false);
    });
  }
  test('the largest values are accepted: 16 connections × 16 channels copy a file', async () => {
    const src = path.join(sshd.root, 'bounded.bin');
    writeRandomFile(src, 100_000);
    const dest = path.join(work, 'bounded.bin');
    const r = await runCli(
      [
        'get',
        '--connections',
        '16',
        '--channels',
        '16',
        '--requests',
        '1024',
        '--window',
        '256M',
        '--segment-size',
        '1024G',
        ...baseFlags(sshd),
        urlOf(sshd, src),
        dest,
      ],
      { knownHosts },
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.statSync(dest).size, 100_000);
  });
});

describe('get -r: loops and depth', () => {
  test('a server folder that lists itself is copied once and the loop is named (REALPATH), exit 1', async () => {
    await withTrustedServer(
      () => startScriptedServer(),
      'sluice-loop-',
      async (t) => {
        const src = path.join(t.server.root, 'loop');
        fs.mkdirSync(src);
        writeRandomFile(path.join(src, 'f.txt'), 500);
        fs.symlinkSync('.', path.join(src, 'again'));
        const again = { filename: 'again', attrs: { mode: 0o040755, size: 4096, mtime: 1_700_000_000 } };
        t.server.overrides.readdir = (p) =>
          p === src || p.startsWith(`${src}/`) ? [fakeFileEntry('f.txt', 500), again] : undefined;
        const dest = path.join(t.dir, 'out');
        const r = await runCli(['get', '-r', '--json', ...baseFlags(t.server), urlOf(t.server, src), dest], {
          knownHosts: t.knownHosts,
          timeoutMs: 60_000,
        });
        assert.equal(r.code, 1, describeRun(r));
        assert.deepEqual(
          (await treeOf(dest)).map((e) => e.rel),
          ['f.txt'],
        );
        const failed = r.report?.failed ?? [];
        assert.deepEqual(
          failed.map((f) => f.path),
          [path.join(src, 'again')],
          describeRun(r),
        );
        assert.match(
          failed[0].message,
          /folder not copied, it is .*loop again \(the server lists a folder inside itself: a loop\)/,
        );
      },
    );
  });

  test('--max-depth 2 walks two levels below the source and names the folder it stops at; default 64', async () => {
    const src = path.join(sshd.root, 'deep');
    let dir = src;
    for (let level = 0; level <= 66; level++) {
      fs.mkdirSync(dir, { recursive: true });
      writeRandomFile(path.join(dir, `f${level}.txt`), 10);
      dir = path.join(dir, 'd');
    }
    const levelDir = (n: number): string => path.join(src, ...Array<string>(n).fill('d'));
    const shallow = path.join(work, 'shallow');
    const r = await runCli(['get', '-r', '--json', '--max-depth', '2', ...baseFlags(sshd), urlOf(sshd, src), shallow], {
      knownHosts,
    });
    assert.equal(r.code, 1, describeRun(r));
    assert.deepEqual(
      (await treeOf(shallow)).filter((e) => e.type === 'file').map((e) => e.rel),
      ['d/d/f2.txt', 'd/f1.txt', 'f0.txt'],
    );
    assert.deepEqual(
      (r.report?.failed ?? []).map((f) => f.path),
      [levelDir(3)],
      describeRun(r),
    );
    assert.match(r.report?.failed[0].message ?? '', /nested deeper than 2 levels below the source \(--max-depth\)/);

    const full = path.join(work, 'full');
    const d = await runCli(['get', '-r', '--json', ...baseFlags(sshd), urlOf(sshd, src), full], {
      knownHosts,
      timeoutMs: 60_000,
    });
    assert.equal(d.code, 1, describeRun(d));
    assert.equal(d.report?.files, 65, describeRun(d));
    assert.deepEqual(
      (d.report?.failed ?? []).map((f) => f.path),
      [levelDir(65)],
      describeRun(d),
    );
  });
});

describe('listings are bounded and give way to a signal (scripted server)', () => {
  test('a folder answering names forever stops at the per-folder limit, stated in the error (list and listEach)', async () => {
    // In-process: a get -r hands each name to the transfer as it arrives (here, a million OPENs of names that do not
    // exist), so the bound of the listing itself is checked on the session, whole and streamed.
    await withTrustedServer(
      () => startScriptedServer({ overrides: { endlessReaddir: 'names' } }),
      'sluice-endless-',
      async (t) => {
        const src = path.join(t.server.root, 'endless');
        fs.mkdirSync(src);
        const pool = await openTrusting(t.server, t.dir, { connections: 1, channels: 1 });
        try {
          const limit = /READDIR .*endless: the folder lists more than 1,000,000 names, the limit of one listing/;
          await assert.rejects(pool.list(src), limit);
          assert.ok(
            (t.server.stats.endlessAnswers ?? 0) <= 1_002,
            `read on after the limit: ${t.server.stats.endlessAnswers} answers`,
          );
          let names = 0;
          await assert.rejects(
            pool.listEach(src, (batch) => {
              names += batch.length;
            }),
            limit,
          );
          assert.equal(names, 1_000_000, 'every name up to the limit handed over, none after');
          assert.ok(
            (t.server.stats.endlessAnswers ?? 0) <= 2_004,
            `read on after the limit: ${t.server.stats.endlessAnswers} answers`,
          );
        } finally {
          await pool.close();
        }
      },
    );
  });

  test('a folder answering empty NAME replies forever is given up, exit 1', async () => {
    await withTrustedServer(
      () => startScriptedServer({ overrides: { endlessReaddir: 'empty' } }),
      'sluice-empty-',
      async (t) => {
        const src = path.join(t.server.root, 'empty');
        fs.mkdirSync(src);
        const r = await runCli(['get', '-r', ...baseFlags(t.server), urlOf(t.server, src), path.join(t.dir, 'out')], {
          knownHosts: t.knownHosts,
          timeoutMs: 60_000,
        });
        assert.equal(r.code, 1, describeRun(r));
        assert.match(
          r.stderr,
          /READDIR .*empty: the server answered 100 times in a row with no names and never ended the folder/,
          describeRun(r),
        );
      },
    );
  });

  test('a READDIR never answered: the SFTP reply watchdog ends the job (CONNECTION_STALLED), exit 1', async () => {
    await withTrustedServer(
      () => startScriptedServer({ overrides: { unansweredReaddir: true } }),
      'sluice-noanswer-',
      async (t) => {
        const src = path.join(t.server.root, 'silent');
        fs.mkdirSync(src);
        const r = await runCli(
          [
            'get',
            '-r',
            '--retries',
            '1',
            '--keepalive',
            '500',
            '--keepalive-count',
            '2',
            ...baseFlags(t.server),
            urlOf(t.server, src),
            path.join(t.dir, 'out'),
          ],
          { knownHosts: t.knownHosts, timeoutMs: 30_000 },
        );
        assert.equal(r.code, 1, describeRun(r));
        assert.match(r.stderr, /stopped answering: no reply for 1 s/, describeRun(r));
      },
    );
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal} during a listing that never ends: the CLI exits at once`, async () => {
      await withTrustedServer(
        () => startScriptedServer({ overrides: { endlessReaddir: 'names' } }),
        'sluice-listsig-',
        async (t) => {
          const src = path.join(t.server.root, 'endless');
          fs.mkdirSync(src);
          const run = startCli(
            ['get', '-r', '--json', ...baseFlags(t.server), urlOf(t.server, src), path.join(t.dir, 'out')],
            { knownHosts: t.knownHosts, timeoutMs: 60_000 },
          );
          await waitUntil('the listing under way', () => (t.server.stats.endlessAnswers ?? 0) >= 20, 30_000);
          const sent = Date.now();
          run.child.kill(signal);
          const r = await run.result;
          const waited = Date.now() - sent;
          assert.equal(r.code, signal === 'SIGINT' ? 130 : 143, describeRun(r));
          assert.ok(waited < 5_000, `exited ${waited} ms after ${signal}`);
        },
      );
    });
  }
});
