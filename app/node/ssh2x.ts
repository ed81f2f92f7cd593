/**
 * The one door to ssh2's insides: every private field Sluice reads or writes and every method the patch adds
 * (`patches/ssh2+1.17.0.patch`, applied by `patch-package` on install; `ssh2` is pinned to that version) is reached
 * through this module, with its type declared here. {@link assertSsh2Patched} checks at connect time that the patch
 * is there, so an unpatched install fails with a message naming the fix instead of a TypeError mid-transfer.
 */
import type { Client, ClientChannel, ConnectConfig, ParsedKey, SFTPWrapper } from 'ssh2';
import { SluiceError } from './errors';

// ssh2's modules below are required on first use, each alone: the coordinating thread never needs the rest of ssh2
// (client, server, agent), and loading it costs start-up time on every CLI run.

/** ssh2's key parser (lib/protocol/keyParser, what `utils.parseKey` re-exports): an Error when the data is no key. */
export function ssh2ParseKey(data: Buffer | string, passphrase?: string | Buffer): ParsedKey | ParsedKey[] | Error {
  const { parseKey } = require('ssh2/lib/protocol/keyParser') as { parseKey: typeof ssh2ParseKey };
  return parseKey(data, passphrase);
}

/** ssh2's algorithm lists (lib/protocol/constants.js), filtered by what this Node/OpenSSL build can do. */
export interface Ssh2Constants {
  SUPPORTED_CIPHER: string[];
  SUPPORTED_KEX: string[];
  SUPPORTED_MAC: string[];
  SUPPORTED_SERVER_HOST_KEY: string[];
  DEFAULT_KEX: string[];
  DEFAULT_MAC: string[];
  DEFAULT_SERVER_HOST_KEY: string[];
}

/** ssh2's algorithm lists, read when first asked for (~50 ms). */
export function ssh2Constants(): Ssh2Constants {
  return require('ssh2/lib/protocol/constants') as Ssh2Constants;
}

/** What is used of ssh2's transport class (lib/protocol/Protocol.js: framing, padding, cipher, MAC; RFC 4253 §6). */
export interface Ssh2Protocol {
  start?: () => void;
  parse(chunk: Buffer, i: number, len: number): void;
  channelData(chan: number, data: Buffer): void;
  cleanup(): void;
}

/** ssh2's transport class, for in-memory endpoints (ssh/protocolPair.ts). */
export function ssh2ProtocolClass(): new (config: Record<string, unknown>) => Ssh2Protocol {
  return require('ssh2/lib/protocol/Protocol.js') as new (config: Record<string, unknown>) => Ssh2Protocol;
}

/** The CHANNEL_DATA payload size ssh2 sends at most (lib/Channel.js PACKET_SIZE), bytes. */
export function ssh2PacketSize(): number {
  return (require('ssh2/lib/Channel.js') as { PACKET_SIZE: number }).PACKET_SIZE;
}

/**
 * ssh2's client class (lib/client.js) alone: the package's index also loads its server, key generator, agents and
 * HTTP agents (node:http, node:https, node:tls), ~2 MiB more in each connection worker's heap (issue #28).
 */
export function ssh2ClientClass(): typeof Client {
  return require('ssh2/lib/client.js') as typeof Client;
}

/** ssh2's agent clients (lib/agent.js) alone, without the rest of its index (see {@link ssh2ClientClass}). */
export function ssh2Agents(): Pick<typeof import('ssh2'), 'OpenSSHAgent' | 'PageantAgent' | 'CygwinAgent'> {
  return require('ssh2/lib/agent.js') as Pick<typeof import('ssh2'), 'OpenSSHAgent' | 'PageantAgent' | 'CygwinAgent'>;
}

/** ssh2's SSH_FXP_OPEN flag values (lib/protocol/SFTP.js, what `utils.sftp.OPEN_MODE` re-exports). */
export function ssh2OpenMode(): typeof import('ssh2').utils.sftp.OPEN_MODE {
  return (require('ssh2/lib/protocol/SFTP.js') as { OPEN_MODE: typeof import('ssh2').utils.sftp.OPEN_MODE }).OPEN_MODE;
}

/** The installed ssh2's version (its package.json). */
export function ssh2Version(): string {
  return (require('ssh2/package.json') as { version: string }).version;
}

/** ssh2's connect options with the ones the patch adds (lib/client.js). */
export interface PatchedConnectConfig extends ConnectConfig {
  /**
   * With OpenSSH, Dropbear, ProFTPD mod_sftp or SFTPGo, send the set-up's requests without waiting for each answer
   * (docs/round-trips.md).
   */
  pipelineOpenSSH?: boolean;
  /** Our identification string already left on `sock` (ssh/preconnect.ts): ssh2 does not send it again. */
  sluiceIdentSent?: boolean;
}

