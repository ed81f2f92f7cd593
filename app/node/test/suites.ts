/**
 * Server set-ups the test files share: a server with a temporary folder holding a known_hosts file that trusts
 * it, for one test ({@link withTrustedServer}) or a whole file ({@link trustedServerHooks}), and a private sshd
 * behind Toxiproxy with bandwidth-capped proxies ({@link cappedSshdHooks}).
 */
import { after, before } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSshd, type SshdServer } from '../../../e2e/fixtures/sshd';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { startToxiproxy, type Toxiproxy } from '../../../e2e/fixtures/toxiproxy';

/** What the set-ups need of a server: its known_hosts line and a stop. */
export interface ServerLike {
  /** `[127.0.0.1]:PORT algo base64`; `port`: another port (a proxy in front). */
  knownHostsLine(port?: number): string;
  stop(): Promise<void>;
}

/** A running server and a temporary folder with `known_hosts` trusting it. */
export interface TrustedServer<S extends ServerLike> {
  server: S;
  /** The temporary folder (absolute). */
  dir: string;
  /** `<dir>/known_hosts`, holding the server's line. */
  knownHosts: string;
  /** Stops the server and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Starts a server and makes a temporary folder with a known_hosts file that trusts it.
 * @param start e.g. `startSshd`, `startTestServer`, `() => startScriptedServer({ … })`
 * @param tempPrefix the folder's name prefix
 */
export async function serverWithKnownHosts<S extends ServerLike>(
  start: () => Promise<S>,
  tempPrefix: string,
): Promise<TrustedServer<S>> {
  const server = await start();
  let dir: string;
  try {
    dir = await makeTempDir(tempPrefix);
  } catch (e) {
    await server.stop();
    throw e;
  }
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
  return {
    server,
    dir,
    knownHosts,
    stop: async () => {
      await server.stop();
      await removeDir(dir);
    },
  };
}

/**
 * Runs `fn` with {@link serverWithKnownHosts}; stops the server and removes the folder afterwards, whatever `fn` does.
 */
export async function withTrustedServer<S extends ServerLike, T>(
  start: () => Promise<S>,
  tempPrefix: string,
  fn: (t: TrustedServer<S>) => Promise<T>,
): Promise<T> {
  const t = await serverWithKnownHosts(start, tempPrefix);
  try {
    return await fn(t);
  } finally {
    await t.stop();
  }
}

/**
 * A test file's server: {@link serverWithKnownHosts} in a `before()` hook, handed to `use` (which keeps what the file
 * needs and may prepare more: Node 20 runs a file's top-level `before()` hooks concurrently, so a second one could not
 * count on the server), stopped and removed in `after()`.
 * @param skip when truthy (a skip reason), nothing is started
 */
export function trustedServerHooks<S extends ServerLike>(
  start: () => Promise<S>,
  tempPrefix: string,
  use: (t: TrustedServer<S>) => void | Promise<void>,
  skip?: string | false,
): void {
  let t: TrustedServer<S> | undefined;
  before(async () => {
    if (skip) return;
    t = await serverWithKnownHosts(start, tempPrefix);
    await use(t);
  });
  after(async () => {
    await t?.stop();
  });
}

/** A private sshd behind a Toxiproxy, for tests that need a transfer slow enough to be hit while it runs. */
export interface CappedSshd {
  sshd: SshdServer;
  toxi: Toxiproxy;
  /** A temporary folder (absolute). */
  dir: string;
  /**
   * A new proxy in front of sshd with a `bandwidth` toxic on `stream` (`upstream`: what the client sends);
   * returns its name, port and a known_hosts file in `dir` that trusts sshd at that port.
   */
  cappedProxy(
    stream: 'upstream' | 'downstream',
    rateKbps: number,
  ): Promise<{ name: string; port: number; knownHosts: string }>;
}

/**
 * A test file's {@link CappedSshd}: started in a `before()` hook and handed to `use` (which keeps what the file needs
 * and may prepare more, as with {@link trustedServerHooks}), stopped and removed in `after()`.
 * @param skip when truthy (a skip reason, e.g. Toxiproxy not installed), nothing is started
 */
export function cappedSshdHooks(
  tempPrefix: string,
  skip: string | false,
  use: (c: CappedSshd) => void | Promise<void>,
): void {
  let sshd: SshdServer | undefined;
  let toxi: Toxiproxy | undefined;
  let dir: string | undefined;
  before(async () => {
    if (skip) return;
    sshd = await startSshd();
    toxi = await startToxiproxy();
    dir = await makeTempDir(tempPrefix);
    const [s, x, d] = [sshd, toxi, dir];
    let proxyNo = 0;
    await use({
      sshd: s,
      toxi: x,
      dir: d,
      async cappedProxy(stream, rateKbps) {
        const name = `capped-${++proxyNo}`;
        const { port } = await x.createProxy(name, s.port);
        await x.addToxic(name, { type: 'bandwidth', stream, attributes: { rate: rateKbps } });
        const knownHosts = path.join(d, `known_hosts-${name}`);
        fs.writeFileSync(knownHosts, `${s.knownHostsLine(port)}\n`);
        return { name, port, knownHosts };
      },
    });
  });
  after(async () => {
    await toxi?.stop();
    await sshd?.stop();
    if (dir) await removeDir(dir);
  });
}
