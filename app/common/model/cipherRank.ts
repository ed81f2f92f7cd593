/**
 * The ranking that turns a cipher measurement (model/cipherSpeed.ts) into the default cipher and MAC orders (RFC 4253
 * §7.1: the client's KEXINIT lists, first = preferred): plain functions, without the file's zod schemas.
 */
import { isWeakAlgorithm } from '../algorithms';
import type { CipherSpeedRow } from './cipherSpeed';

/**
 * Figures closer than this fraction of the faster one are a tie: repeated measurements of one machine differ by up to
 * ~3 % (the two AES-GCM key sizes swapped places from one run to the next), and a default order must not flip with
 * them.
 */
export const TIE_FRACTION = 0.05;

/** OpenSSH's default client orders (ssh_config(5) `Ciphers`, `MACs`), which break ties. */
const OPENSSH_CIPHERS = [
  'chacha20-poly1305@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
];
const OPENSSH_MACS = [
  'umac-64-etm@openssh.com',
  'umac-128-etm@openssh.com',
  'hmac-sha2-256-etm@openssh.com',
  'hmac-sha2-512-etm@openssh.com',
  'hmac-sha1-etm@openssh.com',
  'umac-64@openssh.com',
  'umac-128@openssh.com',
  'hmac-sha2-256',
  'hmac-sha2-512',
  'hmac-sha1',
];

/**
 * Names ordered by a score, highest first. Names within {@link TIE_FRACTION} of a group's fastest form a tie, ordered
 * by `prefer` (names not in it after those in it, by score).
 */
function byScore(scores: Map<string, number>, prefer: readonly string[]): string[] {
  const rank = (name: string): number => {
    const i = prefer.indexOf(name);
    return i < 0 ? prefer.length : i;
  };
  const sorted = [...scores.entries()].map(([name, score]) => ({ name, score })).sort((a, b) => b.score - a.score);
  const out: string[] = [];
  for (let start = 0; start < sorted.length;) {
    let end = start + 1;
    while (end < sorted.length && sorted[end].score >= sorted[start].score * (1 - TIE_FRACTION)) end++;
    out.push(
      ...sorted
        .slice(start, end)
        .sort((a, b) => rank(a.name) - rank(b.name) || b.score - a.score)
        .map((e) => e.name),
    );
    start = end;
  }
  return out;
}

/**
 * Ciphers from fastest to slowest per core: an AEAD cipher by its own figure, a CTR cipher by its figure with the MAC
 * it would be paired with (a connection takes the first MAC both sides offer: {@link rankMacs}'s first that was
 * measured with it, else its best). Figures within {@link TIE_FRACTION} of each other tie, in OpenSSH's order. Weak
 * ciphers (app/common/algorithms.ts) are left out.
 * @param rows a measurement's rows
 */
export function rankCiphers(rows: readonly CipherSpeedRow[]): string[] {
  const macs = rankMacs(rows);
  const scores = new Map<string, { score: number; macRank: number }>();
  for (const r of rows) {
    if (isWeakAlgorithm('cipher', r.cipher) || (r.mac !== null && isWeakAlgorithm('hmac', r.mac))) continue;
    const macRank = r.mac === null ? 0 : macs.indexOf(r.mac);
    const seen = scores.get(r.cipher);
    const better = !seen || macRank < seen.macRank || (macRank === seen.macRank && r.perCoreMBps > seen.score);
    if (better) scores.set(r.cipher, { score: r.perCoreMBps, macRank });
  }
  return byScore(new Map([...scores].map(([cipher, s]) => [cipher, s.score])), OPENSSH_CIPHERS);
}

/** Encrypt-then-MAC (`-etm@openssh.com`, OpenSSH PROTOCOL §1.5): the MAC covers the ciphertext and the length. */
function isEtm(mac: string): boolean {
  return mac.endsWith('-etm@openssh.com');
}

/**
 * MACs for CTR ciphers: the encrypt-then-MAC ones first, as in OpenSSH's default order (encrypt-and-MAC authenticates
 * the plaintext and leaves the packet length unauthenticated), each group from fastest to slowest by the mean per-core
 * figure over the CTR ciphers measured with it (a MAC's cost hardly depends on the cipher; the mean evens out the noise
 * of single rows); ties within {@link TIE_FRACTION} in OpenSSH's order. Weak MACs are left out.
 * @param rows a measurement's rows (AEAD rows, mac null, are ignored)
 */
export function rankMacs(rows: readonly CipherSpeedRow[]): string[] {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of rows) {
    if (r.mac === null || isWeakAlgorithm('hmac', r.mac)) continue;
    const s = sums.get(r.mac) ?? { sum: 0, n: 0 };
    sums.set(r.mac, { sum: s.sum + r.perCoreMBps, n: s.n + 1 });
  }
  const ranked = byScore(new Map([...sums].map(([mac, s]) => [mac, s.sum / s.n])), OPENSSH_MACS);
  return [...ranked.filter(isEtm), ...ranked.filter((m) => !isEtm(m))];
}
