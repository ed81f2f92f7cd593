/**
 * `sluice sync --watch` against a private sshd: in an 80-column terminal, a file written, renamed and deleted locally
 * arrives, is renamed (the server's inode unchanged: not sent again) and disappears on the server (polled with a
 * bounded waitUntil, no fixed sleeps), a folder renamed is renamed there, one line per change, and Ctrl+C stops at
 * once saying nothing was pending; without --delete a rename is an upload under the new name and the old one stays;
 * behind Toxiproxy, a change made while the connection is cut
 * arrives once it is back (reconnect, then a catch-up re-sync).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  startCli,
  sshdWithKnownHosts,
  toxiproxyAvailable,
  waitUntil,
  withProxiedSshd,
  type SshdServer,
} from './helpers';
import { startCliInTerminal } from './terminal';

let sshd: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;

before(async () => {
  ({ server: sshd, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-cli-watch-'));
});
after(async () => {
  await stop?.();
});

const flags = (key: string): string[] => ['--batch', '--no-agent', '-i', key, '--no-progress'];
const has = (p: string, text: string) => () => fs.existsSync(p) && fs.readFileSync(p, 'utf8') === text;

test('--watch --delete at 80 columns: written, renamed (a file, a folder), deleted here -> arrives, is renamed, disappears there; Ctrl+C stops', async () => {
  const l = path.join(local, 'watch-local');
  const r = path.join(sshd.root, 'watch-remote');
  fs.mkdirSync(l, { recursive: true });
  fs.writeFileSync(path.join(l, 'first.txt'), 'synced first');
  const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${r}`;
  const term = startCliInTerminal(['sync', '--watch', '--delete', ...flags(sshd.clientKeyPath), l, url], {
    knownHosts,
    cols: 80,
  });
  await term.waitForScreen(/watch: watching .*\(Ctrl\+C stops\)/, 30_000);
  assert.ok(has(path.join(r, 'first.txt'), 'synced first')(), 'the first sync ran');

  fs.writeFileSync(path.join(l, 'note.txt'), 'written while watched');
  await waitUntil('note.txt on the server', has(path.join(r, 'note.txt'), 'written while watched'), 20_000);
  await term.waitForScreen(/watch: uploaded note\.txt \(21 B\)/);

  const inode = fs.statSync(path.join(r, 'note.txt')).ino;
  fs.renameSync(path.join(l, 'note.txt'), path.join(l, 'moved.txt'));
  await waitUntil(
    'the rename on the server',
    () => has(path.join(r, 'moved.txt'), 'written while watched')() && !fs.existsSync(path.join(r, 'note.txt')),
    20_000,
  );
  assert.equal(fs.statSync(path.join(r, 'moved.txt')).ino, inode, 'renamed on the server, not uploaded again');
  fs.mkdirSync(path.join(l, 'sub/deeper'), { recursive: true });
  fs.writeFileSync(path.join(l, 'sub/deeper/f.txt'), 'nested');
  await waitUntil('sub/deeper/f.txt on the server', has(path.join(r, 'sub/deeper/f.txt'), 'nested'), 20_000);
  const nested = fs.statSync(path.join(r, 'sub/deeper/f.txt')).ino;
  fs.renameSync(path.join(l, 'sub'), path.join(l, 'top'));
  await waitUntil('the folder renamed on the server', () => !fs.existsSync(path.join(r, 'sub')), 20_000);
  assert.equal(fs.statSync(path.join(r, 'top/deeper/f.txt')).ino, nested, 'the folder renamed, its file not sent');
  fs.rmSync(path.join(l, 'top'), { recursive: true });
  await waitUntil('top/ gone from the server', () => !fs.existsSync(path.join(r, 'top')), 20_000);
  fs.rmSync(path.join(l, 'moved.txt'));
  await waitUntil('moved.txt gone from the server', () => !fs.existsSync(path.join(r, 'moved.txt')), 20_000);
  const screen = await term.waitForScreen(/watch: deleted moved\.txt/);
  assert.match(screen.text, /watch: deleted top\//);
  assert.doesNotMatch(screen.text, /deleted top\/deeper/, 'a folder removed is one removal, not one per file');
  assert.match(screen.text, /watch: renamed note\.txt -> moved\.txt/);
  assert.match(screen.text, /watch: renamed sub\/ -> top\//);
  assert.doesNotMatch(screen.text, /uploaded moved\.txt|deleted note\.txt|uploaded top/, 'no upload for a rename');
  assert.match(screen.text, /watch: created sub\/deeper\//);

  term.write('\x03');
  const res = await term.result;
  assert.equal(res.code, 130, res.raw);
  assert.match(res.text, /watch: stopped; nothing pending/);
  for (const line of res.lines) assert.ok(line.length <= 80, `line over 80 columns: ${line}`);
  assert.equal(res.cursor.x, 0, 'the cursor ends at column 0');
});

test('--watch without --delete: a rename is the new name uploaded, the old one kept on the server', async () => {
  const l = path.join(local, 'keep-local');
  const r = path.join(sshd.root, 'keep-remote');
  fs.mkdirSync(l, { recursive: true });
  fs.writeFileSync(path.join(l, 'a.txt'), 'kept');
  const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${r}`;
  const cli = startCli(['sync', '--watch', ...flags(sshd.clientKeyPath), l, url], { knownHosts, timeoutMs: 60_000 });
  await cli.waitForStderr(/watch: watching/);
  fs.renameSync(path.join(l, 'a.txt'), path.join(l, 'b.txt'));
  await waitUntil('b.txt on the server', has(path.join(r, 'b.txt'), 'kept'), 20_000);
  await cli.waitForStderr(/watch: a\.txt removed here, kept on the server/);
  assert.ok(has(path.join(r, 'a.txt'), 'kept')(), 'the old name stays');
  cli.child.kill('SIGINT');
  const res = await cli.result;
  assert.equal(res.code, 130, res.stderr);
  assert.match(res.stderr, /watch: uploaded b\.txt \(4 B\)/);
  assert.doesNotMatch(res.stderr, /renamed/);
});

test(
  '--watch through a cut connection: a change made during the cut arrives after it',
  { skip: toxiproxyAvailable() ? false : 'toxiproxy-server is not installed' },
  async () => {
    await withProxiedSshd({ tempPrefix: 'sluice-watch-cut-', toxics: [] }, async ({ srv, tox, proxyPort, dir }) => {
      const l = path.join(dir, 'local');
      const r = path.join(srv.root, 'cut-remote');
      fs.mkdirSync(l, { recursive: true });
      const kh = path.join(dir, 'known_hosts');
      fs.writeFileSync(kh, `${srv.knownHostsLine(proxyPort)}\n`);
      const url = `sftp://${srv.user}@127.0.0.1:${proxyPort}${r}`;
      const cli = startCli(['sync', '--watch', '--retries', '10', ...flags(srv.clientKeyPath), l, url], {
        knownHosts: kh,
        timeoutMs: 120_000,
      });
      await cli.waitForStderr(/watch: watching/);
      fs.writeFileSync(path.join(l, 'before.txt'), 'before the cut');
      await waitUntil('before.txt on the server', has(path.join(r, 'before.txt'), 'before the cut'), 20_000);

      await tox.setEnabled('sshd', false);
      fs.writeFileSync(path.join(l, 'during.txt'), 'made during the cut');
      await cli.waitForStderr(/watch: connection lost/, 30_000);
      assert.equal(fs.existsSync(path.join(r, 'during.txt')), false, 'not there while cut');
      await tox.setEnabled('sshd', true);
      await waitUntil('during.txt on the server', has(path.join(r, 'during.txt'), 'made during the cut'), 60_000);
      await cli.waitForStderr(/watch: reconnected: catching up/);
      await cli.waitForStderr(/watch: uploaded during\.txt/);
      cli.child.kill('SIGINT');
      const res = await cli.result;
      assert.equal(res.code, 130, res.stderr);
    });
  },
);
