import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommanderError, type Command } from 'commander';
import { parseRate } from './optionParsers';
import { buildProgram, packageVersion, transferRequest, type CliOptions } from './program';

/** The program with a recording runner and captured output. */
function harness(): {
  program: Command;
  runs: Array<{ direction: string; operands: string[]; opts: CliOptions }>;
  out: () => string;
} {
  const runs: Array<{ direction: string; operands: string[]; opts: CliOptions }> = [];
  let out = '';
  const program = buildProgram(async (direction, operands, opts) => {
    runs.push({ direction, operands, opts });
    return 0;
  });
  const capture = (c: Command): void => {
    c.configureOutput({
      writeOut: (s) => {
        out += s;
      },
      writeErr: (s) => {
        out += s;
      },
    });
    c.commands.forEach(capture);
  };
  capture(program);
  return { program, runs, out: () => out };
}

const repoVersion = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

test('--version prints the version from package.json and ends with exit code 0', async () => {
  assert.equal(packageVersion(), repoVersion);
  for (const flag of ['--version', '-V']) {
    const h = harness();
    await assert.rejects(
      h.program.parseAsync(['node', 'sluice', flag]),
      (e: unknown) => e instanceof CommanderError && e.exitCode === 0,
    );
    assert.equal(h.out(), `${repoVersion}\n`);
  }
});

test('-L / --dereference on put becomes followSymlinks: true; without it false', async () => {
  for (const [flag, want] of [
    ['-L', true],
    ['--dereference', true],
    [undefined, false],
  ] as const) {
    const h = harness();
    await h.program.parseAsync(['node', 'sluice', 'put', ...(flag ? [flag] : []), '-r', 'dir', 'sftp://h/x/']);
    const { direction, operands, opts } = h.runs[0];
    assert.equal(direction, 'put');
    const req = transferRequest('put', operands.slice(0, -1), '/x/', opts, 'id');
    assert.equal(req.followSymlinks, want, String(flag));
    assert.equal(req.recursive, true);
  }
});

test('times are kept unless --no-times; -p / --perms keep the permission bits too, both ways', async () => {
  const cases: Array<[string[], boolean | undefined, boolean | undefined]> = [
    [[], undefined, undefined],
    [['--no-times'], false, undefined],
    [['-p'], undefined, true],
    [['--perms', '--no-times'], false, true],
  ];
  for (const direction of ['get', 'put'] as const) {
    for (const [flags, times, perms] of cases) {
      const h = harness();
      await h.program.parseAsync(['node', 'sluice', direction, ...flags, 'a', 'b']);
      const req = transferRequest(direction, ['a'], 'b', h.runs[0].opts, 'id');
      assert.equal(req.preserveTimes, times, `${direction} ${flags.join(' ')}: preserveTimes`);
      assert.equal(req.preservePermissions, perms, `${direction} ${flags.join(' ')}: preservePermissions`);
    }
  }
});

test('-L is the same option both ways: followSymlinks for get as for put, false without it', async () => {
  for (const direction of ['get', 'put'] as const) {
    const h = harness();
    await h.program.parseAsync(['node', 'sluice', direction, '-L', 'sftp://h/x', 'sftp://h/y']);
    assert.equal(h.runs[0].opts.dereference, true, direction);
    const base = { clobber: true, verify: 'size' } as CliOptions;
    assert.equal(
      transferRequest(direction, ['/x'], '.', { ...base, dereference: true }).followSymlinks,
      true,
      direction,
    );
    assert.equal(transferRequest(direction, ['/x'], '.', base).followSymlinks, false, direction);
  }
});