/** The methods the patch adds to ssh2's SFTP class (lib/protocol/SFTP.js). */
export interface PatchedSftp {
  /**
   * An SSH_FXP_READ whose buffer `alloc` provides only when its DATA reply arrives (len bytes at most). A buffer with
   * room for the whole reply (len + 9 bytes) may get it reassembled in it: `buffer` is then a view of it from byte 9.
   */
  sluiceReadInto(
    handle: Buffer,
    len: number,
    position: number,
    alloc: (len: number) => Buffer,
    cb: (err: Error | undefined, bytesRead: number, buffer: Buffer | undefined) => void,
  ): void;
  /**
   * A whole SSH_FXP_WRITE packet for `len` data bytes; the caller fills the data part (the buffer's last len bytes).
   */
  sluiceWriteBuffer(handle: Buffer, len: number): Buffer;
  /** Sends a packet from sluiceWriteBuffer for file offset `position`; true when ssh2 sent it at once (as write()). */
  sluiceSendWrite(out: Buffer, position: number, cb: (err?: Error) => void): boolean;
  /** Any SSH_FXP_EXTENDED request; the callback gets the EXTENDED_REPLY's bytes after the request id. */
  sluiceExtended(name: string, data: Buffer, cb: (e: Error | undefined, reply?: Buffer) => void): void;
}

const PATCHED_METHODS: ReadonlyArray<keyof PatchedSftp> = [
  'sluiceReadInto',
  'sluiceWriteBuffer',
  'sluiceSendWrite',
  'sluiceExtended',
];

/**
 * Throws unless ssh2's SFTP class carries the patch's methods.
 * @param sftpPrototype the class prototype to check; default ssh2's own (`ssh2/lib/protocol/SFTP.js`)
 * @throws SluiceError REMOTE_FAILURE naming the missing methods and `npx patch-package`
 */
export function assertSsh2Patched(sftpPrototype?: object): void {
  const proto =
    sftpPrototype ?? (require('ssh2/lib/protocol/SFTP.js') as { SFTP: { prototype: object } }).SFTP.prototype;
  const missing = PATCHED_METHODS.filter((m) => typeof (proto as Record<string, unknown>)[m] !== 'function');
  if (missing.length) {
    throw new SluiceError(
      'REMOTE_FAILURE',
      `ssh2 is not patched (missing ${missing.join(', ')}): run \`npx patch-package\` in the ` +
        'Sluice folder to apply patches/ssh2+1.17.0.patch (npm install does it unless install scripts are disabled)',
    );
  }
}

/** The patched methods of an SFTP channel (after {@link assertSsh2Patched}). */
export function patched(sftp: SFTPWrapper): PatchedSftp {
  return sftp as unknown as PatchedSftp;
}

/** What the server announced in SSH_FXP_VERSION, and the request sizes ssh2 took from `limits@openssh.com`. */
export function sftpLimits(sftp: SFTPWrapper): {
  maxReadLen: number;
  maxWriteLen: number;
  extensions: Record<string, string>;
} {
  const s = sftp as unknown as { _maxReadLen: number; _maxWriteLen: number; _extensions: Record<string, string> };
  return { maxReadLen: s._maxReadLen, maxWriteLen: s._maxWriteLen, extensions: { ...s._extensions } };
}

/**
 * The server's SSH software version from its identification string (`OpenSSH_9.2p1 …`, `mod_sftp`), '' before it came.
 */
export function serverSoftware(conn: Client | SFTPWrapper): string {
  const c = conn as unknown as { _remoteVer?: string; _client?: { _remoteVer?: string } };
  return c._remoteVer ?? c._client?._remoteVer ?? '';
}

/**
 * The server's whole identification line (RFC 4253 §4.2: `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3`, comments included),
 * without its CR LF; '' before it came. ssh2 keeps it as `_protocol._remoteIdentRaw` (hashed into the key exchange).
 */
export function serverIdent(client: Client): string {
  const raw = (client as unknown as { _protocol?: { _remoteIdentRaw?: Buffer } })._protocol?._remoteIdentRaw;
  if (raw) return raw.toString('latin1').replace(/[\r\n]+$/, '');
  const software = serverSoftware(client);
  return software ? `SSH-2.0-${software}` : '';
}

/**
 * Sends `keepalive@openssh.com` (OpenSSH PROTOCOL §2.2) and calls `onReply` when it is answered: ssh2 matches global
 * replies to its `_callbacks` queue in order (RFC 4254 §4), as its own keepalive does.
 * @returns false when the internals are missing (nothing was sent)
 */
export function sendPing(client: Client, onReply: () => void): boolean {
  const c = client as unknown as { _callbacks?: Array<(hadErr: boolean) => void>; _protocol?: { ping(): void } };
  if (!Array.isArray(c._callbacks) || typeof c._protocol?.ping !== 'function') return false;
  c._callbacks.push(() => onReply());
  c._protocol.ping();
  return true;
}

