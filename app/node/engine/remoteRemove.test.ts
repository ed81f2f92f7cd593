import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../../../e2e/fixtures/sshd';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { SluiceError } from '../errors';
import { openTrusting } from '../test/helpers';
import { removeRemote } from './remoteRemove';

test('removeRemote: a file, an empty folder, a tree only with recursive, a link not followed, a missing path', async () => {
  const srv = await startTestServer();
  const dir = await makeTempDir('sluice-remove-');
  const session = await openTrusting(srv, dir);
  try {
    const root = srv.root;
    fs.mkdirSync(path.join(root, 'tree/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'tree/sub/a.txt'), 'a');
    fs.writeFileSync(path.join(root, 'keep.txt'), 'kept');
    fs.symlinkSync(path.join(root, 'keep.txt'), path.join(root, 'tree/link'));
    fs.mkdirSync(path.join(root, 'empty'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'f');

    await removeRemote(session, path.join(root, 'file.txt'));
    await removeRemote(session, path.join(root, 'empty'));
    await assert.rejects(removeRemote(session, path.join(root, 'tree')), 'a folder with contents needs recursive');
    assert.ok(fs.existsSync(path.join(root, 'tree/sub/a.txt')));
    await removeRemote(session, path.join(root, 'tree'), true);
    assert.deepEqual(fs.readdirSync(root).sort(), ['keep.txt']);
    assert.equal(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8'), 'kept', 'the link was removed, not its target');
    await assert.rejects(removeRemote(session, path.join(root, 'gone')),
      (e: unknown) => e instanceof SluiceError && e.code === 'NO_SUCH_FILE');
  } finally {
    await session.close();
    await srv.stop();
    await removeDir(dir);
  }
});
