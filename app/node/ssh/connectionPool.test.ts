/**
 * Host keys across the connections of one ConnectionPool: every connection verifies the key, an unknown key is
 * asked about once for the whole pool, a refusal stops before more connections are opened, and a key that
 * changes between the first connection and the others stops the whole session before any authentication
 * on the new connection (a TCP switch sends the first connection to the real sshd, the rest to an impostor).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Connection, Server as Ssh2Server } from 'ssh2';
import type { HostKeyVerdict } from '../../common/model/hostKey';
import { SluiceError } from '../errors';
import type { EngineOptions } from '../engine/setup';
import type { ConnectionPool } from './connectionPool';
import type { EngineEvent } from '../transfer/types';
import { childPids } from '../../../e2e/fixtures/sshd';
import {
  SSHD_PATH,
  makeTempDir,
  removeDir,
  startScriptedServer,
  startSshd,
  waitUntil,
  type ScriptedServer,
  type SshdServer,
  openBounded,
  parsableEd25519Pair,
} from '../test/helpers';

const ssh2 = require('ssh2') as typeof import('ssh2');
const hasSshd = fs.existsSync(SSHD_PATH);

let local: string;
let khCount = 0;

before(async () => {
  local = await makeTempDir('sluice-sess-');
});

after(async () => {
  if (local) await removeDir(local);
});

/** A fresh known_hosts file holding `lines`. */
function knownHostsWith(lines: string[]): string {
  const p = path.join(local, `known_hosts.${++khCount}`);
  fs.writeFileSync(p, lines.map((l) => `${l}\n`).join(''));
  return p;
}

interface Observed {
  verdicts: HostKeyVerdict[];
  prompts: number;
  events: EngineEvent[];
}

function open(
  target: { port: number; user: string; clientKeyPath: string },
  knownHosts: string,
  obs: Observed,
  o: Partial<EngineOptions> = {},
): Promise<ConnectionPool> {
  return openBounded({
    host: '127.0.0.1',
    port: target.port,
    username: target.user,
    auth: { identityFiles: [target.clientKeyPath], useAgent: false, env: {}, home: local },
    hostKeyMode: 'strict',
    knownHostsPaths: { readPaths: [knownHosts], writePath: knownHosts },
    connections: 4,
    channels: 1,
    onHostKeyVerdict: (v) => {
      obs.verdicts.push(v);
    },
    onEvent: (e) => {
      obs.events.push(e);
    },
    ...o,
  });
}

function observed(): Observed {
  return { verdicts: [], prompts: 0, events: [] };
}

/** SSH connections the session opened that are still up, as seen by sshd (one child per connection). */
function sshdConnections(server: SshdServer): number {
  return childPids(server.pid).length;
}

