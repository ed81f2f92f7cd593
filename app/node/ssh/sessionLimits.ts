/**
 * Servers' session limits, remembered per host: the SFTP channels one SSH connection could open before the server
 * refused the next (OpenSSH's MaxSessions, sshd_config(5), default 10). The adaptive pool (poolGrowth.ts) learns
 * one when a channel open is refused and never asks past it again, in this process or a later one
 * (`<data>/session-limits.json`, at most {@link MAX_HOSTS} hosts, the latest kept).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Hosts kept in the file; the oldest entries go first. */
export const MAX_HOSTS = 500;

const FILE = 'session-limits.json';
const loaded = new Map<string, Map<string, number>>();

function keyOf(host: string, port: number): string {
  return `${host}:${port}`;
}

function limitsIn(dataDir: string): Map<string, number> {
  let m = loaded.get(dataDir);
  if (m) return m;
  m = new Map();
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8')) as unknown;
    if (raw && typeof raw === 'object')
      for (const [k, v] of Object.entries(raw).slice(-MAX_HOSTS))
        if (Number.isInteger(v) && (v as number) >= 1) m.set(k, v as number);
  } catch {
    // No file yet, or one we cannot read: nothing is known (the limit is learned again).
  }
  loaded.set(dataDir, m);
  return m;
}

/** The channels per connection `host:port` allowed when last refused one, if known. */
export function sessionLimitOf(dataDir: string, host: string, port: number): number | undefined {
  return limitsIn(dataDir).get(keyOf(host, port));
}

/**
 * Remembers that `host:port` refused a channel with `channels` open on one connection (written at once; a write that
 * fails keeps the limit for this process only).
 */
export function rememberSessionLimit(dataDir: string, host: string, port: number, channels: number): void {
  const m = limitsIn(dataDir);
  const k = keyOf(host, port);
  m.delete(k);
  m.set(k, channels);
  while (m.size > MAX_HOSTS) m.delete(m.keys().next().value!);
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = path.join(dataDir, `${FILE}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(m)));
    fs.renameSync(tmp, path.join(dataDir, FILE));
  } catch {
    // Read-only data folder: the limit holds for this process.
  }
}
