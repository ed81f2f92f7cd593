/**
 * Jump hosts inside a connection worker (ssh_config(5) ProxyJump, ssh -J): each hop is an ssh2 Client; its `forwardOut`
 * opens a direct-tcpip channel (RFC 4254 §7.2) to the next hop, whose Client runs over that channel as its socket, and
 * the last hop's channel carries the target's connection. Sockets cannot cross worker_threads, so every connection of a
 * pool opens its own chain. A hop's host key and password go to the coordinator like the target's (ask with `hop`), so
 * known_hosts, the host-key policy and the prompts are the same.
 */
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { hostPortLabel } from '../../../common/jumpHosts';
import { SluiceError, hostNotFoundError } from '../../errors';
import { setReceiveWindow, ssh2ClientClass, type PatchedConnectConfig } from '../../ssh2x';
import { makeAuthHandler } from '../auth';
import { AuthTrace } from './authTrace';
import { SSH_IDENT_SOFTWARE, socketTo } from '../preconnect';
import type { ConnectParams, JumpHopParams } from '../workerProtocol';
import type { WorkerConn } from './conn';

/**
 * Receive window of a hop's forwarded channel, bytes: it carries every SFTP channel of the connection, so it gets the
 * largest SFTP window Sluice uses (connectionPool.ts WINDOW_TUNE.maxBytes) instead of ssh2's 2 MiB.
 */
export const JUMP_CHANNEL_WINDOW = 16 * 1024 * 1024;

/** The open chain: the channel the target's SSH connection runs over, and the hops to close after it. */
export interface JumpChain {
  sock: ClientChannel;
  hops: Client[];
  /** The first hop's TCP socket. */
  firstSock: Duplex;
}

/** What a connection needs to know of the target's connect, for the hops' timeouts, keepalives and messages. */
type Limits = Pick<ConnectParams, 'readyTimeoutMs' | 'keepaliveIntervalMs' | 'keepaliveCountMax'>;

/** A hop's failure, naming the hop: `jump host bastion (10.0.0.5:22): authentication failed for alice: …`. */
export function hopError(
  e: Error & { level?: string },
  hop: JumpHopParams,
  limits: Limits,
  trace?: AuthTrace,
): SluiceError {
  const at = (code: ConstructorParameters<typeof SluiceError>[0], what: string) =>
    new SluiceError(code, `jump host ${hop.label}: ${what}`);
  if (e instanceof SluiceError) return e;
  if (e.level === 'client-authentication') {
    return at(
      'AUTH_FAILED',
      trace
        ? trace.failure(`${hop.username}`).message
        : `authentication failed for ${hop.username}: all offered methods were refused`,
    );
  }
  if (e.level === 'handshake' && /no matching/i.test(e.message))
    return at('NEGOTIATION_FAILED', `cannot agree on algorithms: ${e.message.replace(/^Handshake failed: /, '')}`);
  if (/keepalive/i.test(e.message))
    return at('CONNECTION_STALLED', `no keepalive reply after ${limits.keepaliveCountMax} tries`);
  if (e.level === 'client-timeout') return at('TIMEOUT', `timed out after ${limits.readyTimeoutMs} ms`);
  if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return at('CONNECTION_REFUSED', 'connection refused');
  const notFound = hostNotFoundError(e, hop.host);
  if (notFound) return at('HOST_NOT_FOUND', notFound.message);
  return at('CONNECTION_LOST', `connection failed: ${e.message}`);
}

