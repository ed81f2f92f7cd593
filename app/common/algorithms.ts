/**
 * SSH transport algorithm names (RFC 4253 §7.1 KEXINIT name-lists) that Sluice marks as weak: offered only when
 * the user enables them (a site's algorithm lists, `--cipher` and friends), never by default in the app.
 * Pure data shared by the engine, the service and the renderer.
 */

/** The four KEXINIT families, named as ssh2's `algorithms` option names them. */
export type AlgorithmFamilyName = 'cipher' | 'kex' | 'hmac' | 'serverHostKey';

/**
 * Weak algorithm names per family, each with the reason shown next to it.
 * Sources: RFC 9142 §3.1 (SHA-1 and 1024-bit groups in key exchange), RFC 8758 (RC4), RFC 8332 §3 (ssh-rsa is
 * SHA-1 signatures), OpenSSH release notes 7.4 / 8.8 (CBC ciphers and 3DES off by default, ssh-rsa off by default).
 */
export const WEAK_ALGORITHMS: Readonly<Record<AlgorithmFamilyName, Readonly<Record<string, string>>>> = {
  cipher: {
    '3des-cbc': 'CBC mode and a 64-bit block (Sweet32); off by default since OpenSSH 7.4',
    'aes128-cbc': 'CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4',
    'aes192-cbc': 'CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4',
    'aes256-cbc': 'CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4',
    'blowfish-cbc': 'CBC mode and a 64-bit block',
    'cast128-cbc': 'CBC mode and a 64-bit block',
    arcfour: 'RC4 (RFC 8758)',
    arcfour128: 'RC4 (RFC 8758)',
    arcfour256: 'RC4 (RFC 8758)',
  },
  kex: {
    'diffie-hellman-group1-sha1': '1024-bit group and SHA-1 (RFC 9142)',
    'diffie-hellman-group14-sha1': 'SHA-1 (RFC 9142)',
    'diffie-hellman-group-exchange-sha1': 'SHA-1 (RFC 9142)',
  },
  hmac: {
    'hmac-md5': 'MD5',
    'hmac-md5-96': 'MD5, truncated',
    'hmac-md5-etm@openssh.com': 'MD5',
    'hmac-md5-96-etm@openssh.com': 'MD5, truncated',
    'hmac-sha1-96': 'SHA-1, truncated',
    'hmac-sha1-96-etm@openssh.com': 'SHA-1, truncated',
    'hmac-ripemd160': 'RIPEMD-160, dropped by OpenSSH 7.6',
    'hmac-ripemd160@openssh.com': 'RIPEMD-160, dropped by OpenSSH 7.6',
    'hmac-ripemd160-etm@openssh.com': 'RIPEMD-160, dropped by OpenSSH 7.6',
  },
  serverHostKey: {
    'ssh-rsa': 'RSA with SHA-1 signatures (RFC 8332); off by default since OpenSSH 8.8',
    'ssh-dss': 'DSA, 1024-bit; off by default since OpenSSH 7.0',
  },
};

/**
 * Why an algorithm is weak, or undefined when it is not marked weak.
 * @param family one of the four KEXINIT families
 * @param name an algorithm name as OpenSSH and ssh2 spell it (`aes128-cbc`)
 */
export function weakReason(family: AlgorithmFamilyName, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(WEAK_ALGORITHMS[family], name)
    ? WEAK_ALGORITHMS[family][name]
    : undefined;
}

/** Whether `name` is marked weak in `family` (see {@link WEAK_ALGORITHMS}). */
export function isWeakAlgorithm(family: AlgorithmFamilyName, name: string): boolean {
  return weakReason(family, name) !== undefined;
}

/** The algorithm lists of a site (app/common/model/site.ts) per family, as the site form and the store name them. */
export const SITE_ALGORITHM_FIELDS: Readonly<
  Record<AlgorithmFamilyName, 'ciphers' | 'kex' | 'macs' | 'hostKeyAlgorithms'>
> = {
  cipher: 'ciphers',
  kex: 'kex',
  hmac: 'macs',
  serverHostKey: 'hostKeyAlgorithms',
};

/**
 * Names ssh2 accepts for the same algorithm as another name: `aes128-gcm` / `aes256-gcm` are RFC 5647's AES-GCM, which
 * OpenSSH implements as `aes128-gcm@openssh.com` / `aes256-gcm@openssh.com` (RFC 5647 negotiates the MAC as the
 * cipher's own name, which OpenSSH's variant drops: the MAC is implied). ssh2 lists both spellings of the one cipher
 * (its SUPPORTED_CIPHER), so the site form shows one row, under OpenSSH's name; OpenSSH servers offer only that one.
 */
export const ALGORITHM_ALIASES: Readonly<Record<AlgorithmFamilyName, Readonly<Record<string, string>>>> = {
  cipher: { 'aes128-gcm': 'aes128-gcm@openssh.com', 'aes256-gcm': 'aes256-gcm@openssh.com' },
  kex: {},
  hmac: {},
  serverHostKey: {},
};

/** Every family, in the order the site form shows them. */
export const ALGORITHM_FAMILIES: readonly AlgorithmFamilyName[] = ['cipher', 'kex', 'hmac', 'serverHostKey'];

/** One family of the `algorithms.catalog` answer. */
export interface AlgorithmFamilyCatalog {
  /** Every name this ssh2 (and its OpenSSL) can negotiate, in ssh2's order. */
  supported: string[];
  /** What a site without its own list offers, most preferred first; never a weak name. */
  defaults: string[];
  /** The weak names among `supported`, each with the reason shown next to it. */
  weak: Record<string, string>;
  /** Other spellings ssh2 accepts, left out of `supported`: alias -> the name shown ({@link ALGORITHM_ALIASES}). */
  aliases?: Record<string, string>;
}

/** `algorithms.catalog`: per family, what the engine supports, offers by default, and marks weak. */
export type AlgorithmCatalog = Record<AlgorithmFamilyName, AlgorithmFamilyCatalog>;
