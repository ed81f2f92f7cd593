/**
 * The target a command's resume journal and queue jobs are keyed on (cli/jobSetup.ts jobTarget, cli/resume.ts
 * runJournalKey): every way of naming one server (an ssh_config alias, a saved site, a URL with or without `user@`
 * and `:port`) gives the same user, host and port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Site } from '../../common/model/site';
import type { HostContext } from '../engine/hostSettings';
import { applyBookmark } from './bookmarks';
import { jobTarget } from './jobSetup';
import { parseRemoteUrl } from '../engine/remoteSpec';
import { runJournalKey } from './resume';

function withConfig(t: { after(fn: () => void): void }, text: string): { file: string; ctx: HostContext } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-jobtarget-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const file = path.join(home, 'config');
  fs.writeFileSync(file, text);
  return { file, ctx: { home, env: { HOME: home }, localUser: 'me', localHost: 'box', uid: 1000 } };
}

const site: Site = {
  id: 's1',
  name: 'local',
  folder: '',
  host: '127.0.0.1',
  port: 2311,
  user: 'root',
  authMethod: 'key',
  createdAt: 1,
  updatedAt: 1,
};
const spec = (url: string) => applyBookmark(parseRemoteUrl(url)!, url, (n) => (n === 'local' ? [site] : []));

test('an alias, a saved site and the plain URL of one server are one target', (t) => {
  const { file, ctx } = withConfig(t, 'Host myserver\n  HostName 127.0.0.1\n  Port 2311\n  User root\n');
  const o = { sshConfig: file };
  const want = { user: 'root', host: '127.0.0.1', port: 2311 };
  assert.deepEqual(jobTarget(spec('sftp://myserver/x'), o, ctx), want);
  assert.deepEqual(jobTarget(spec('sftp://local/x'), o, ctx), want);
  assert.deepEqual(jobTarget(spec('sftp://root@127.0.0.1:2311/x'), o, ctx), want);
  assert.deepEqual(jobTarget(spec('sftp://root@MyServer:2311/x'), o, ctx), want);
});

test("defaults: no user anywhere is the local user, no port is 22; the URL's user and port win over the alias's", (t) => {
  const { file, ctx } = withConfig(t, 'Host box\n  HostName Box.Example.COM\n  User alice\n  Port 2222\n');
  const o = { sshConfig: file };
  assert.deepEqual(jobTarget(spec('sftp://other.example.com/x'), o, ctx), {
    user: 'me',
    host: 'other.example.com',
    port: 22,
  });
  assert.deepEqual(jobTarget(spec('sftp://box/x'), o, ctx), { user: 'alice', host: 'box.example.com', port: 2222 });
  assert.deepEqual(jobTarget(spec('sftp://bob@box:2200/x'), o, ctx), {
    user: 'bob',
    host: 'box.example.com',
    port: 2200,
  });
});

test('a journal key: the login folder is ~, local paths absolute', () => {
  const target = { user: 'root', host: 'h', port: 22 };
  const get = runJournalKey('get', target, [''], 'x');
  assert.deepEqual(get, { target, direction: 'download', sources: ['~'], dest: path.resolve('x') });
  const put = runJournalKey('put', target, ['a.bin'], '');
  assert.deepEqual(put, { target, direction: 'upload', sources: [path.resolve('a.bin')], dest: '~' });
});
