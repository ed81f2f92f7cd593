/**
 * The errors of a connection's set-up, as the user reads them: authentication refused (and why: the tries the server
 * allows), no algorithm in common, a timeout, a refusal, a name not found, a connection lost.
 */
import { SluiceError, displayText, hostNotFoundError } from '../../errors';
import type { ConnectParams } from '../workerProtocol';
import type { AuthTrace } from './authTrace';

/**
 * The error a connection failed with, as a SluiceError.
 * @param logins passwords or keyboard-interactive logins tried and refused so far during set-up: a server that closes
 *   the connection after refusing one reached its limit of tries (OpenSSH: MaxAuthTries, "Too many authentication
 *   failures")
 */
export function connectionError(
  e: Error & { level?: string },
  params: ConnectParams,
  logins: LoginTally = { tried: 0, refused: 0 },
  trace?: AuthTrace,
): SluiceError {
  const where = `${params.host}:${params.port}`;
  if (e instanceof SluiceError) return e;
  if (e.level === 'client-authentication') {
    return trace
      ? trace.failure(`${params.username}@${where}`)
      : new SluiceError(
          'AUTH_FAILED',
          `authentication failed for ${params.username}@${where}: all offered methods were refused`,
        );
  }
  const negotiation = negotiationError(e, where, params.algorithms);
  if (negotiation) return negotiation;
  if (/too many authentication failures/i.test(e.message) || (logins.refused > 0 && e.level !== 'client-timeout')) {
    return tooManyTries(params, logins.tried, e.message);
  }
  // ssh2 reports a keepalive timeout with level 'client-timeout' too: test for it first.
  if (/keepalive/i.test(e.message)) {
    return new SluiceError(
      'CONNECTION_STALLED',
      `connection to ${where} stalled: no keepalive reply after ${params.keepaliveCountMax} tries`,
    );
  }
  if (e.level === 'client-timeout') {
    return new SluiceError('TIMEOUT', `timed out connecting to ${where} after ${params.readyTimeoutMs} ms`);
  }
  // A connection never made is not lost: its own codes (a refusal stays transient: a server restarting refuses a
  // while).
  if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
    return new SluiceError('CONNECTION_REFUSED', `connection refused by ${where}`);
  }
  const notFound = hostNotFoundError(e, params.host);
  if (notFound) return notFound;
  return new SluiceError('CONNECTION_LOST', `connection to ${where} failed: ${e.message}`);
}

/** ssh2's handshake text `no matching C->S cipher` -> the family of ssh2's `algorithms` option it is about. */
const NEGOTIATED_FAMILIES: ReadonlyArray<[RegExp, string, string]> = [
  [/no matching key exchange/i, 'kex', 'key exchange method'],
  [/no matching host key/i, 'serverHostKey', 'host-key algorithm'],
  [/no matching .*cipher/i, 'cipher', 'cipher'],
  [/no matching .*MAC/i, 'hmac', 'MAC'],
];

/**
 * NEGOTIATION_FAILED for a key exchange that found no algorithm both sides accept (RFC 4253 §7.1), naming the family
 * and what Sluice offered (the server's own list is not reported by ssh2); undefined for any other error.
 * @param offered the connection's ssh2 `algorithms` option (each family's names, most preferred first)
 */
export function negotiationError(
  e: Error & { level?: string },
  where: string,
  offered?: ConnectParams['algorithms'],
): SluiceError | undefined {
  if (e.level !== 'handshake' || !/no matching/i.test(e.message)) return undefined;
  const found = NEGOTIATED_FAMILIES.find(([re]) => re.test(e.message));
  const list = found ? (offered as Record<string, unknown> | undefined)?.[found[1]] : undefined;
  const names = Array.isArray(list) ? ` (offered: ${list.join(', ')})` : '';
  const what = found ? `the server accepts no ${found[2]} Sluice offered${names}` : 'no algorithm both sides accept';
  const said = e.message.replace(/^Handshake failed: /, '');
  return new SluiceError('NEGOTIATION_FAILED', `cannot agree on algorithms with ${where}: ${what} [${said}]`);
}

/** Password and keyboard-interactive logins of a connection's set-up: sent, and refused by the server. */
export interface LoginTally {
  tried: number;
  refused: number;
}

/** AUTH_FAILED for a server that closed the connection after refusing passwords or codes: its limit of tries. */
export function tooManyTries(params: ConnectParams, tried: number, serverText?: string): SluiceError {
  const tries = tried > 0 ? ` after ${tried} password or keyboard-interactive tries` : '';
  return new SluiceError(
    'AUTH_FAILED',
    `authentication failed for ${params.username}@${params.host}:${params.port}: ` +
      `the server closed the connection${tries}` +
      ` (its limit of tries, e.g. OpenSSH's MaxAuthTries)${serverText ? `: ${displayText(serverText, 200)}` : ''}`,
  );
}