/** Connects and authenticates hop `i` over `sock`; its host key and password are asked of the coordinator. */
function connectHop(
  conn: WorkerConn,
  hop: JumpHopParams,
  i: number,
  sock: Duplex,
  identSent: boolean,
  limits: Limits,
): Promise<Client> {
  const { link } = conn;
  const client = new (ssh2ClientClass())();
  let refusal: SluiceError | null = null;
  const auth = { ...hop.auth, keys: hop.auth.keys.map((k) => ({ ...k, privateKey: Buffer.from(k.privateKey) })) };
  // What the hop's login tried, for -v and its AUTH_FAILED (worker/authTrace.ts), named by the hop.
  const trace = new AuthTrace((message) =>
    link.post({ kind: 'auth-note', message: `jump host ${hop.label}: ${message}` }),
  );
  const base = makeAuthHandler(auth, {
    password: async () => {
      const answer = await link.ask({ kind: 'password', hop: i });
      return answer.kind === 'password-answer' ? answer.password : undefined;
    },
    offered: (what) => trace.offered(what),
    agentKeys: (keys) => trace.listedAgentKeys(keys),
  });
  const authHandler: typeof base = (methodsLeft, partial, next) => {
    trace.answered(methodsLeft, partial);
    return base(methodsLeft, partial, next);
  };
  // A hop's rotated keys are learned as the target's are (OpenSSH PROTOCOL §2.5), under the hop's own name.
  client.on('hostkeys', (keys: Array<{ getPublicSSH(): Buffer }>) => {
    link.post({ kind: 'hostkeys', keys: keys.map((k) => new Uint8Array(k.getPublicSSH())), hop: i });
  });
  return new Promise<Client>((resolve, reject) => {
    client.once('ready', () => {
      trace.succeeded();
      resolve(client);
    });
    client.on('error', (e: Error & { level?: string }) => {
      if (e.level !== 'agent') reject(refusal ?? hopError(e, hop, limits, trace));
    });
    client.once('close', () =>
      reject(refusal ?? new SluiceError('CONNECTION_LOST', `jump host ${hop.label}: connection closed during setup`)),
    );
    const config: PatchedConnectConfig = {
      sock,
      host: hop.host,
      port: hop.port,
      username: hop.username,
      algorithms: hop.algorithms,
      pipelineOpenSSH: true,
      ident: SSH_IDENT_SOFTWARE,
      sluiceIdentSent: identSent,
      keepaliveInterval: limits.keepaliveIntervalMs,
      keepaliveCountMax: limits.keepaliveCountMax,
      readyTimeout: limits.readyTimeoutMs,
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        void link.ask({ kind: 'hostkey', key: new Uint8Array(key), hop: i }).then((answer) => {
          if (answer.kind === 'hostkey-answer' && answer.accept) {
            verify(true);
            return;
          }
          const error = answer.kind === 'hostkey-answer' ? answer.error : undefined;
          refusal = error
            ? SluiceError.fromInfo(error)
            : new SluiceError('HOSTKEY_REJECTED', `jump host ${hop.label}: host key refused`);
          verify(false);
        });
      },
      authHandler,
    };
    client.connect(config);
  });
}

/** Opens a direct-tcpip channel from `client` (hop `hop`) to host:port, within `timeoutMs`. */
function forward(
  client: Client,
  hop: JumpHopParams,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new SluiceError(
            'TIMEOUT',
            `jump host ${hop.label}: no answer within ${timeoutMs} ms to the forwarding to ${hostPortLabel(host, port)}`,
          ),
        ),
      timeoutMs,
    );
    // The originator address and port (RFC 4254 §7.2) are informational; ssh -W sends 127.0.0.1 and 0 alike.
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
      clearTimeout(timer);
      if (err) {
        reject(
          new SluiceError(
            'CONNECTION_LOST',
            `jump host ${hop.label}: cannot reach ${hostPortLabel(host, port)} from there (${err.message})`,
          ),
        );
        return;
      }
      setReceiveWindow(stream, JUMP_CHANNEL_WINDOW);
      resolve(stream);
    });
  });
}

/**
 * Opens the chain of jump hosts to the target: hop 0 over TCP (the preconnected socket when it goes there), each next
 * one over the previous one's forwarding. Once up, a hop's loss fails the connection's operations with its name.
 * @param prepare applied to the first hop's TCP socket (connect.ts coalesceWritesPerTick)
 * @throws SluiceError naming the hop (AUTH_FAILED, HOSTKEY_*, TIMEOUT, CONNECTION_LOST); the hops opened are closed
 */
export async function openJumpChain(
  conn: WorkerConn,
  params: ConnectParams,
  prepare: (sock: Duplex) => void,
): Promise<JumpChain> {
  const jump = params.jump ?? [];
  if (!jump.length) throw new SluiceError('INTERNAL', 'openJumpChain without jump hosts');
  const hops: Client[] = [];
  const first = socketTo(jump[0].host, jump[0].port);
  prepare(first.sock);
  let sock: Duplex = first.sock;
  try {
    for (let i = 0; i < jump.length; i++) {
      const client = await connectHop(conn, jump[i], i, sock, i === 0 && first.identSent, params);
      hops.push(client);
      client.on('error', (e: Error & { level?: string }) => {
        if (e.level !== 'agent') conn.failAll(hopError(e, jump[i], params));
      });
      client.on('close', () =>
        conn.failAll(new SluiceError('CONNECTION_LOST', `jump host ${jump[i].label}: connection lost`)),
      );
      const next = jump[i + 1] ?? params;
      sock = await forward(client, jump[i], next.host, next.port, params.readyTimeoutMs);
    }
  } catch (e) {
    for (const c of hops.reverse()) c.end();
    first.sock.destroy();
    throw e;
  }
  return { sock: sock as ClientChannel, hops, firstSock: first.sock };
}
