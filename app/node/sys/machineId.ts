/**
 * This machine's identity for telling "the same host" apart from a host name, which is not stable: a Mac's name
 * follows the network it is on (`MacBook-Pro.local`, `MacBook-Pro-2.local`, a DHCP name), and a renamed PC keeps its
 * processes. The operating system's own machine ID, hashed (systemd's machine-id(5) asks that it not be shown raw):
 * Linux `/etc/machine-id`, macOS the IOPlatformUUID (`ioreg`), Windows the MachineGuid (registry). Read once.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

let cached: string | undefined | null;

function rawMachineId(platform: NodeJS.Platform): string | undefined {
  try {
    if (platform === 'linux') {
      for (const f of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
        const id = fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim() : '';
        if (id) return id;
      }
      return undefined;
    }
    if (platform === 'darwin') {
      const out = execFileSync('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice'], { encoding: 'utf8', timeout: 2000 });
      return /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(out)?.[1];
    }
    if (platform === 'win32') {
      const out = execFileSync('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid'], {
        encoding: 'utf8',
        timeout: 2000,
        windowsHide: true,
      });
      return /MachineGuid\s+REG_SZ\s+(\S+)/.exec(out)?.[1];
    }
  } catch {
    // no such tool or file: the host name alone
  }
  return undefined;
}

/** 16 hex digits of the SHA-256 of the machine ID, or undefined where there is none. */
export function machineId(platform: NodeJS.Platform = process.platform): string | undefined {
  if (cached === undefined) {
    const raw = rawMachineId(platform);
    cached = raw ? createHash('sha256').update(`sluice:${raw}`).digest('hex').slice(0, 16) : null;
  }
  return cached ?? undefined;
}

/** How a lease names this host: `name [id]` (the id when there is one). */
export function hostLabel(name: string = os.hostname(), id: string | null = machineId() ?? null): string {
  return id ? `${name} [${id}]` : name;
}

/**
 * Whether two host labels name the same machine: by the id where both have one (a renamed host is still itself),
 * else by the name (a lease of an older build, a machine without an id).
 */
export function sameHost(a: string, b: string): boolean {
  const parse = (s: string) => {
    const m = /^(.*)\s\[([0-9a-f]{16})\]$/.exec(s);
    return m ? { name: m[1], id: m[2] } : { name: s, id: undefined };
  };
  const pa = parse(a);
  const pb = parse(b);
  return pa.id && pb.id ? pa.id === pb.id : pa.name === pb.name;
}
