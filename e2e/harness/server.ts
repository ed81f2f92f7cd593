/**
 * TEST ONLY: serves the built renderer (renderer/dist) over http on 127.0.0.1:random and the service to the
 * page over a loopback WebSocket, injecting the `window.sluice` shim (shim.ts) before the app's script.
 * Engine events pass through main's EventCoalescer, so the page sees the same ~10 Hz batches as in Electron.
 * Never a production transport: Electron uses the preload and validated IPC.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventName, EventPayloads } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import { EventCoalescer } from '../../main/ipc/coalescer';
import { SHIM_PATH, WS_PATH, shimSource, type ClientMessage, type ServerMessage } from './shim';

/** The service surface the harness needs (`SluiceService` from app/node/service.ts, or a synthetic one). */
export interface HarnessService {
  invoke(channel: string, payload: unknown): Promise<Result<unknown>>;
  subscribe(listener: <E extends EventName>(event: E, payload: EventPayloads[E]) => void): () => void;
}

export interface HarnessOptions {
  service: HarnessService;
  /** Built renderer folder; default renderer/dist. */
  distDir?: string;
  /** Coalescing interval for queue/progress/log events, ms; default 100 (as main/ipc/register.ts). */
  coalesceMs?: number;
}

export interface Harness {
  /** http://127.0.0.1:PORT/ — the app. */
  url: string;
  /** Every invocation the page made, in order (channel names only: payloads may hold passwords). */
  readonly calls: string[];
  /**
   * Declares files the spec created as "droppable from the OS": the shim's `pathForFile(file)` returns
   * `path` for a File named `name`. Resolves once every connected page has the table.
   */
  setDropTable(entries: Array<{ name: string; path: string }>): Promise<void>;
  stop(): Promise<void>;
}

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_DIST = path.join(REPO_ROOT, 'renderer', 'dist');

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Starts the harness. @throws Error when renderer/dist has not been built. */
export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const dist = opts.distDir ?? DEFAULT_DIST;
  const indexFile = path.join(dist, 'index.html');
  if (!fs.existsSync(indexFile))
    throw new Error(`e2e harness: ${indexFile} is missing; run \`npm run build:renderer\` first`);
  const shim = shimSource();
  const index = fs
    .readFileSync(indexFile, 'utf8')
    // The shim is a classic script placed before the app's module script (modules run deferred, after it).
    .replace('<head>', `<head>\n    <script src=".${SHIM_PATH}"></script>`);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET') return void res.writeHead(405).end();
    if (url.pathname === '/' || url.pathname === '/index.html') {
      res.writeHead(200, { 'content-type': MIME['.html'], 'cache-control': 'no-store' });
      return void res.end(index);
    }
    if (url.pathname === SHIM_PATH) {
      res.writeHead(200, { 'content-type': MIME['.js'], 'cache-control': 'no-store' });
      return void res.end(shim);
    }
    const file = path.resolve(dist, `.${decodeURIComponent(url.pathname)}`);
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile())
      return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  const wss = new WebSocketServer({ server, path: WS_PATH });
  const sockets = new Set<WebSocket>();
  const calls: string[] = [];
  const acks = new Map<number, () => void>();
  let nextAck = 1;
  let dropTable: Array<{ name: string; path: string }> = [];
  const sendTo = (ws: WebSocket, msg: ServerMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  };

  wss.on('connection', (ws) => {
    sockets.add(ws);
    const coalescer = new EventCoalescer(
      (event, payload) => sendTo(ws, { kind: 'event', event, payload }),
      opts.coalesceMs ?? 100,
    );
    const unsubscribe = opts.service.subscribe((event, payload) => coalescer.push(event, payload));
    if (dropTable.length) sendTo(ws, { kind: 'dropTable', id: 0, entries: dropTable });
    ws.on('message', (data) => {
      let msg: ClientMessage;
      try {
        msg = JSON.parse(String(data)) as ClientMessage;
      } catch {
        return;
      }
      if (msg.kind === 'ack') {
        acks.get(msg.id)?.();
        return;
      }
      if (msg.kind !== 'invoke') return;
      calls.push(msg.channel);
      void opts.service
        .invoke(msg.channel, msg.payload)
        .catch((e: unknown) => ({ ok: false, error: { code: 'INTERNAL', message: String(e) } }))
        .then((result) => {
          // Events emitted while the call ran go out first, as Electron's ordered IPC would deliver them.
          coalescer.flush();
          sendTo(ws, { kind: 'result', id: msg.id, result });
        });
    });
    ws.on('close', () => {
      sockets.delete(ws);
      unsubscribe();
      coalescer.dispose();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    calls,
    async setDropTable(entries) {
      dropTable = entries;
      await Promise.all(
        [...sockets].map(
          (ws) =>
            new Promise<void>((resolve, reject) => {
              const id = nextAck++;
              const timer = setTimeout(
                () => reject(new Error('e2e harness: page did not acknowledge the drop table')),
                10_000,
              );
              acks.set(id, () => {
                clearTimeout(timer);
                acks.delete(id);
                resolve();
              });
              sendTo(ws, { kind: 'dropTable', id, entries });
            }),
        ),
      );
    },
    async stop() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
