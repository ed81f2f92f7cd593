import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSsh2SftpServer } from '../../../e2e/fixtures/ssh2SftpServer';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { openSession } from '../test/helpers';
import { runTransfer } from '../transfer/run';

test('a keyboard-interactive login widens one connection instead of asking again per connection', async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: '123456' });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    const kh = path.join(dir, 'known_hosts');
    fs.writeFileSync(kh, `${srv.knownHostsLine()}\n`);
    let asked = 0;
    const session = await openSession({
      host: srv.host, port: srv.port, username: 'alice',
      auth: { identityFiles: [], useAgent: false, home: dir, env: {} },
      knownHostsPaths: { readPaths: [kh], writePath: kh },
      hostKeyMode: 'strict',
      askPassword: async () => { asked++; return '123456'; },
      connections: 3, channels: 2,
    });
    try {
      assert.equal(session.authMethod, 'keyboard-interactive');
      assert.equal(asked, 1);
      assert.equal(srv.connections, 1, 'only one SSH connection was made');
      assert.equal(session.lanes().length, 6, 'the one connection carries connections × channels SFTP channels');
      const src = path.join(dir, 'f.bin');
      fs.writeFileSync(src, Buffer.alloc(300_000, 7));
      const report = await runTransfer(session, { id: 'k', direction: 'put', sources: [src], dest: srv.root, recursive: false });
      assert.equal(report.failed.length, 0);
      assert.deepEqual(fs.readFileSync(path.join(srv.root, 'f.bin')), fs.readFileSync(src));
    } finally {
      await session.close();
    }
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});
