/**
 * What the site form's "Test connection" (`sites.test`) reports: the negotiated algorithms, the server's software
 * version, the round trip and the home folder of a connection made with the form's settings — or the step that failed
 * with the error. Pure data shared by the service and the renderer.
 */

/** The steps of a test connection, in the order they run. */
export type SiteTestStep = 'settings' | 'connect' | 'key exchange' | 'host key' | 'authentication' | 'sftp';

/** Every {@link SiteTestStep}, in order. */
export const SITE_TEST_STEPS: readonly SiteTestStep[] = [
  'settings',
  'connect',
  'key exchange',
  'host key',
  'authentication',
  'sftp',
];

/** A test connection that logged in and opened SFTP. */
export interface SiteTestSuccess {
  ok: true;
  /** Negotiated algorithms (RFC 4253 §7.1); `mac` says `(implicit: AEAD)` for an AEAD cipher. */
  kex: string;
  cipher: string;
  mac: string;
  serverHostKey: string;
  /** The server's identification line (RFC 4253 §4.2), e.g. `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3`. */
  serverVersion: string;
  /** One SSH round trip after login, ms (undefined when unmeasured). */
  rttMs?: number;
  /** The login folder (SSH_FXP_REALPATH of `.`), when the server answers it. */
  home?: string;
  /** The login method that succeeded (`publickey`, `password`, `keyboard-interactive`). */
  authMethod: string;
  /** Milliseconds from the start of the test to SFTP open. */
  elapsedMs: number;
}

/** A test connection that failed at `step`. */
export interface SiteTestFailure {
  ok: false;
  step: SiteTestStep;
  /**
   * The error's code (app/common/errors.ts) and message (names the server and carries its own text when it sent one).
   */
  code: string;
  message: string;
}

export type SiteTestReport = SiteTestSuccess | SiteTestFailure;

/**
 * Which step an error code stops a test at. TIMEOUT and CONNECTION_* count as `connect` until the host key was
 * checked (`pastHostKey`), `authentication` after it.
 */
export function stepOfError(code: string, pastHostKey: boolean): SiteTestStep {
  if (code === 'USAGE' || code === 'INVALID_REQUEST') return 'settings';
  if (code === 'NEGOTIATION_FAILED') return 'key exchange';
  if (code.startsWith('HOSTKEY_')) return 'host key';
  if (code === 'AUTH_FAILED' || code === 'UNSUPPORTED_KEY') return 'authentication';
  if (code === 'REMOTE_FAILURE' || code === 'PERMISSION_DENIED' || code === 'NO_SUCH_FILE')
    return pastHostKey ? 'sftp' : 'connect';
  return pastHostKey ? 'authentication' : 'connect';
}