describe('host keys across connections (OpenSSH)', { skip: hasSshd ? false : `${SSHD_PATH} not installed` }, () => {
  let server: SshdServer;
  before(async () => {
    server = await startSshd();
  });
  after(async () => {
    await server?.stop();
  });

  test('a known key: each of the 4 connections checks it, nobody is asked', { timeout: 60_000 }, async () => {
    const obs = observed();
    const s = await open(server, knownHostsWith([server.knownHostsLine()]), obs, {
      hostKeyMode: 'ask',
      hostKeyPrompt: async () => {
        obs.prompts++;
        return 'reject';
      },
    });
    try {
      assert.equal(s.connections.length, 4);
      assert.deepEqual(
        obs.verdicts.map((v) => v.kind),
        ['trusted', 'trusted', 'trusted', 'trusted'],
      );
      assert.equal(obs.prompts, 0);
      assert.equal(obs.events.filter((e) => e.type === 'connection' && e.state === 'up').length, 4);
    } finally {
      await s.close();
    }
  });

  test(
    'an unknown key with `ask`: one prompt for 4 connections, accepted for the whole pool, every connection still verified',
    { timeout: 60_000 },
    async () => {
      const obs = observed();
      const kh = knownHostsWith([]);
      const s = await open(server, kh, obs, {
        hostKeyMode: 'ask',
        hostKeyPrompt: async (v) => {
          obs.prompts++;
          assert.equal(v.kind, 'unknown');
          return 'accept-once';
        },
      });
      try {
        assert.equal(s.connections.length, 4);
        assert.equal(obs.prompts, 1, 'asked once, not per connection');
        assert.equal(obs.verdicts.length, 4, 'every connection presented its key to the policy');
        assert.ok(obs.verdicts.every((v) => v.kind === 'unknown'));
        assert.equal(fs.readFileSync(kh, 'utf8'), '', 'accept-once saves nothing');
        // The pool works: a call on every connection.
        await Promise.all(s.connections.map((c) => c.call('realpath', { path: '.' })));
      } finally {
        await s.close();
      }
    },
  );

  test('accept-save: one prompt, one known_hosts line (not one per connection)', { timeout: 60_000 }, async () => {
    const obs = observed();
    const kh = knownHostsWith([]);
    const s = await open(server, kh, obs, {
      hostKeyMode: 'ask',
      hostKeyPrompt: async () => {
        obs.prompts++;
        return 'accept-save';
      },
    });
    try {
      assert.equal(s.connections.length, 4);
      assert.equal(obs.prompts, 1);
      const lines = fs.readFileSync(kh, 'utf8').split('\n').filter(Boolean);
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.ok(lines[0].includes(server.hostKeyBlobs()[0].toString('base64')));
    } finally {
      await s.close();
    }
  });

  test(
    'a rejected key stops the session before authentication and before the other connections',
    { timeout: 60_000 },
    async () => {
      const obs = observed();
      await assert.rejects(
        open(server, knownHostsWith([]), obs, {
          hostKeyMode: 'ask',
          hostKeyPrompt: async () => {
            obs.prompts++;
            return 'reject';
          },
        }),
        (e: unknown) => e instanceof SluiceError && e.code === 'HOSTKEY_REJECTED',
      );
      assert.equal(obs.prompts, 1);
      assert.equal(obs.verdicts.length, 1, 'only the first connection was opened');
      await waitUntil('sshd connections to go away', () => sshdConnections(server) === 0, 10_000);
    },
  );

  describe('the key changes between the first connection and the others', () => {
    let impostor: Ssh2Server;
    let impostorPort: number;
    const seen = { connections: 0, handshakes: 0, authAttempts: 0 };
    let sw: net.Server;
    let switchPort: number;
    let switched = 0;
    const sockets = new Set<net.Socket>();

    before(async () => {
      // The impostor: same key type (ed25519) as the real server, a different key; it counts logins.
      const key = parsableEd25519Pair();
      impostor = new ssh2.Server({ hostKeys: [key.private] }, (client: Connection) => {
        seen.connections++;
        client.on('handshake', () => {
          seen.handshakes++;
        });
        client.on('authentication', (ctx) => {
          seen.authAttempts++;
          ctx.reject();
        });
        client.on('error', () => undefined);
      });
      await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', () => r()));
      impostorPort = (impostor.address() as net.AddressInfo).port;
      // The switch: its first TCP connection goes to the real sshd, every later one to the impostor.
      sw = net.createServer((inbound) => {
        const port = switched++ === 0 ? server.port : impostorPort;
        const outbound = net.connect({ host: '127.0.0.1', port });
        for (const s of [inbound, outbound]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        inbound.pipe(outbound).pipe(inbound);
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
      });
      await new Promise<void>((r) => sw.listen(0, '127.0.0.1', () => r()));
      switchPort = (sw.address() as net.AddressInfo).port;
    });

    after(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => sw?.close(() => r()));
      await new Promise<void>((r) => impostor?.close(() => r()));
    });

    test(
      'HOSTKEY_CHANGED stops the whole session; the impostor never sees an authentication attempt',
      { timeout: 60_000 },
      async () => {
        const obs = observed();
        // known_hosts names the switch's port with the real server's key.
        const line = server.knownHostsLine(switchPort);
        const started = Date.now();
        let error: unknown;
        try {
          const s = await open(
            { port: switchPort, user: server.user, clientKeyPath: server.clientKeyPath },
            knownHostsWith([line]),
            obs,
          );
          await s.close();
        } catch (e) {
          error = e;
        }
        assert.ok(error instanceof SluiceError, `expected a SluiceError, got ${String(error)}`);
        assert.equal(error.code, 'HOSTKEY_CHANGED');
        assert.match(error.message, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
        assert.ok(Date.now() - started < 20_000);
        assert.equal(obs.verdicts[0]?.kind, 'trusted', 'the first connection reached the real server');
        assert.ok(
          obs.verdicts.slice(1).some((v) => v.kind === 'changed'),
          `verdicts: ${obs.verdicts.map((v) => v.kind).join(',')}`,
        );
        assert.ok(obs.verdicts.every((v) => v.kind === 'trusted' || v.kind === 'changed'));
        assert.ok(switched >= 2, 'the other connections went through the switch');
        assert.ok(seen.connections >= 1, 'the impostor was reached');
        assert.equal(seen.authAttempts, 0, 'no authentication was sent to the changed key');
        assert.equal(
          obs.events.filter((e) => e.type === 'connection' && e.state === 'down').length,
          0,
          'a host-key stop is not reported as connection losses',
        );
        // The first, good connection was closed too.
        await waitUntil('the real server to see no connection', () => sshdConnections(server) === 0, 10_000);
      },
    );
  });
});

describe('host keys across connections (scripted server)', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(async () => {
    await server?.stop();
  });

  test(
    'strict mode and an unknown key: HOSTKEY_UNKNOWN after one connection, no prompt',
    { timeout: 30_000 },
    async () => {
      const obs = observed();
      const before = server.connections;
      await assert.rejects(
        open(server, knownHostsWith([]), obs),
        (e: unknown) => e instanceof SluiceError && e.code === 'HOSTKEY_UNKNOWN',
      );
      assert.equal(server.connections - before, 1, 'the pool stopped after the first connection');
      assert.equal(obs.verdicts.length, 1);
    },
  );

  test('accept-new with 4 connections: saved once, each connection verified', { timeout: 30_000 }, async () => {
    const obs = observed();
    const kh = knownHostsWith([]);
    const before = server.connections;
    const s = await open(server, kh, obs, { hostKeyMode: 'accept-new' });
    try {
      assert.equal(s.connections.length, 4);
      assert.equal(server.connections - before, 4);
      assert.equal(obs.verdicts.length, 4);
      assert.equal(obs.verdicts[0].kind, 'unknown');
      assert.equal(fs.readFileSync(kh, 'utf8').split('\n').filter(Boolean).length, 1);
      assert.ok(obs.verdicts.slice(1).every((v) => v.kind === 'trusted' || v.kind === 'unknown'));
    } finally {
      await s.close();
    }
  });
});
