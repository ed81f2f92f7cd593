/**
 * Servers that behave differently from OpenSSH, scripted on ssh2's Server: one that processes requests
 * concurrently (draft-ietf-secsh-filexfer-02 §6: a WRITE answered after the FSTAT and CLOSE sent behind it), one
 * whose reads are corrupt, one that offers check-file-name, one that refuses exec, and one whose segment writes
 * fail after the probe passed (the upload falls back to one handle).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'ssh2';
import type { EngineEvent, TransferRequest } from './types';
import {
  makeTempDir,
  removeDir,
  sha256File,
  startScriptedServer,
  startSsh2SftpServer,
  tempFilesUnder,
  waitUntil,
  within,
  writeRandomFile,
  learnedOf,
  openTrusting,
  type ScriptedServer,
} from '../test/helpers';
import { DEFAULT_EXTENSIONS } from '../../../e2e/fixtures/ssh2SftpServer';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
let local: string;

before(async () => {
  local = await makeTempDir('sluice-behaviour-');
});
after(async () => {
  if (local) await removeDir(local);
});

type FileEvent = Extract<EngineEvent, { type: 'file' }>;

async function transfer(
  server: ScriptedServer,
  req: Omit<TransferRequest, 'id' | 'recursive'> & { recursive?: boolean },
  opts: { channels?: number; connections?: number; segmentSize?: number } = {},
) {
  const events: EngineEvent[] = [];
  const s = await openTrusting(server, local, {
    connections: opts.connections ?? 1,
    channels: opts.channels ?? 2,
    segmentSize: opts.segmentSize,
    onEvent: (e) => events.push(e),
  });
  try {
    const report = await within(
      'transfer',
      60_000,
      runTransfer(s, { id: 'j', recursive: false, ...req }, { onEvent: (e) => events.push(e), server: learnedOf(s) }),
    );
    return { report, events, files: events.filter((e): e is FileEvent => e.type === 'file'), session: s };
  } finally {
    await s.close();
  }
}

describe('a server that answers requests out of order', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer({ overrides: { answerOutOfOrder: 15 } });
  });
  after(async () => {
    await server?.stop();
  });

  test(
    'small files up and back arrive whole (the WRITE is answered before the FSTAT and CLOSE are sent)',
    { timeout: 90_000 },
    async () => {
      const src = path.join(local, 'small');
      fs.mkdirSync(src);
      const sizes = [0, 1, 1000, 4096, 70_000, 261_120, 261_121, 600_000];
      for (let i = 0; i < 40; i++) writeRandomFile(path.join(src, `f${i}.bin`), sizes[i % sizes.length]);
      const dest = path.join(server.root, 'up');
      const up = await transfer(server, { direction: 'put', sources: [src], dest, recursive: true });
      assert.deepEqual(up.report.failed, []);
      assert.equal(up.report.files, 40);
      const back = path.join(local, 'back');
      const down = await transfer(server, { direction: 'get', sources: [dest], dest: back, recursive: true });
      assert.deepEqual(down.report.failed, []);
      for (let i = 0; i < 40; i++) {
        assert.equal(
          await sha256File(path.join(back, `f${i}.bin`)),
          await sha256File(path.join(src, `f${i}.bin`)),
          `f${i}.bin`,
        );
      }
      assert.deepEqual(tempFilesUnder(server.root), []);
    },
  );

  test(
    'a segmented upload commits the whole file (fsync and FSTAT wait for every WRITE)',
    { timeout: 90_000 },
    async () => {
      const src = path.join(local, 'seg.src');
      writeRandomFile(src, 5 * MiB + 17);
      const dst = path.join(server.root, 'seg.bin');
      const { report } = await transfer(
        server,
        { direction: 'put', sources: [src], dest: dst, verify: 'sha256' },
        { channels: 3, segmentSize: MiB },
      );
      assert.deepEqual(report.failed, []);
      assert.equal(report.segmentedUploads, true, 'the probe waits for its writes before reading back');
      assert.equal(await sha256File(dst), await sha256File(src));
    },
  );
});

describe('verification tells the truth', () => {
  test(
    'a server whose reads are corrupt: a get is caught by the server-side hash and not committed',
    { timeout: 60_000 },
    async () => {
      const server = await startScriptedServer({ overrides: { corruptReads: true } });
      try {
        const remote = path.join(server.root, 'c.bin');
        writeRandomFile(remote, 300_000);
        const dst = path.join(local, 'c.bin');
        const { report, files } = await transfer(server, {
          direction: 'get',
          sources: [remote],
          dest: dst,
          verify: 'sha256',
        });
        assert.equal(report.failed.length, 1);
        assert.equal(report.failed[0].code, 'VERIFY_FAILED');
        assert.match(report.failed[0].message, /hashed by the server \(exec\)/);
        assert.equal(report.verify, undefined, 'no level is claimed when no file was committed');
        assert.equal(files[0].verify, undefined);
        assert.equal(fs.existsSync(dst), false, 'nothing under the final name');
      } finally {
        await server.stop();
      }
    },
  );

  test(
    'without exec a re-read cannot see the corruption, and the report says re-read, not remote',
    { timeout: 60_000 },
    async () => {
      const server = await startScriptedServer({ overrides: { corruptReads: true } });
      try {
        const remote = path.join(server.root, 'r.bin');
        writeRandomFile(remote, 100_000);
        const { report, files } = await transfer(server, {
          direction: 'get',
          sources: [remote],
          dest: path.join(local, 'r.bin'),
          verify: 'sha256',
          allowExec: false,
        });
        assert.equal(report.verify, 'sha256-reread');
        assert.deepEqual(
          files.map((f) => f.verify),
          ['sha256-reread'],
        );
      } finally {
        await server.stop();
      }
    },
  );

  test(
    'check-file-name is used where offered: the server hashes its own copy (sha256-remote without exec)',
    { timeout: 60_000 },
    async () => {
      const server = await startSsh2SftpServer({
        allowExec: false,
        extensions: { ...DEFAULT_EXTENSIONS, 'check-file': '1' },
        overrides: {},
      });
      try {
        const src = path.join(local, 'cf.src');
        writeRandomFile(src, 2 * MiB + 5);
        const { report, files } = await transfer(server as ScriptedServer, {
          direction: 'put',
          sources: [src],
          dest: path.join(server.root, 'cf.bin'),
          verify: 'sha256',
        });
        assert.deepEqual(report.failed, []);
        assert.equal(report.verify, 'sha256-remote');
        assert.deepEqual(
          files.map((f) => f.verify),
          ['sha256-remote'],
        );
      } finally {
        await server.stop();
      }
    },
  );

  test('a refused exec is tried once per connection and its channel is closed', { timeout: 60_000 }, async () => {
    const server = await startSsh2SftpServer({ allowExec: false, overrides: {} });
    try {
      const src = path.join(local, 'many');
      fs.mkdirSync(src, { recursive: true });
      for (let i = 0; i < 12; i++) writeRandomFile(path.join(src, `m${i}`), 1000 + i);
      const { report, events } = await transfer(
        server as ScriptedServer,
        { direction: 'put', sources: [src], dest: path.join(server.root, 'many'), recursive: true, verify: 'sha256' },
        { channels: 1 },
      );
      assert.deepEqual(report.failed, []);
      assert.equal(report.verify, 'sha256-reread');
      assert.equal(events.filter((e) => e.type === 'connection' && e.state === 'down').length, 0);
      // The patched ssh2 closes a refused exec's session channel (else a server's session limit runs out).
      const client = new Client();
      await new Promise<void>((resolve, reject) => {
        client
          .once('ready', resolve)
          .once('error', reject)
          .connect({
            host: server.host,
            port: server.port,
            username: server.user,
            privateKey: fs.readFileSync(server.clientKeyPath),
          });
      });
      try {
        const before = server.stats.openSessions;
        const refused = await new Promise<Error | undefined>((resolve) => client.exec('true', (e) => resolve(e)));
        assert.ok(refused, 'the exec was refused');
        await waitUntil(
          'the server to see the refused channel closed',
          () => server.stats.openSessions === before,
          5_000,
        );
      } finally {
        client.end();
      }
    } finally {
      await server.stop();
    }
  });
});

describe('a segmented upload the server refuses after the probe passed', () => {
  test('falls back to one handle in order, once, and remembers it for the session', { timeout: 90_000 }, async () => {
    const server = await startScriptedServer({ overrides: {} });
    const events: EngineEvent[] = [];
    const s = await openTrusting(server, local, {
      connections: 1,
      channels: 3,
      segmentSize: MiB,
      onEvent: (e) => events.push(e),
    });
    try {
      const src = path.join(local, 'fb.src');
      writeRandomFile(src, 4 * MiB + 3);
      const first = await within(
        'first put',
        30_000,
        runTransfer(
          s,
          { id: 'a', direction: 'put', sources: [src], dest: path.join(server.root, 'a.bin'), recursive: false },
          { onEvent: (e) => events.push(e), server: learnedOf(s) },
        ),
      );
      assert.equal(first.segmentedUploads, true);
      server.overrides.rejectOutOfOrderWrites = true;
      const second = await within(
        'second put',
        30_000,
        runTransfer(
          s,
          { id: 'b', direction: 'put', sources: [src], dest: path.join(server.root, 'b.bin'), recursive: false },
          { onEvent: (e) => events.push(e), server: learnedOf(s) },
        ),
      );
      assert.deepEqual(second.failed, []);
      assert.equal(second.segmentedUploads, false, 'later uploads use one handle');
      assert.equal(await sha256File(path.join(server.root, 'b.bin')), await sha256File(src));
      const warnings = events.filter((e) => e.type === 'log' && /segmented upload of .*b\.bin failed/.test(e.message));
      assert.equal(warnings.length, 1, 'one fallback, said once');
      assert.match(
        (warnings[0] as { message: string }).message,
        /WRITE .*b\.bin \(temporary \.b\.bin\.sluice-[0-9a-f]{8}\.part\) at offset \d+/,
      );
      assert.deepEqual(tempFilesUnder(server.root), []);
    } finally {
      await s.close();
      await server.stop();
    }
  });
});

describe('failure messages', () => {
  test(
    "a put into a folder that does not exist names that folder, the request and the server's status, not only our temporary name",
    { timeout: 30_000 },
    async () => {
      const server = await startScriptedServer();
      try {
        const src = path.join(local, 'nofolder.txt');
        fs.writeFileSync(src, 'x');
        const missing = path.join(server.root, 'no', 'such');
        const { report } = await transfer(server, {
          direction: 'put',
          sources: [src],
          dest: path.join(missing, 'f.txt'),
        });
        assert.equal(report.failed.length, 1);
        const { code, message } = report.failed[0];
        assert.equal(code, 'NO_SUCH_FILE');
        assert.ok(
          message.startsWith(
            `folder ${missing} does not exist on the server (OPEN (create) ${missing}/f.txt (temporary .f.txt.sluice-`,
          ),
          message,
        );
        assert.match(message, /SSH_FX_NO_SUCH_FILE/);
      } finally {
        await server.stop();
      }
    },
  );
});

describe('a server slow to answer existence checks', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer({ overrides: { delayStats: 40 } });
  });
  after(async () => {
    await server?.stop();
  });

  test(
    "--no-clobber into one folder: the targets' STATs are pipelined, existing files kept and skipped",
    { timeout: 90_000 },
    async () => {
      const src = path.join(local, 'flat');
      fs.mkdirSync(src);
      const dest = path.join(server.root, 'flat');
      fs.mkdirSync(dest);
      for (let i = 0; i < 40; i++) {
        writeRandomFile(path.join(src, `f${i}.bin`), 1000 + i);
        if (i % 2) fs.writeFileSync(path.join(dest, `f${i}.bin`), 'kept');
      }
      server.stats.maxStatsInFlight = 0;
      const { report, files } = await transfer(server, {
        direction: 'put',
        sources: [src],
        dest: server.root,
        recursive: true,
        conflict: 'skip',
      });
      assert.deepEqual(report.failed, []);
      assert.equal(report.files, 20);
      assert.equal(report.skipped, 20);
      for (let i = 0; i < 40; i++) {
        const target = path.join(dest, `f${i}.bin`);
        if (i % 2) assert.equal(fs.readFileSync(target, 'utf8'), 'kept', `f${i}.bin was overwritten`);
        else assert.equal(await sha256File(target), await sha256File(path.join(src, `f${i}.bin`)), `f${i}.bin`);
      }
      assert.equal(files.filter((f) => f.state === 'skipped').length, 20);
      assert.ok(
        (server.stats.maxStatsInFlight ?? 0) > 8,
        `conflict checks one at a time (at most ${server.stats.maxStatsInFlight} STATs outstanding)`,
      );
      assert.deepEqual(tempFilesUnder(server.root), []);
    },
  );
});
