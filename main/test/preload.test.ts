// Lives in main/test/ because main/preload/** is linted as the sandboxed preload (no node:* imports).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as RealElectron from 'electron';
import { installElectronMock } from './mockElectron';
import {
  BRIDGE_METHOD_NAMES,
  EVENT_NAMES,
  INVOKE_CHANNELS,
  eventIpcChannel,
  invokeIpcChannel,
  methodName,
} from '../../app/common/ipc/contract';
import type * as SandboxElectron from '../preload/electronSandbox';

// Compile-time: Electron's real objects fit the Node-free `electron` the preload is type-checked against
// (main/preload/tsconfig.json maps it to electronSandbox.d.ts); a member Electron lacks or types otherwise fails the
// build.
void (null as unknown as Pick<typeof RealElectron, keyof typeof SandboxElectron> satisfies typeof SandboxElectron);

const electron = installElectronMock();
require('../preload/preload');

type Api = Record<string, (...args: unknown[]) => unknown>;
const exposed = (): Api => electron.contextBridge.exposed.get('sluice') as Api;

test('window.sluice is the only exposed key and holds exactly the allowlist', () => {
  assert.deepEqual([...electron.contextBridge.exposed.keys()], ['sluice']);
  assert.deepEqual(Object.keys(exposed()).sort(), [...BRIDGE_METHOD_NAMES, 'on', 'pathForFile'].sort());
  for (const key of Object.keys(exposed())) assert.equal(typeof exposed()[key], 'function', key);
  assert.ok(!('invoke' in exposed()) && !('send' in exposed()) && !('ipcRenderer' in exposed()), 'nothing generic');
});

test('each method invokes its own contract channel with the request', async () => {
  electron.ipcRenderer.invoked.length = 0;
  for (const channel of INVOKE_CHANNELS) await exposed()[methodName(channel)]({ probe: channel });
  assert.deepEqual(
    electron.ipcRenderer.invoked,
    INVOKE_CHANNELS.map((c) => ({ channel: invokeIpcChannel(c), payload: { probe: c } })),
  );
});

test('on() subscribes to contract events only and hides the IPC event object', () => {
  for (const name of EVENT_NAMES) {
    const got: unknown[] = [];
    const off = exposed().on(name, (p: unknown) => got.push(p)) as () => void;
    electron.ipcRenderer.listeners.emit(eventIpcChannel(name), { sender: 'ipc-internals' }, { hello: name });
    off();
    electron.ipcRenderer.listeners.emit(eventIpcChannel(name), { sender: 'ipc-internals' }, { late: true });
    assert.deepEqual(got, [{ hello: name }], name);
  }
  assert.throws(() => exposed().on('sluice:invoke:sites.list', () => undefined), /Unknown event/);
  assert.throws(() => exposed().on('__proto__', () => undefined), /Unknown event/);
  assert.equal(electron.ipcRenderer.listeners.eventNames().length, 0, 'no listener left behind');
});

test('pathForFile goes through webUtils', () => {
  assert.equal(exposed().pathForFile({ path: '/home/u/a.txt' }), '/home/u/a.txt');
});

test('the compiled preload requires nothing but electron (sandboxed preloads cannot)', () => {
  const js = fs.readFileSync(path.join(__dirname, '..', 'preload', 'preload.js'), 'utf8');
  const requires = [...js.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(requires)], ['electron']);
});
