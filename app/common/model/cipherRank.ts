/**
 * The ranking that turns a cipher measurement (model/cipherSpeed.ts) into the default cipher and MAC orders (RFC 4253
 * §7.1: the client's KEXINIT lists, first = preferred): plain functions, without the file's zod schemas.
 */
import { isWeakAlgorithm } from '../algorithms';
import type { CipherSpeedRow } from './cipherSpeed';

/** Names ordered by a score, highest first; ties keep the first-seen order. */
function byScore(scores: Map<string, number>): string[] {
  return [...scores.entries()].map(([name, score], i) => ({ name, score, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i).map((e) => e.name);
}

/**
 * Ciphers from fastest to slowest per core: an AEAD cipher by its own figure, a CTR cipher by its figure with the MAC
 * it would be paired with (a connection takes the first MAC both sides offer: {@link rankMacs}'s first that was
 * measured with it, else its best). Weak ciphers (app/common/algorithms.ts) are left out.
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
  return byScore(new Map([...scores].map(([cipher, s]) => [cipher, s.score])));
}

/** Encrypt-then-MAC (`-etm@openssh.com`, OpenSSH PROTOCOL §1.5): the MAC covers the ciphertext and the length. */
function isEtm(mac: string): boolean {
  return mac.endsWith('-etm@openssh.com');
}

/**
 * MACs for CTR ciphers: the encrypt-then-MAC ones first, as in OpenSSH's default order (encrypt-and-MAC authenticates
 * the plaintext and leaves the packet length unauthenticated), each group from fastest to slowest by the mean per-core
 * figure over the CTR ciphers measured with it (a MAC's cost hardly depends on the cipher; the mean evens out the noise
 * of single rows). Weak MACs are left out.
 * @param rows a measurement's rows (AEAD rows, mac null, are ignored)
 */
export function rankMacs(rows: readonly CipherSpeedRow[]): string[] {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of rows) {
    if (r.mac === null || isWeakAlgorithm('hmac', r.mac)) continue;
    const s = sums.get(r.mac) ?? { sum: 0, n: 0 };
    sums.set(r.mac, { sum: s.sum + r.perCoreMBps, n: s.n + 1 });
  }
  const ranked = byScore(new Map([...sums].map(([mac, s]) => [mac, s.sum / s.n])));
  return [...ranked.filter(isEtm), ...ranked.filter((m) => !isEtm(m))];
}
