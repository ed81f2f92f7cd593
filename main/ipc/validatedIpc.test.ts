import test from 'node:test';
import assert from 'node:assert/strict';
import { installElectronMock } from '../test/mockElectron';
import { INVOKE_CHANNELS, invokeIpcChannel, type InvokeChannel } from '../../app/common/ipc/contract';
import { ok, type Result } from '../../app/common/ipc/result';

const electron = installElectronMock();
const { registerInvokeHandlers, isAppUrl } = require('./validatedIpc') as typeof import('./validatedIpc');

const mainFrame = { url: 'app://sluice/index.html', routingId: 1, processId: 4 };
interface Frame {
  url: string;
  routingId: number;
  processId: number;
}
function eventFrom(frame: Frame | null, main: Frame | null = mainFrame): unknown {
  return { senderFrame: frame, sender: main ? { mainFrame: main } : {} };
}

function setup(t: { after: (fn: () => void) => void }): {
  calls: Array<[InvokeChannel, unknown]>;
  call: (channel: string, event: unknown, payload: unknown) => Promise<Result<unknown>>;
} {
  const calls: Array<[InvokeChannel, unknown]> = [];
  const unregister = registerInvokeHandlers(async (channel, payload) => {
    calls.push([channel, payload]);
    if (channel === 'local.home') throw new Error('boom');
    return ok(`${channel} done`);
  });
  t.after(unregister);
  return {
    calls,
    call: async (channel, event, payload) => {
      const h = electron.ipcMain.handlers.get(channel);
      assert.ok(h, `handler for ${channel}`);
      return (await h(event, payload)) as Result<unknown>;
    },
  };
}

test('exactly the contract channels are registered, and removed again', () => {
  const unregister = registerInvokeHandlers(async () => ok(undefined));
  assert.deepEqual([...electron.ipcMain.handlers.keys()].sort(), INVOKE_CHANNELS.map(invokeIpcChannel).sort());
  unregister();
  assert.equal(electron.ipcMain.handlers.size, 0);
});

test('a valid call from the app main frame reaches the service with the parsed payload', async (t) => {
  const { calls, call } = setup(t);
  const res = await call('sluice:invoke:remote.list', eventFrom(mainFrame), { siteId: 's', path: '/tmp' });
  assert.deepEqual(res, { ok: true, value: 'remote.list done' });
  assert.deepEqual(calls, [['remote.list', { siteId: 's', path: '/tmp' }]]);
});

test('unknown senders are refused before validation or the service', async (t) => {
  const { calls, call } = setup(t);
  const senders = [
    eventFrom(
      { url: 'https://evil.example/', routingId: 1, processId: 4 },
      { url: 'https://evil.example/', routingId: 1, processId: 4 },
    ),
    eventFrom(
      { url: 'file:///tmp/index.html', routingId: 1, processId: 4 },
      { url: 'file:///tmp/index.html', routingId: 1, processId: 4 },
    ),
    eventFrom(
      { url: 'app://evil/index.html', routingId: 1, processId: 4 },
      { url: 'app://evil/index.html', routingId: 1, processId: 4 },
    ),
    eventFrom(null),
    eventFrom({ url: 'app://sluice/frame.html', routingId: 7, processId: 4 }), // a subframe, even of our origin
    eventFrom({ ...mainFrame }, null), // a sender without a main frame
    eventFrom({ ...mainFrame, processId: 9 }), // the main frame's routing id in another renderer process
  ];
  for (const e of senders) {
    const res = await call('sluice:invoke:sites.list', e, undefined);
    assert.equal(res.ok ? '' : res.error.code, 'FORBIDDEN_SENDER', JSON.stringify(e));
  }
  assert.equal(calls.length, 0);
});

test('malformed payloads are refused with INVALID_REQUEST; service errors become INTERNAL results', async (t) => {
  const { calls, call } = setup(t);
  const bad: Array<[string, unknown]> = [
    ['sluice:invoke:remote.list', { siteId: 's' }],
    ['sluice:invoke:remote.list', { siteId: 's', path: '/x', extra: 1 }],
    ['sluice:invoke:queue.enqueue', { siteId: 's', direction: 'upload', sources: '/etc/passwd', dest: '/r' }],
    ['sluice:invoke:hostKey.answer', { promptId: 'p', answer: 'yes please' }],
    ['sluice:invoke:sites.list', { sneaky: true }],
    ['sluice:invoke:session.connect', 'site-id-as-string'],
    ['sluice:invoke:settings.set', { theme: 'neon' }],
  ];
  for (const [channel, payload] of bad) {
    const res = await call(channel, eventFrom(mainFrame), payload);
    assert.equal(res.ok ? '' : res.error.code, 'INVALID_REQUEST', `${channel} ${JSON.stringify(payload)}`);
  }
  assert.equal(calls.length, 0);
  const thrown = await call('sluice:invoke:local.home', eventFrom(mainFrame), undefined);
  assert.deepEqual(thrown, { ok: false, error: { code: 'INTERNAL', message: 'boom' } });
});

test('isAppUrl', () => {
  assert.ok(isAppUrl('app://sluice/index.html'));
  for (const u of ['app://sluice.evil/x', 'app://sluiceevil/', 'https://sluice/', 'about:blank', '', undefined])
    assert.equal(isAppUrl(u), false, String(u));
});
