import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_USER_MODEL_ID, applyAppUserModelId } from './appIdentity';

/** dist/main -> the repo. */
const ROOT = path.join(__dirname, '..', '..');

test("the AUMID is set on Windows only, and equals electron-builder.yml appId (the NSIS shortcut's)", () => {
  const calls: string[] = [];
  const app = {
    setAppUserModelId: (id: string) => {
      calls.push(id);
    },
  };
  assert.equal(applyAppUserModelId(app, 'linux'), false);
  assert.equal(applyAppUserModelId(app, 'darwin'), false);
  assert.deepEqual(calls, []);
  assert.equal(applyAppUserModelId(app, 'win32'), true);
  assert.deepEqual(calls, [APP_USER_MODEL_ID]);
  const appId = /^appId:\s*(\S+)\s*$/m.exec(fs.readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'))?.[1];
  assert.equal(appId, APP_USER_MODEL_ID);
});

test('main/index.ts applies it before the app is ready (no Electron here to start the real main process)', () => {
  const source = fs.readFileSync(path.join(ROOT, 'main', 'index.ts'), 'utf8');
  const applied = source.indexOf('applyAppUserModelId(app)');
  assert.ok(applied > 0, 'main/index.ts calls applyAppUserModelId(app)');
  const ready = source.search(/\bapp\s*\.whenReady\(\)/);
  assert.ok(ready > 0, 'main/index.ts waits for app.whenReady()');
  assert.ok(applied < ready, 'before whenReady, so before any notification');
});
