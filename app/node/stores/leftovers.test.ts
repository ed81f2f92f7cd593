/**
 * The leftovers journal: entries per server, durable before the remote operation, and the clean-up that removes a
 * lost temporary file, finishes or undoes an interrupted commit, and keeps what it could not do.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LeftoverJournal, cleanLeftovers, type LeftoverRemote } from './leftovers';
import {
  makeTempDir,
  removeDir,
  startScriptedServer,
  within,
  writeRandomFile,
  openTrusting,
  tempFilesUnder,
} from '../test/helpers';
import { runTransfer } from '../transfer/run';

let dir: string;
before(async () => {
  dir = await makeTempDir('sluice-leftovers-');
});
after(async () => {
  if (dir) await removeDir(dir);
});

/** A remote made of a set of paths, recording what was done to it. */
function fakeRemote(files: Set<string>, failing = new Set<string>()): LeftoverRemote & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    exists: async (p) => files.has(p),
    remove: async (p) => {
      if (failing.has(p)) throw new Error('refused');
      files.delete(p);
      log.push(`rm ${p}`);
    },
    rename: async (a, b) => {
      files.delete(a);
      files.add(b);
      log.push(`mv ${a} ${b}`);
    },
  };
}

describe('LeftoverJournal', () => {
  test('entries are kept per server and survive a new journal object (another run)', () => {
    const home = path.join(dir, 'h1');
    const a = new LeftoverJournal(home, { host: 'h', port: 22, user: 'u' });
    const b = new LeftoverJournal(home, { host: 'h', port: 2222, user: 'u' });
    const id = a.record({ kind: 'temp', path: '/x/.f.sluice-1.part' });
    assert.ok(id);
    assert.deepEqual(
      new LeftoverJournal(home, { host: 'h', port: 22, user: 'u' }).pending().map((p) => p.entry.path),
      ['/x/.f.sluice-1.part'],
    );
    assert.deepEqual(b.pending(), []);
    a.forget(id);
    assert.deepEqual(a.pending(), []);
  });

  test('a half-written entry is dropped, not trusted', () => {
    const home = path.join(dir, 'h2');
    const j = new LeftoverJournal(home, { host: 'h', port: 22, user: 'u' });
    const id = j.record({ kind: 'temp', path: '/t' })!;
    fs.writeFileSync(path.join(home, 'leftovers', id), '{"kind":"te');
    assert.deepEqual(j.pending(), []);
    assert.equal(fs.existsSync(path.join(home, 'leftovers', id)), false);
  });
});

describe('cleanLeftovers', () => {
  test('removes a temp file, removes an old copy whose commit finished, renames back one whose commit did not', async () => {
    const j = new LeftoverJournal(path.join(dir, 'h3'), { host: 'h', port: 22, user: 'u' });
    j.record({ kind: 'temp', path: '/d/.a.sluice-1.part' });
    j.record({ kind: 'aside', path: '/d/.b.sluice-2.old', target: '/d/b' });
    j.record({ kind: 'aside', path: '/d/.c.sluice-3.old', target: '/d/c' });
    j.record({ kind: 'temp', path: '/d/gone' });
    const files = new Set(['/d/.a.sluice-1.part', '/d/.b.sluice-2.old', '/d/b', '/d/.c.sluice-3.old']);
    const remote = fakeRemote(files);
    assert.equal(await cleanLeftovers(j, remote), 3);
    assert.deepEqual([...files].sort(), ['/d/b', '/d/c']);
    assert.deepEqual(j.pending(), []);
  });

  test('an entry whose clean-up fails stays for the next connection', async () => {
    const j = new LeftoverJournal(path.join(dir, 'h4'), { host: 'h', port: 22, user: 'u' });
    j.record({ kind: 'temp', path: '/d/t' });
    const remote = fakeRemote(new Set(['/d/t']), new Set(['/d/t']));
    assert.equal(await cleanLeftovers(j, remote), 0);
    assert.equal(j.pending().length, 1);
  });

  test(
    'the next transfer to the server deals with them first (an interrupted commit without posix-rename is undone)',
    { timeout: 60_000 },
    async () => {
      const server = await startScriptedServer({ extensions: { 'fsync@openssh.com': '1' } });
      const home = path.join(dir, 'h5');
      try {
        const target = path.join(server.root, 'doc.txt');
        const aside = path.join(server.root, '.doc.txt.sluice-0000abcd.old');
        const temp = path.join(server.root, '.other.sluice-0000abcd.part');
        fs.writeFileSync(aside, 'the old version');
        fs.writeFileSync(temp, 'half');
        const j = new LeftoverJournal(home, { host: server.host, port: server.port, user: server.user });
        j.record({ kind: 'aside', path: aside, target });
        j.record({ kind: 'temp', path: temp });
        const src = path.join(dir, 'new.bin');
        writeRandomFile(src, 1000);
        const s = await openTrusting(server, dir, { connections: 1, channels: 1, dataDir: home });
        try {
          const r = await within(
            'put',
            30_000,
            runTransfer(s, {
              id: 'l',
              direction: 'put',
              sources: [src],
              dest: path.join(server.root, 'new.bin'),
              recursive: false,
            }),
          );
          assert.deepEqual(r.failed, []);
        } finally {
          await s.close();
        }
        assert.equal(fs.readFileSync(target, 'utf8'), 'the old version', 'the old copy is back under its name');
        assert.deepEqual(tempFilesUnder(server.root), []);
        assert.equal(fs.existsSync(aside), false);
        assert.deepEqual(j.pending(), []);
      } finally {
        await server.stop();
      }
    },
  );
});
