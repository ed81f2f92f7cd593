/**
 * The facts a cipher measurement is only valid for (issue #15): CPU model, cores, AES instructions, OS, and the Node,
 * OpenSSL and ssh2 versions whose code does the work. A measurement stored with other facts is not used.
 */
import os from 'node:os';
import type { MachineFacts } from '../../common/model/cipherSpeed';
import { ssh2Version } from '../ssh2x';
import { detectAes } from './cpuAes';

let cached: MachineFacts | undefined;

/** This machine's facts (computed once per process). */
export function machineFacts(): MachineFacts {
  if (cached) return cached;
  const cpus = os.cpus();
  const ssh2 = ssh2Version();
  cached = {
    cpuModel: (cpus[0]?.model ?? 'unknown').trim().replace(/\s+/g, ' '),
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : Math.max(1, cpus.length),
    aes: detectAes().aes ?? null,
    platform: process.platform,
    arch: process.arch,
    node: process.versions.node,
    openssl: process.versions.openssl ?? 'none',
    ssh2,
  };
  return cached;
}
