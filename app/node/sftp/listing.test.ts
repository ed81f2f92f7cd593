/**
 * Folder listings send their SSH_FXP_READDIRs two at a time (worker.ts `list`): every name arrives once and in
 * order across several answers, and a server that answers a READDIR after the end of the folder with an error
 * still lists fine. Against the scripted ssh2 server, which answers 100 names per READDIR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConnectionPool } from '../ssh/connectionPool';
import {
  fakeFileEntry,
  openTrusting,
  startScriptedServer,
  trustedServerHooks,
  type ScriptedServer,
} from '../test/helpers';

let server: ScriptedServer;
let local: string;
trustedServerHooks(
  () => startScriptedServer(),
  'sluice-listing-',
  (t) => {
    ({ server, dir: local } = t);
  },
);

const open = (): Promise<ConnectionPool> => openTrusting(server, local, { connections: 1, channels: 1 });

/** A listing of `n` entries (with "." and ".." first, as servers send them). */
function entries(n: number) {
  return [
    fakeFileEntry('.'),
    fakeFileEntry('..'),
    ...Array.from({ length: n - 2 }, (_, i) => fakeFileEntry(`f${String(i).padStart(4, '0')}`, i)),
  ];
}

test('a folder of 348 names over four READDIR answers: each name once, in order', async () => {
  const dir = path.join(server.root, 'many');
  fs.mkdirSync(dir);
  const listing = entries(350);
  server.overrides.readdir = (p) => (p === dir ? listing : undefined);
  const s = await open();
  try {
    const names = (await s.list(dir)).map((e) => e.name);
    assert.deepEqual(
      names,
      listing.slice(2).map((e) => e.filename),
    );
    assert.equal((await s.list(dir)).length, 348, 'a second listing on the same channel');
  } finally {
    server.overrides.readdir = undefined;
    await s.close();
  }
});

test('a READDIR answered with an error after the end of the folder does not fail the listing', async () => {
  const dir = path.join(server.root, 'exact');
  fs.mkdirSync(dir);
  // 200 entries: two full answers, then EOF and, for the READDIR sent beside it, SSH_FX_FAILURE.
  const listing = entries(200);
  server.overrides.readdir = (p) => (p === dir ? listing : undefined);
  server.overrides.failReaddirAfterEof = true;
  const s = await open();
  try {
    assert.equal((await s.list(dir)).length, 198);
    // A real failure before the end still fails.
    await assert.rejects(s.list(path.join(server.root, 'missing')), /no such|not found|exist/i);
  } finally {
    server.overrides.readdir = undefined;
    server.overrides.failReaddirAfterEof = undefined;
    await s.close();
  }
});
