/**
 * Attributes kept across a transfer (issue #14): the source's modification time by default, both ways, whole and
 * segmented, over OpenSSH and the ssh2-based server, on a server that answers out of order too; permissions with
 * `preservePermissions`; a server that refuses SETSTAT gets one warning per job and the files still commit.
 * SFTP v3 times are uint32 seconds (draft-ietf-secsh-filexfer-02 §5): targets are compared in whole seconds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent, TransferRequest } from './types';
import {
  makeTempDir,
  openTrusting,
  removeDir,
  sha256File,
  startScriptedServer,
  startSshd,
  tempFilesUnder,
  within,
  writeRandomFile,
  type SshServer,
} from '../test/helpers';
import { SETSTAT_REFUSAL, type SftpOverrides } from '../../../e2e/fixtures/ssh2SftpServer';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
/** 2020-05-07T22:01:28Z, and a year later; the sources get a sub-second part that SFTP v3 cannot carry. */
const MTIME_2020 = 1_588_888_888;
const MTIME_2021 = MTIME_2020 + 365 * 86_400;
/**
 * Empty, one byte, one SSH_FXP_WRITE (sent with the FSETSTAT's burst), exactly one request, several, and one cut into
 * segments.
 */
const SIZES = [0, 1, 100_000, 261_120, 600_000, 3 * MiB + 5];

let local: string;
before(async () => {
  local = await makeTempDir('sluice-attrs-');
});
after(async () => {
  if (local) await removeDir(local);
});

const seconds = (p: string): number => Math.floor(fs.statSync(p).mtimeMs / 1000);

/** Writes one file of each of SIZES into `dir`, dated `mtime` plus 0.75 s. @returns their names */
function writeDated(dir: string, mtime: number): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return SIZES.map((size, i) => {
    const p = path.join(dir, `f${i}.bin`);
    writeRandomFile(p, size);
    fs.utimesSync(p, mtime + 0.75, mtime + 0.75);
    return `f${i}.bin`;
  });
}

/** Runs one job on a fresh session (1 connection × 3 channels, 1 MiB segments); returns its report and events. */
async function transfer(server: SshServer, req: Omit<TransferRequest, 'id'>) {
  const events: EngineEvent[] = [];
  const s = await openTrusting(server, local, {
    connections: 1,
    channels: 3,
    segmentSize: MiB,
    onEvent: (e) => events.push(e),
  });
  try {
    const report = await within(
      'transfer',
      60_000,
      runTransfer(s, { id: 'j', ...req }, { onEvent: (e) => events.push(e) }),
    );
    const warnings = events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
    return { report, warnings };
  } finally {
    await s.close();
  }
}

/**
 * put -r of dated files, then get -r of the server's copies re-dated a year later: every target carries its source's
 * second.
 */
async function putAndGetKeepTimes(server: SshServer & { root: string }, name: string): Promise<void> {
  const src = path.join(local, `${name}-src`);
  const names = writeDated(src, MTIME_2020);
  const remote = path.join(server.root, name);
  const up = await transfer(server, { direction: 'put', sources: [src], dest: remote, recursive: true });
  assert.deepEqual(up.report.failed, []);
  assert.equal(up.report.files, SIZES.length);
  assert.equal(up.report.segmentedUploads, true, 'the largest file went up in segments');
  assert.deepEqual(up.warnings, []);
  for (const n of names) {
    assert.equal(await sha256File(path.join(remote, n)), await sha256File(path.join(src, n)), n);
    assert.equal(seconds(path.join(remote, n)), MTIME_2020, `uploaded ${n}: mtime`);
  }
  for (const n of names) fs.utimesSync(path.join(remote, n), MTIME_2021, MTIME_2021);
  const back = path.join(local, `${name}-back`);
  const down = await transfer(server, { direction: 'get', sources: [remote], dest: back, recursive: true });
  assert.deepEqual(down.report.failed, []);
  assert.deepEqual(down.warnings, []);
  for (const n of names) assert.equal(seconds(path.join(back, n)), MTIME_2021, `downloaded ${n}: mtime`);
  assert.deepEqual(tempFilesUnder(server.root), []);
  assert.deepEqual(tempFilesUnder(local), []);
}

describe('modification times are kept by default, both ways, whole and segmented', () => {
  test(
    "OpenSSH sshd (answers in order: the FSETSTAT rides in the upload's last burst)",
    { timeout: 120_000 },
    async () => {
      const server = await startSshd();
      try {
        await putAndGetKeepTimes(server, 'sshd');
      } finally {
        await server.stop();
      }
    },
  );

  test('the ssh2-based server', { timeout: 120_000 }, async () => {
    const server = await startScriptedServer();
    try {
      await putAndGetKeepTimes(server, 'ssh2');
    } finally {
      await server.stop();
    }
  });

  test(
    'a server that answers out of order: the FSETSTAT waits for the last WRITE (else the WRITE would date the file now)',
    { timeout: 120_000 },
    async () => {
      const server = await startScriptedServer({ overrides: { answerOutOfOrder: 15 } });
      try {
        await putAndGetKeepTimes(server, 'ooo');
      } finally {
        await server.stop();
      }
    },
  );
});

