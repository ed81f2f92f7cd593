/**
 * The servers a bench script runs against: a private sshd, and when asked Toxiproxy in front of it with 25 ms each
 * way (50 ms RTT), both trusted through one known_hosts file, and a client environment with its own HOME and no
 * ssh-agent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSshd, type SshdServer } from '../e2e/fixtures/sshd';
import { startToxiproxy, type Toxiproxy } from '../e2e/fixtures/toxiproxy';

export interface BenchServers {
  sshd: SshdServer;
  /** known_hosts trusting the sshd, directly and through the proxy. */
  knownHosts: string;
  /** Port of the 50 ms RTT proxy; 0 without one. */
  rttPort: number;
  /** The client's environment: HOME in the scratch folder, no SSH_AUTH_SOCK. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * Starts the servers, writing known_hosts and HOME under `base`.
 * @param rtt also start Toxiproxy with 25 ms latency each way in front of the sshd
 */
export async function startBenchServers(base: string, rtt: boolean): Promise<BenchServers> {
  const sshd = await startSshd();
  let toxi: Toxiproxy | undefined;
  const stop = async () => {
    await toxi?.stop();
    await sshd.stop();
  };
  try {
    const knownHosts = path.join(base, 'known_hosts');
    fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
    let rttPort = 0;
    if (rtt) {
      toxi = await startToxiproxy();
      rttPort = (await toxi.createProxy('sshd', sshd.port)).port;
      for (const stream of ['upstream', 'downstream'] as const)
        await toxi.addToxic('sshd', { type: 'latency', stream, attributes: { latency: 25, jitter: 0 } });
      fs.appendFileSync(knownHosts, `${sshd.knownHostsLine(rttPort)}\n`);
    }
    const home = path.join(base, 'home');
    fs.mkdirSync(home);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete env.SSH_AUTH_SOCK;
    return { sshd, knownHosts, rttPort, env, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
