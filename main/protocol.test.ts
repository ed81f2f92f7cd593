import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installElectronMock } from './test/mockElectron';

installElectronMock();
const { resolveAppPath, serveAppRequest, CONTENT_SECURITY_POLICY } =
  require('./protocol') as typeof import('./protocol');

function fixture(t: { after: (fn: () => void) => void }): { root: string; outside: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-proto-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'dist');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Sluice</title>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
  const outside = path.join(dir, 'secret.txt');
  fs.writeFileSync(outside, 'secret');
  fs.symlinkSync(outside, path.join(root, 'link.txt'));
  return { root, outside };
}

test('paths resolve inside the root; escapes, other hosts and odd bytes are refused', () => {
  const root = '/srv/app';
  assert.deepEqual(resolveAppPath('app://sluice/', root), { file: '/srv/app/index.html' });
  assert.deepEqual(resolveAppPath('app://sluice/assets/app.js?v=1#x', root), { file: '/srv/app/assets/app.js' });
  for (const url of [
    'app://sluice/%2e%2e/%2e%2e/etc/passwd',
    'app://sluice/../../etc/passwd',
    'app://sluice/a/..%2f..%2f..%2fetc/passwd',
  ]) {
    const r = resolveAppPath(url, root);
    assert.ok('status' in r || r.file.startsWith('/srv/app/'), `${url} -> ${JSON.stringify(r)}`);
  }
  assert.deepEqual(resolveAppPath('app://sluice/..%2f..%2fetc%2fpasswd', root), { status: 403 });
  assert.deepEqual(resolveAppPath('app://sluice/a%5c..%5c..%5cx', root), { status: 400 });
  assert.deepEqual(resolveAppPath('app://sluice/a%00.html', root), { status: 400 });
  assert.deepEqual(resolveAppPath('app://sluice/%E0%A4%A', root), { status: 400 });
  assert.deepEqual(resolveAppPath('app://evil/index.html', root), { status: 403 });
  assert.deepEqual(resolveAppPath('file:///srv/app/index.html', root), { status: 403 });
});

test('responses carry the CSP and a content type; symlinks out of the root and non-GET are refused', async (t) => {
  const { root } = fixture(t);
  const index = await serveAppRequest({ url: 'app://sluice/', method: 'GET' }, root);
  assert.equal(index.status, 200);
  assert.equal(index.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(await index.text(), /<title>Sluice/);
  const js = await serveAppRequest({ url: 'app://sluice/assets/app.js', method: 'GET' }, root);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal((await serveAppRequest({ url: 'app://sluice/missing.js', method: 'GET' }, root)).status, 404);
  const link = await serveAppRequest({ url: 'app://sluice/link.txt', method: 'GET' }, root);
  assert.equal(link.status, 403);
  assert.equal(link.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  assert.equal((await serveAppRequest({ url: 'app://sluice/index.html', method: 'POST' }, root)).status, 405);
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-(inline|eval)/);
});