describe('options', () => {
  test('preserveTimes: false leaves targets dated by the transfer', { timeout: 60_000 }, async () => {
    const server = await startScriptedServer();
    try {
      const src = path.join(local, 'notimes-src');
      const names = writeDated(src, MTIME_2020);
      const remote = path.join(server.root, 'notimes');
      const up = await transfer(server, {
        direction: 'put',
        sources: [src],
        dest: remote,
        recursive: true,
        preserveTimes: false,
      });
      assert.deepEqual(up.report.failed, []);
      for (const n of names) assert.notEqual(seconds(path.join(remote, n)), MTIME_2020, n);
      const back = path.join(local, 'notimes-back');
      for (const n of names) fs.utimesSync(path.join(remote, n), MTIME_2020, MTIME_2020);
      const down = await transfer(server, {
        direction: 'get',
        sources: [remote],
        dest: back,
        recursive: true,
        preserveTimes: false,
      });
      assert.deepEqual(down.report.failed, []);
      for (const n of names) assert.notEqual(seconds(path.join(back, n)), MTIME_2020, n);
    } finally {
      await server.stop();
    }
  });

  test(
    'preservePermissions gives the exact bits both ways, whatever the umask; without it the umask applies (as before)',
    { timeout: 60_000 },
    async () => {
      const server = await startSshd();
      try {
        const src = path.join(local, 'perms.src');
        writeRandomFile(src, 10);
        fs.chmodSync(src, 0o777);
        const remote = path.join(server.root, 'perms.bin');
        const up = await transfer(server, {
          direction: 'put',
          sources: [src],
          dest: remote,
          recursive: false,
          preservePermissions: true,
        });
        assert.deepEqual(up.report.failed, []);
        assert.equal(fs.statSync(remote).mode & 0o7777, 0o777);
        assert.equal(seconds(remote), seconds(src), 'the time is kept as well');
        fs.chmodSync(remote, 0o707);
        for (const [keep, want] of [
          [true, 0o707],
          [false, 0o707 & ~process.umask()],
        ] as const) {
          const back = path.join(local, `perms-${keep}.back`);
          const down = await transfer(server, {
            direction: 'get',
            sources: [remote],
            dest: back,
            recursive: false,
            preservePermissions: keep,
          });
          assert.deepEqual(down.report.failed, []);
          assert.equal(fs.statSync(back).mode & 0o7777, want, `preservePermissions ${keep}`);
        }
      } finally {
        await server.stop();
      }
    },
  );
});

describe('a server that refuses SETSTAT: the files commit, and the job warns once', () => {
  for (const status of ['PERMISSION_DENIED', 'OP_UNSUPPORTED'] as Array<SftpOverrides['refuseSetstat']>) {
    test(`FSETSTAT answered SSH_FX_${status}`, { timeout: 60_000 }, async () => {
      const server = await startScriptedServer({ overrides: { refuseSetstat: status } });
      try {
        const src = path.join(local, `refused-${status}`);
        const names = writeDated(src, MTIME_2020);
        const remote = path.join(server.root, 'refused');
        const { report, warnings } = await transfer(server, {
          direction: 'put',
          sources: [src],
          dest: remote,
          recursive: true,
        });
        assert.deepEqual(report.failed, []);
        assert.equal(report.files, SIZES.length);
        for (const n of names)
          assert.equal(await sha256File(path.join(remote, n)), await sha256File(path.join(src, n)), n);
        assert.equal(warnings.length, 1, `one warning for the job: ${warnings.join(' | ')}`);
        const reason = status === 'PERMISSION_DENIED' ? 'permission denied' : 'operation not supported by the server';
        assert.match(
          warnings[0],
          new RegExp(
            `^modification times could not be kept \\(FSETSTAT ${remote}/f\\d\\.bin ` +
              `\\(temporary \\.f\\d\\.bin\\.sluice-[0-9a-f]{8}\\.part\\): ${reason} \\(SSH_FX_${status}, server: ${SETSTAT_REFUSAL}\\)\\)`,
          ),
        );
        assert.deepEqual(tempFilesUnder(server.root), []);
      } finally {
        await server.stop();
      }
    });
  }

  test('OpenSSH with fsetstat and setstat denied (internal-sftp -P)', { timeout: 60_000 }, async () => {
    const server = await startSshd({ extraConfig: ['Subsystem sftp internal-sftp -P fsetstat,setstat'] });
    try {
      const src = path.join(local, 'denied.src');
      writeRandomFile(src, 1000);
      const dst = path.join(server.root, 'denied.bin');
      const { report, warnings } = await transfer(server, {
        direction: 'put',
        sources: [src],
        dest: dst,
        recursive: false,
        preservePermissions: true,
      });
      assert.deepEqual(report.failed, []);
      assert.equal(await sha256File(dst), await sha256File(src));
      assert.equal(warnings.length, 1, warnings.join(' | '));
      assert.match(
        warnings[0],
        /^modification times and permissions could not be kept \(FSETSTAT .*denied\.bin \(temporary .*\): permission denied \(SSH_FX_PERMISSION_DENIED/,
      );
    } finally {
      await server.stop();
    }
  });
});