/** Sends SSH_MSG_IGNORE (RFC 4253 §11.2), when the connection's protocol object is there. */
export function sendIgnore(client: unknown): void {
  (client as { _protocol?: { ignore?: () => void } })._protocol?.ignore?.();
}

/** True while SFTP requests on the channel await a reply (ssh2 keeps them in `_requests`). */
export function awaitingReplies(sftp: SFTPWrapper): boolean {
  const reqs = (sftp as unknown as { _requests: Record<string, unknown> })._requests;
  for (const _ in reqs) return true;
  return false;
}

/** Calls `onData` whenever the channel receives data (wraps the stream's push). */
export function onChannelData(sftp: SFTPWrapper, onData: () => void): void {
  const inner = sftp as unknown as { push(data: Buffer | null): boolean };
  const push = inner.push.bind(inner);
  inner.push = (data) => {
    onData();
    return push(data);
  };
}

/**
 * Sets a channel's receive window (RFC 4254 §5.2; an SFTP channel, or a jump host's direct-tcpip channel): the patch
 * makes ssh2's window adjustments top up to `incoming.maxWindow`, so the next data packet sends the larger
 * SSH_MSG_CHANNEL_WINDOW_ADJUST.
 */
export function setReceiveWindow(sftp: SFTPWrapper | ClientChannel, bytes: number): void {
  (sftp as unknown as { incoming: { maxWindow?: number } }).incoming.maxWindow = bytes;
}

/**
 * Marks an `sftp()` callback so that the patched ssh2 calls `early` with the channel right after SSH_FXP_INIT is
 * queued (OpenSSH servers: requests sent then share the set-up's round trips).
 */
export function withEarlyHook<T extends (...a: never[]) => unknown>(done: T, early: (s: SFTPWrapper) => void): T {
  return Object.assign(done, { _sluiceEarly: early });
}

/**
 * Stops ssh2's ready timer (`readyTimeout`: connect + handshake + authentication, the private `_readyTimeout`) while
 * a person answers a login question, so the time they take does not count against it.
 * @param ms the timer's full time, armed again by the returned resume() (ssh2's own error then: level client-timeout)
 * @returns resume(): arms the timer again, unless set-up already ended (ssh2 clears `_readyTimeout` on ready)
 */
export function holdReadyTimeout(client: Client, sock: { destroy(): void }, ms: number): () => void {
  const c = client as unknown as { _readyTimeout?: ReturnType<typeof setTimeout> };
  if (c._readyTimeout === undefined) return () => undefined;
  clearTimeout(c._readyTimeout);
  c._readyTimeout = undefined;
  return () => {
    if (ms <= 0) return;
    c._readyTimeout = setTimeout(() => {
      client.emit(
        'error',
        Object.assign(new Error('Timed out while waiting for handshake'), { level: 'client-timeout' }),
      );
      sock.destroy();
    }, ms);
  };
}

/** One channel's SSH flow-control state (RFC 4254 §5.2), as ssh2 keeps it. */
export interface ChannelWindow {
  /** Bytes we may still send before the peer's SSH_MSG_CHANNEL_WINDOW_ADJUST (`outgoing.window`). */
  outgoing: number;
  /** Data of ours queued in ssh2 because that window ran out (SFTP `_buffer` non-empty, or `_waitWindow` set). */
  waitingForWindow: boolean;
  /** Bytes the peer may still send us (`incoming.window`, counting adjustments we have sent). */
  incoming: number;
  /** The receive window we top up to (`incoming.maxWindow`, set by {@link setReceiveWindow}; else ssh2's 2 MiB). */
  incomingMax: number;
}

/**
 * The flow-control state of SFTP channels, read from ssh2's private fields (`outgoing.window`, `incoming.window`,
 * `_waitWindow`, `_buffer`); a channel without them reads as 0 / not waiting.
 */
export function channelWindows(channels: ReadonlyArray<SFTPWrapper>): ChannelWindow[] {
  return channels.map((ch) => {
    const c = ch as unknown as {
      outgoing?: { window?: number; state?: string };
      incoming?: { window?: number; maxWindow?: number };
      _waitWindow?: boolean;
      _buffer?: unknown[];
    };
    const open = c.outgoing?.state === undefined || c.outgoing.state === 'open';
    return {
      outgoing: c.outgoing?.window ?? 0,
      waitingForWindow: open && (c._waitWindow === true || (c._buffer?.length ?? 0) > 0),
      incoming: c.incoming?.window ?? 0,
      incomingMax: c.incoming?.maxWindow || 2 * 1024 * 1024,
    };
  });
}
