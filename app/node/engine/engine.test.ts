/** The engine's door: what it learned about the server (ServerTraits), and transfers run through it. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from './engine';
import { makeTempDir, removeDir, sha256File, startScriptedServer, startSshd, writeRandomFile, openTrusting } from '../test/helpers';

let local: string;
before(async () => { local = await makeTempDir('sluice-engine-'); });
after(async () => { if (local) await removeDir(local); });

test('OpenSSH: its sftp-server answers in order, limits and extensions are known, the probe result is kept', { timeout: 60_000 }, async () => {
  const server = await startSshd();
  const engine = new Engine(await openTrusting(server, local, { connections: 1, channels: 2, segmentSize: 1024 * 1024 }));
  try {
    const before = engine.traits;
    assert.equal(before.ordersRequests, true);
    assert.equal(before.maxWrite, 261120);
    assert.ok(before.extensions['posix-rename@openssh.com'] !== undefined);
    assert.equal(before.outOfOrderWrites, undefined, 'not probed yet');
    const src = path.join(local, 'e.bin');
    writeRandomFile(src, 3 * 1024 * 1024);
    const report = await engine.transfer({ id: 'e', direction: 'put', sources: [src], dest: path.join(server.root, 'e.bin'), recursive: false });
    assert.deepEqual(report.failed, []);
    assert.equal(await sha256File(path.join(server.root, 'e.bin')), await sha256File(src));
    assert.equal(engine.traits.outOfOrderWrites, true);
  } finally {
    await engine.close();
    await server.stop();
  }
});

test('a server built on ssh2: not taken to answer in order', { timeout: 60_000 }, async () => {
  const server = await startScriptedServer();
  const engine = new Engine(await openTrusting(server, local, { connections: 1, channels: 1 }));
  try {
    assert.equal(engine.traits.ordersRequests, false);
    assert.ok(fs.existsSync(server.root));
  } finally {
    await engine.close();
    await server.stop();
  }
});