test('put --help explains the verify levels, -L, the units and the signals', async () => {
  const h = harness();
  await assert.rejects(
    h.program.parseAsync(['node', 'sluice', 'put', '--help']),
    (e: unknown) => e instanceof CommanderError && e.exitCode === 0,
  );
  const help = h.out().replace(/\s+/g, ' ');
  assert.match(
    help,
    /sha256-remote \(the server hashed its own copy: sha256sum over exec, or the check-file-name extension\)/,
  );
  assert.match(
    help,
    /sha256-reread \(the file read back over SFTP and hashed here: a server whose read path corrupts data can fool it\)/,
  );
  assert.match(help, /-L, --dereference follow symlinks in the folder walk, like cp -L/);
  assert.match(
    help,
    /--no-times do not give targets their source's modification time \(kept by default, like scp -p and rsync -t;/,
  );
  assert.match(help, /-p, --perms give targets their source's permission bits exactly, like scp -p and rsync -p/);
  assert.match(
    help,
    /Units: sizes and rates are shown in binary units \(KiB, MiB, GiB; MiB\/s = 1048576 bytes per second\); typed as rsync reads them: 10M = 10MiB = 10 MiB, 10MB = 10,000,000 bytes\./,
  );
  assert.match(help, /143 terminated \(SIGTERM\), 129 hangup \(SIGHUP\)/);
});

test('--limit reads units as rsync (10M = 10 MiB/s, 10MB = 10,000,000 bytes/s), 0 for none; the help says so', async () => {
  assert.equal(parseRate('10M'), 10 * 1024 * 1024);
  assert.equal(parseRate('10MiB/s'), 10 * 1024 * 1024);
  assert.equal(parseRate('512K'), 512 * 1024);
  assert.equal(parseRate('1.5M'), 1.5 * 1024 * 1024);
  assert.equal(parseRate('1G/s'), 1024 ** 3);
  assert.equal(parseRate('2048'), 2048);
  assert.equal(parseRate('0'), 0);
  assert.equal(parseRate('10MB'), 10_000_000);
  assert.equal(parseRate('10MB/s'), 10_000_000);
  assert.equal(parseRate('10KiB'), 10 * 1024);
  for (const bad of ['fast', '-1M', '100', '10 MB per second', '', '10Mi', '0.4', '0.9', '0.5K'])
    assert.throws(() => parseRate(bad), bad);
  for (const direction of ['get', 'put']) {
    const h = harness();
    await h.program.parseAsync(['node', 'sluice', direction, '--limit', '10M', 'sftp://h/x', 'sftp://h/y']);
    assert.equal(h.runs[0].opts.limit, 10 * 1024 * 1024, direction);
  }
  const h = harness();
  await assert.rejects(
    h.program.parseAsync(['node', 'sluice', 'get', '--help']),
    (e: unknown) => e instanceof CommanderError && e.exitCode === 0,
  );
  assert.match(
    h.out().replace(/\s+/g, ' '),
    /--limit <rate> speed limit per second, read as rsync --bwlimit reads it: 10M or 10MiB = 10 MiB\/s \(1024-based, as curl --limit-rate 10M too\); 10MB = 10 MB\/s = 10,000,000 bytes\/s \(SI\)/,
  );
});

test("--retries counts tries in all (default 5, like rclone's --retries); 0 is accepted, negatives are not; the help says what is retried", async () => {
  for (const [args, want] of [
    [[], 5],
    [['--retries', '3'], 3],
    [['--retries', '0'], 0],
  ] as const) {
    const h = harness();
    await h.program.parseAsync(['node', 'sluice', 'put', ...args, 'a.bin', 'sftp://h/y']);
    assert.equal(h.runs[0].opts.retries, want, args.join(' '));
  }
  await assert.rejects(
    harness().program.parseAsync(['node', 'sluice', 'get', '--retries', '-1', 'sftp://h/x', 'y']),
    CommanderError,
  );
  const h = harness();
  await assert.rejects(
    h.program.parseAsync(['node', 'sluice', 'put', '--help']),
    (e: unknown) => e instanceof CommanderError && e.exitCode === 0,
  );
  assert.match(
    h.out().replace(/\s+/g, ' '),
    /--retries <n> tries in all, like rclone's --retries: .* 0 or 1: no retry\. Permanent failures .* are never retried \(default: 5\)/,
  );
});

test('--conflict names the rule; --no-clobber is skip; overwrite by default; both together or an unknown rule are refused', async () => {
  const cases: Array<[string[], string]> = [
    [[], 'overwrite'],
    [['--no-clobber'], 'skip'],
    [['--conflict', 'newer'], 'newer'],
    [['--conflict', 'size'], 'size'],
    [['--conflict', 'rename'], 'rename'],
    [['--conflict', 'append'], 'append'],
    [['--conflict', 'skip'], 'skip'],
    [['--conflict', 'overwrite'], 'overwrite'],
  ];
  for (const direction of ['get', 'put'] as const) {
    for (const [flags, want] of cases) {
      const h = harness();
      await h.program.parseAsync(['node', 'sluice', direction, ...flags, 'a', 'b']);
      assert.equal(
        transferRequest(direction, ['a'], 'b', h.runs[0].opts, 'id').conflict,
        want,
        `${direction} ${flags.join(' ')}`,
      );
    }
  }
  for (const bad of [
    ['--conflict', 'ask'],
    ['--conflict', 'newer', '--no-clobber'],
    ['--no-clobber', '--conflict', 'skip'],
  ]) {
    const h = harness();
    await assert.rejects(
      h.program.parseAsync(['node', 'sluice', 'put', ...bad, 'a', 'b']),
      (e: unknown) => e instanceof CommanderError && e.exitCode !== 0,
      bad.join(' '),
    );
    assert.equal(h.runs.length, 0);
  }
  const h = harness();
  await assert.rejects(
    h.program.parseAsync(['node', 'sluice', 'put', '--help']),
    (e: unknown) => e instanceof CommanderError && e.exitCode === 0,
  );
  const help = h.out().replace(/\s+/g, ' ');
  assert.match(help, /--conflict <rule> when a target exists: overwrite \(default, like cp and sftp\); skip; newer/);
  assert.match(help, /--no-clobber do not overwrite existing files \(skip them\): the same as --conflict skip/);
});
