/**
 * TEST ONLY. The `window.sluice` shim the harness injects before the app: it implements the contract's
 * Bridge over a loopback WebSocket to the real service (e2e/harness/server.ts). Generated as plain
 * JavaScript text, with the method -> channel table computed from the contract so it cannot drift.
 */
import { EVENT_NAMES, INVOKE_CHANNELS, methodName } from '../../app/common/ipc/contract';

/** WebSocket path the shim connects to. */
export const WS_PATH = '/__harness/ws';
/** Path of the shim script. */
export const SHIM_PATH = '/__harness/shim.js';

/** Messages page -> harness. */
export type ClientMessage =
  { kind: 'invoke'; id: number; channel: string; payload?: unknown } | { kind: 'ack'; id: number };

/** Messages harness -> page. */
export type ServerMessage =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'event'; event: string; payload: unknown }
  /** Files "dropped from the OS": name -> absolute path, for `pathForFile`. Acked with `id`. */
  | { kind: 'dropTable'; id: number; entries: Array<{ name: string; path: string }> };

/** The shim's source text. */
export function shimSource(): string {
  const methods = Object.fromEntries(INVOKE_CHANNELS.map((c) => [methodName(c), c]));
  return `(() => {
  'use strict';
  const METHODS = ${JSON.stringify(methods)};
  const EVENTS = ${JSON.stringify(EVENT_NAMES)};
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + ${JSON.stringify(WS_PATH)};
  const ws = new WebSocket(url);
  const outbox = [];
  const pending = new Map();
  const listeners = new Map(EVENTS.map((e) => [e, new Set()]));
  const dropTable = new Map();
  let nextId = 1;
  const send = (msg) => { const text = JSON.stringify(msg); if (ws.readyState === 1) ws.send(text); else outbox.push(text); };
  ws.addEventListener('open', () => { for (const text of outbox.splice(0)) ws.send(text); });
  ws.addEventListener('close', () => {
    for (const [, resolve] of pending) resolve({ ok: false, error: { code: 'HARNESS_CLOSED', message: 'harness connection closed' } });
    pending.clear();
  });
  ws.addEventListener('message', (m) => {
    const msg = JSON.parse(m.data);
    if (msg.kind === 'result') { const r = pending.get(msg.id); pending.delete(msg.id); if (r) r(msg.result); }
    else if (msg.kind === 'event') { for (const l of listeners.get(msg.event) || []) { try { l(msg.payload); } catch (e) { console.error(e); } } }
    else if (msg.kind === 'dropTable') { dropTable.clear(); for (const e of msg.entries) dropTable.set(e.name, e.path); send({ kind: 'ack', id: msg.id }); }
  });
  const bridge = {
    on(event, listener) {
      const set = listeners.get(event);
      if (!set) throw new Error('unknown event ' + event);
      set.add(listener);
      return () => set.delete(listener);
    },
    pathForFile(file) { return (file && dropTable.get(file.name)) || ''; },
  };
  for (const [method, channel] of Object.entries(METHODS)) {
    bridge[method] = (payload) => new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send({ kind: 'invoke', id, channel, payload });
    });
  }
  Object.defineProperty(window, 'sluice', { value: Object.freeze(bridge), writable: false, configurable: false });
  window.__sluiceHarness = { pending: () => pending.size };
})();
`;
}
