/**
 * Status bar: the active site and its session state, negotiated cipher and KEX (RFC 4253 §7.1),
 * connections up / configured, and the current total speed.
 */
import type { SessionStatus } from '../../app/common/ipc/contract';
import { formatRate } from '../format/format';

export interface StatusBarProps {
  status: SessionStatus | undefined;
  /** Total rate, bytes/s. */
  rate: number;
}

/** The bottom status bar. */
export function StatusBar({ status, rate }: StatusBarProps) {
  return (
    <footer className="statusbar" role="status" aria-label="Status">
      <span>
        Site: <output aria-label="Connected site">{status ? `${status.siteName} (${status.state})` : 'not connected'}</output>
      </span>
      <span>
        Cipher: <output aria-label="Cipher">{status?.cipher ?? '—'}</output>
      </span>
      <span>
        KEX: <output aria-label="Key exchange">{status?.kex ?? '—'}</output>
      </span>
      <span>
        Connections: <output aria-label="Connections">{status ? `${status.connectionsUp}/${status.connections}` : '—'}</output>
      </span>
      <span>
        Speed: <output aria-label="Speed">{formatRate(rate)}</output>
      </span>
    </footer>
  );
}
