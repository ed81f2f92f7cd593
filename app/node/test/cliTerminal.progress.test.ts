/**
 * The progress bar, Ctrl-C and the summaries as a person sees them (issue #23 items 6–9, 14, 15): the real CLI in a
 * pseudo-terminal at 80 columns against a private sshd, kept running by `--limit`; what is on the screen and where
 * the cursor ends. Every wait is for the screen, never a fixed time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  makeTempDir,
  removeDir,
  sshdWithKnownHosts,
  startSshd,
  startToxiproxy,
  toxiproxyAvailable,
  urlOf,
  writeRandomFile,
  type SshdServer,
} from './helpers';
import { startCliInTerminal, type ScreenState, type TerminalRun } from './terminal';

const MiB = 1024 * 1024;
/** Drawn bar cells: a line holding them is the progress bar. */
const BAR_CELLS = /[█░]/;

let server: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;
let cases = 0;

before(async () => {
  ({ server, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-term-progress-'));
});
after(async () => {
  await stop?.();
});

/** A fresh folder pair for one case: `remote` on the server, `dir` here (also the CLI's cwd and SLUICE_HOME). */
function freshCase(): { remote: string; dir: string } {
  const n = ++cases;
  const remote = path.join(server.root, `case${n}`);
  const dir = path.join(local, `case${n}`);
  fs.mkdirSync(remote, { recursive: true });
  fs.mkdirSync(dir, { recursive: true });
  return { remote, dir };
}

/** `sluice ARGS` in an 80-column terminal with the fixture's key, in `dir` (its own queue database). */
function term(dir: string, args: string[], cols = 80): TerminalRun {
  const [command, ...rest] = args;
  const flags = ['--batch', '--no-agent', '-i', server.clientKeyPath];
  const full = command === 'queue' ? args : [command, ...flags, ...rest];
  return startCliInTerminal(full, {
    knownHosts,
    cols,
    cwd: dir,
    env: { SLUICE_HOME: path.join(dir, 'home') },
    timeoutMs: 90_000,
  });
}

/** `queue add get …` in `dir`'s queue. */
function queueAdd(dir: string, args: string[]): TerminalRun {
  return startCliInTerminal(['queue', 'add', 'get', '--batch', '--no-agent', '-i', server.clientKeyPath, ...args], {
    knownHosts,
    cwd: dir,
    env: { SLUICE_HOME: path.join(dir, 'home') },
  });
}

/** The screen's text lines (trailing empty ones dropped). */
const linesOf = (s: ScreenState): string[] => (s.text === '' ? [] : s.text.split('\n'));

/** The cursor is at the start of an empty line below everything printed: the shell's prompt lands on a clean line. */
function assertCleanEnd(s: ScreenState): void {
  assert.deepEqual(s.cursor, { x: 0, y: linesOf(s).length }, `the cursor ends on the line after the output\n${s.text}`);
  assert.equal(s.lines[s.cursor.y] ?? '', '', 'that line is empty');
}

/** No line mixes a bar fragment with a message. */
function assertNoGarble(s: ScreenState): void {
  for (const l of linesOf(s)) {
    if (/sluice:|copied|FAILED/.test(l))
      assert.doesNotMatch(l, BAR_CELLS, `a message line holds bar cells:\n${s.text}`);
  }
}

/** The joined text of the lines after the bar (messages wrap at the terminal's width). */
const unwrapped = (s: ScreenState): string =>
  linesOf(s)
    .filter((l) => !BAR_CELLS.test(l))
    .join('');

describe('the progress bar in a terminal', () => {
  test('fits 80 columns with its rate and ETA, is drawn again at 60 columns on SIGWINCH; Ctrl-C leaves one true message and a clean line', async () => {
    const { remote, dir } = freshCase();
    writeRandomFile(path.join(remote, 'big.bin'), 40 * MiB);
    const run = term(dir, ['get', '--no-resume', '--limit', '4M', urlOf(server, `${remote}/big.bin`), 'big.bin']);
    const at80 = await run.waitForScreen(/[1-9]\d*% .*MiB\/s \| ETA \d+:\d\d/);
    const bar80 = at80.lines[at80.cursor.y];
    assert.ok(bar80.length <= 79, `the bar fits 80 columns: ${bar80.length}\n${bar80}`);
    assert.match(bar80, /^down \[[█░]+\] \d+% \| [\d.]+ [KM]iB\/40\.0 MiB \| [\d.]+ [KM]iB\/s \| ETA \d+:\d\d$/);
    run.resize(60, 24);
    const at60 = await run.waitForScreen(/^(?=[^\n]*ETA)[^\n]{1,59}$/m);
    assert.equal(linesOf(at60).length, 1, `one bar line, nothing left of the 80-column one\n${at60.text}`);
    assert.match(at60.lines[0], /\d+% \| .*\/s \| ETA/);
    run.write('\x03');
    const r = await run.result;
    assert.equal(r.code, 130, r.raw);
    const lines = linesOf(r);
    assert.match(lines[0], /^\[[█░]+\] \d+% \|/, `the bar stays as it was, stopped\n${r.text}`);
    assert.equal(
      lines.filter((l) => BAR_CELLS.test(l)).length,
      1,
      `one bar, never drawn again under the messages\n${r.text}`,
    );
    assertNoGarble(r);
    assert.equal(
      unwrapped(r),
      'sluice: interrupted: stopping the transfer (Ctrl-C again to quit at once)sluice: transfer interrupted (SIGINT)',
    );
    assertCleanEnd(r);
  });

  test('a resumed file: Ctrl-C says what is kept in one line; the next run says what it moved, its rate, and what was already there', async () => {
    const { remote, dir } = freshCase();
    writeRandomFile(path.join(remote, 'r.bin'), 24 * MiB);
    const args = [
      'get',
      '--segment-size',
      '1M',
      '--connections',
      '1',
      '--channels',
      '1',
      urlOf(server, `${remote}/r.bin`),
      'r.bin',
    ];
    const first = term(dir, ['get', '--limit', '2M', ...args.slice(1)]);
    await first.waitForScreen(/\b([4-9]\d)% /);
    first.write('\x03');
    const r1 = await first.result;
    assert.equal(r1.code, 130, r1.raw);
    assertNoGarble(r1);
    const said = unwrapped(r1);
    const kept =
      /sluice: transfer interrupted \(SIGINT\); ([\d.]+ MiB) kept: run the same command again to resume$/.exec(said);
    assert.ok(kept, `one last line says what is kept\n${r1.text}`);
    assert.doesNotMatch(said, /removing/);
    assertCleanEnd(r1);
    const r2 = await term(dir, args).result;
    assert.equal(r2.code, 0, r2.raw);
    const text = unwrapped(r2);
    assert.match(text, new RegExp(`^sluice: resuming: ${kept[1].replace('.', '\\.')} of 24\\.0 MiB already done`));
    const summary =
      /1 file copied, ([\d.]+) MiB in [\d.]+ s \([\d.]+ [KMG]iB\/s\), ([\d.]+) MiB already there, verified: size$/.exec(
        text,
      );
    assert.ok(summary, `the summary splits this run from what was there\n${r2.text}`);
    assert.equal(summary[2], kept[1].replace(/ MiB$/, ''), 'already there = what was kept');
    assert.ok(
      Math.abs(Number(summary[1]) + Number(summary[2]) - 24) < 0.2,
      `moved + already there = the file\n${r2.text}`,
    );
    assertCleanEnd(r2);
  });

  test('queue run: Ctrl-C leaves a clean line for the shell; the next run reports what it moved and what was already there', async () => {
    const { remote, dir } = freshCase();
    writeRandomFile(path.join(remote, 'q.bin'), 24 * MiB);
    const added = await queueAdd(dir, [
      '--segment-size',
      '1M',
      '--connections',
      '1',
      '--channels',
      '1',
      urlOf(server, `${remote}/q.bin`),
      'q.bin',
    ]).result;
    assert.equal(added.code, 0, added.raw);
    const run = term(dir, ['queue', 'run', '--limit', '2M']);
    await run.waitForScreen(/\b([4-9]\d)% /);
    run.write('\x03');
    const r1 = await run.result;
    assert.equal(r1.code, 130, r1.raw);
    assertNoGarble(r1);
    assert.equal(linesOf(r1).filter((l) => BAR_CELLS.test(l)).length, 1, r1.text);
    assertCleanEnd(r1);
    const r2 = await term(dir, ['queue', 'run']).result;
    assert.equal(r2.code, 0, r2.raw);
    assert.match(
      unwrapped(r2),
      /1 file copied, [\d.]+ MiB in [\d.]+ s \([\d.]+ [KMG]iB\/s\), [\d.]+ MiB already there, verified: size$/,
      r2.text,
    );
    assertCleanEnd(r2);
  });
});

describe('failures and skips in a terminal', () => {
  test('a local folder without -r: one line with the hint, before connecting', async () => {
    const { dir } = freshCase();
    fs.mkdirSync(path.join(dir, 'photos'));
    // Port 1: nothing listens there, so any attempt to connect would fail differently.
    const r = await term(dir, ['put', 'photos', 'sftp://nobody@127.0.0.1:1/in/']).result;
    assert.equal(r.code, 2, r.raw);
    assert.equal(r.text, 'sluice: photos is a folder (use -r)');
    assertCleanEnd(r);
  });

  test('a remote folder without -r: said once, with its hint; no empty bar, no repeated block or totals', async () => {
    const { remote, dir } = freshCase();
    fs.mkdirSync(path.join(remote, 'adir'));
    fs.writeFileSync(path.join(remote, 'adir', 'x'), 'x');
    const r = await term(dir, ['get', urlOf(server, `${remote}/adir`), 'out']).result;
    assert.equal(r.code, 2, r.raw);
    assert.equal(unwrapped(r), `sluice: FAILED ${remote}/adir → ${dir}/out: ${remote}/adir is a folder (use -r)`);
    assert.doesNotMatch(r.text, BAR_CELLS);
    assertCleanEnd(r);
  });

  test("queue run: a job's failed file is said once", async () => {
    const { remote, dir } = freshCase();
    const added = await queueAdd(dir, [urlOf(server, `${remote}/missing.bin`), 'missing.bin']).result;
    assert.equal(added.code, 0, added.raw);
    const r = await term(dir, ['queue', 'run']).result;
    assert.equal(r.code, 5, r.raw);
    const text = unwrapped(r);
    assert.equal(text.split('missing.bin: no such file').length - 1, 1, `said once\n${r.text}`);
    assert.doesNotMatch(text, /job [0-9a-f]{8} failed|1 FAILED/, r.text);
    assert.doesNotMatch(r.text, BAR_CELLS);
    assertCleanEnd(r);
  });

  test('--conflict skip says why it skipped, and no bar sits at 0 %', async () => {
    const { remote, dir } = freshCase();
    fs.writeFileSync(path.join(remote, 's.txt'), 'new');
    fs.writeFileSync(path.join(dir, 's.txt'), 'old');
    const r = await term(dir, ['get', '--conflict', 'skip', urlOf(server, `${remote}/s.txt`), 's.txt']).result;
    assert.equal(r.code, 0, r.raw);
    assert.doesNotMatch(r.text, /\b0%/);
    assert.match(r.text, /^no file copied, 1 skipped \(the target exists\)$/m);
    assert.equal(fs.readFileSync(path.join(dir, 's.txt'), 'utf8'), 'old');
    assertCleanEnd(r);
  });
});

describe('a resumed tree in a terminal', () => {
  test('files done earlier count as done: the bar reaches 100 %, the summary says "done earlier", not "skipped"', async () => {
    const { remote, dir } = freshCase();
    const tree = path.join(remote, 'tree');
    fs.mkdirSync(tree);
    for (let i = 0; i < 300; i++)
      fs.writeFileSync(path.join(tree, `f${String(i).padStart(3, '0')}.txt`), 'x'.repeat(2000));
    const args = ['-r', '--connections', '1', '--channels', '1', urlOf(server, tree), 'tree'];
    const first = term(dir, ['get', '--limit', '64K', ...args]);
    await first.waitForScreen(/\b([3-9]\d|1\d\d)\/300 files/);
    first.write('\x03');
    const r1 = await first.result;
    assert.equal(r1.code, 130, r1.raw);
    const r2 = await term(dir, ['get', '--limit', '256K', ...args]).result;
    assert.equal(r2.code, 0, r2.raw);
    const text = unwrapped(r2);
    assert.match(
      text,
      /^sluice: resuming: [\d.]+ [KM]iB (of [\d.]+ [KM]iB already done|done earlier; checking for the rest)/,
      r2.text,
    );
    assert.doesNotMatch(text, /resuming: ([\d.]+ [KM]iB) of \1 /, 'never "X of X already done" (sounds finished)');
    const bars = linesOf(r2).filter((l) => BAR_CELLS.test(l));
    assert.match(bars.at(-1) ?? '', /100% \| .*300\/300 files/, r2.text);
    const summary = /^(\d+) files copied, .* already there \((\d+) files done earlier\), verified: size$/.exec(
      text.replace(/^.*?(?=\d+ files copied)/, ''),
    );
    assert.ok(summary, r2.text);
    assert.equal(Number(summary[1]) + Number(summary[2]), 300, r2.text);
    assert.doesNotMatch(text, /skipped/);
    assertCleanEnd(r2);
  });
});

describe('-v under a speed limit', () => {
  test('"limited by: your speed limit" when --limit holds the rate', async () => {
    const { remote, dir } = freshCase();
    writeRandomFile(path.join(remote, 'slow.bin'), 24 * MiB);
    const run = term(dir, [
      'get',
      '-v',
      '--no-resume',
      '--limit',
      '2M',
      urlOf(server, `${remote}/slow.bin`),
      'slow.bin',
    ]);
    const s = await run.waitForScreen(/limited by: your speed limit/);
    assert.match(unwrapped(s), /sluice: limited by: your speed limit \([\d.]+ MiB\/s of a 2\.0 MiB\/s limit\)/, s.text);
    run.write('\x03');
    const r = await run.result;
    assert.equal(r.code, 130, r.raw);
    assertNoGarble(r);
    assertCleanEnd(r);
  });
});

const noToxiproxy = toxiproxyAvailable() ? false : 'toxiproxy-server not installed (/usr/local/bin/toxiproxy-server)';
if (noToxiproxy) process.stdout.write(`# --verify sha256 phase skipped: ${noToxiproxy}\n`);

describe('--verify sha256 in a terminal', { skip: noToxiproxy }, () => {
  test('a verifying phase with its own progress, and why the level reached is sha256-reread in one line', async () => {
    // The server runs every exec as internal-sftp (no sha256sum) and OpenSSH has no check-file-name: the file is read
    // back over SFTP, through a capped link, so the phase lasts about as long as the download.
    const sshd = await startSshd({ extraConfig: ['ForceCommand internal-sftp'] });
    const toxi = await startToxiproxy();
    const dir = await makeTempDir('sluice-term-verify-');
    try {
      const { port } = await toxi.createProxy('capped', sshd.port);
      await toxi.addToxic('capped', { type: 'bandwidth', stream: 'downstream', attributes: { rate: 16_000 } });
      const hosts = path.join(dir, 'known_hosts');
      fs.writeFileSync(hosts, `${sshd.knownHostsLine(port)}\n`);
      writeRandomFile(path.join(sshd.root, 'v.bin'), 32 * MiB);
      const run = startCliInTerminal(
        [
          'get',
          '--batch',
          '--no-agent',
          '-i',
          sshd.clientKeyPath,
          '--verify',
          'sha256',
          urlOf({ ...sshd, port }, `${sshd.root}/v.bin`),
          'v.bin',
        ],
        { knownHosts: hosts, cwd: dir, env: { SLUICE_HOME: path.join(dir, 'home') } },
      );
      // The file read back moves through the cap: its hashing shows a percentage on the way, not 100 % at 0 B/s.
      const during = await run.waitForScreen(
        /^verify \[[█░]+\] [1-9]\d?% \| [\d.]+ [KM]iB\/32\.0 MiB \| [\d.]+ [KM]iB\/s/m,
      );
      assert.ok(during.lines[during.cursor.y].length <= 79, during.text);
      const r = await run.result;
      assert.equal(r.code, 0, r.raw);
      const text = unwrapped(r);
      assert.match(
        text,
        /sluice: verified sha256-reread, not sha256-remote: the server did not hash the files itself \(it offers no check-file-name extension and sha256sum over exec was refused or gave no hash\), so they were read back over SFTP1 file copied/,
      );
      assert.match(text, /1 file copied, 32\.0 MiB in [\d.]+ s \([\d.]+ MiB\/s\), verified: sha256-reread$/);
      assertNoGarble(r);
      assertCleanEnd(r);
    } finally {
      await toxi.stop();
      await sshd.stop();
      await removeDir(dir);
    }
  });
});
