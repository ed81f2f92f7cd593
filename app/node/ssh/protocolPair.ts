/**
 * Two ssh2 transport endpoints (lib/protocol/Protocol.js, the layer that frames, pads, encrypts and MACs every SSH
 * packet: RFC 4253 §6) joined in memory, a client and a server pinned to one cipher and MAC, for timing that layer
 * without sockets (the cipher benchmark, issue #15). The key exchange is curve25519-sha256 with a fresh ed25519 host
 * key; after it, {@link ProtocolPair.send} passes CHANNEL_DATA packets client → server and the caller decides when the
 * server decrypts them ({@link ProtocolPair.deliver}), so encryption and decryption can be timed apart.
 */
import { utils } from 'ssh2';
import { ssh2ProtocolClass, type Ssh2Protocol } from '../ssh2x';
/** ssh2's onWrite: `cb` (Sluice's patch) is called once the packet is "written", which frees its slab for reuse. */
type Written = [Buffer, (() => void) | undefined];

let hostKey: unknown;
/**
 * An ed25519 host key for the server side (made once per thread). About 1 in 256 keys ssh2 1.17.0 generates do not
 * parse (its keygen strips a leading zero byte of the public key: mscdex/ssh2#1513), and the server then failed the
 * key exchange with "this._hostKey.getPublicSSH is not a function": another key is made. Bounded: 50 tries.
 */
function serverHostKey(): unknown {
  for (let i = 0; hostKey === undefined && i < 50; i++) {
    const parsed = utils.parseKey(utils.generateKeyPairSync('ed25519').private);
    if (!(parsed instanceof Error)) hostKey = parsed;
  }
  if (hostKey === undefined) throw new Error('ssh2 generated 50 ed25519 host keys its own parser refuses');
  return hostKey;
}

/** A client and a server transport in one thread, joined in memory. */
export interface ProtocolPair {
  /** The client sends one SSH_MSG_CHANNEL_DATA (RFC 4254 §5.2) with `data`; it is encrypted now, delivered later. */
  send(data: Buffer): void;
  /** The server parses (decrypts, checks the MAC of) every packet sent since the last call. */
  deliver(): void;
  /** CHANNEL_DATA payload bytes the server has received. */
  readonly received: number;
  close(): void;
}

/** Parses every packet queued for `to`, freeing each one's slab as it goes. */
function drain(q: Written[], to: Ssh2Protocol): void {
  while (q.length) {
    const [d, cb] = q.shift()!;
    to.parse(d, 0, d.length);
    cb?.();
  }
}

/** The memory between the two transports: what each end wrote, until the other parses it; the handshake's state. */
class MemoryWire {
  readonly toServer: Written[] = [];
  readonly toClient: Written[] = [];
  /** After the handshake: packets are queued as written (their slabs are freed once parsed). */
  bulk = false;
  failed: Error | undefined;
  private handshakes = 0;
  private wake: () => void = () => undefined;
  /** Callbacks both ends share: a failure or a completed handshake wakes {@link handshake}. */
  readonly events = {
    onError: (e: Error) => {
      this.failed ??= e;
      this.wake();
    },
    onHandshakeComplete: () => {
      this.handshakes++;
      this.wake();
    },
  };

  /** ssh2's onWrite into `q`: during the handshake every write is copied (ssh2 may reuse its buffers). */
  writer(q: Written[]): (data: Buffer, cb?: () => void) => void {
    return (data, cb) => {
      q.push(this.bulk ? [data, cb] : [Buffer.from(data), cb]);
      this.wake();
    };
  }

  /** Passes packets both ways until both ends completed the key exchange or one failed. */
  async handshake(client: Ssh2Protocol, server: Ssh2Protocol): Promise<void> {
    while (this.handshakes < 2 && !this.failed) {
      if (this.toServer.length || this.toClient.length) {
        drain(this.toServer, server);
        drain(this.toClient, client);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setImmediate(resolve);
      });
    }
    drain(this.toServer, server);
    drain(this.toClient, client);
  }
}

/**
 * Makes a pair and runs its key exchange.
 * @param cipher a cipher name ssh2 supports (`aes128-gcm@openssh.com`, `aes256-ctr`)
 * @param mac a MAC name for a non-AEAD cipher; ignored by AEAD ciphers
 * @throws Error when the key exchange fails (e.g. a name this ssh2 or OpenSSL does not support)
 */
export async function openProtocolPair(cipher: string, mac: string): Promise<ProtocolPair> {
  const Protocol = ssh2ProtocolClass();
  const lists = { cipher: [cipher], mac: [mac], compress: ['none'], lang: [] as string[] };
  const offer = () => ({
    kex: ['curve25519-sha256'],
    serverHostKey: ['ssh-ed25519'],
    cs: { ...lists },
    sc: { ...lists },
  });
  let received = 0;
  const wire = new MemoryWire();
  const handlers = {
    CHANNEL_DATA: (_self: unknown, _chan: number, data: Buffer) => {
      received += data.length;
    },
  };
  const common = { ...wire.events, messageHandlers: handlers };
  const client = new Protocol({
    ...common,
    offer: offer(),
    onWrite: wire.writer(wire.toServer),
    hostVerifier: (_k: unknown, cb: (ok: boolean) => void) => cb(true),
  });
  const server = new Protocol({
    ...common,
    server: true,
    hostKeys: { 'ssh-ed25519': serverHostKey() },
    offer: offer(),
    onWrite: wire.writer(wire.toClient),
  });
  client.start?.();
  server.start?.();
  await wire.handshake(client, server);
  if (wire.failed) {
    client.cleanup();
    server.cleanup();
    throw new Error(`key exchange with ${cipher}${mac ? ` + ${mac}` : ''} failed: ${wire.failed.message}`);
  }
  wire.bulk = true;
  return {
    send: (data) => client.channelData(0, data),
    deliver: () => drain(wire.toServer, server),
    get received() {
      return received;
    },
    close: () => {
      client.cleanup();
      server.cleanup();
    },
  };
}
