import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRETS_FILE, forgetStoredSecret } from './secretsFile';

test('forgetStoredSecret fsyncs the new secrets file before renaming it over the old one, and keeps mode 0600', (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-secrets-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const file = path.join(home, SECRETS_FILE);
  fs.writeFileSync(file, JSON.stringify({ a: 'ciphertext-a', b: 'ciphertext-b' }), { mode: 0o600 });
  const steps: string[] = [];
  const fdPaths = new Map<number, string>();
  const open = fs.openSync;
  t.mock.method(fs, 'openSync', (p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (open as (...a: unknown[]) => number)(p, ...rest);
    fdPaths.set(fd, String(p));
    return fd;
  });
  const fsync = fs.fsyncSync;
  t.mock.method(fs, 'fsyncSync', (fd: number) => {
    steps.push(`fsync ${fdPaths.get(fd) ?? fd}`);
    fsync(fd);
  });
  const rename = fs.renameSync;
  t.mock.method(fs, 'renameSync', (from: fs.PathLike, to: fs.PathLike) => {
    steps.push(`rename ${String(from)}`);
    rename(from, to);
  });
  assert.equal(forgetStoredSecret(home, 'a'), true);
  t.mock.restoreAll();
  const tmp = `${file}.${process.pid}.tmp`;
  assert.deepEqual(
    steps.filter((s) => s.endsWith(tmp)),
    [`fsync ${tmp}`, `rename ${tmp}`],
    steps.join('; '),
  );
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { b: 'ciphertext-b' });
  if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(forgetStoredSecret(home, 'a'), false, 'nothing left to forget');
});
