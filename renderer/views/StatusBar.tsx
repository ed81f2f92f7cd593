/**
 * Status bar: the active site and its session state (`reconnecting (attempt 2)` while a lost session comes back), the
 * negotiated set (RFC 4253 §7.1: cipher, KEX, MAC, host-key algorithm) and the server's software (§4.2) (issue #15),
 * the connection pool (views/PoolSegment.tsx: connections up / planned, each one's SFTP channels), the current total
 * speed (state/speeds.ts), the global speed limit (issue #14), and Keep remote up to date's state (#27).
 */
import type { ReactNode } from 'react';
import type { SessionStatus } from '../../app/common/ipc/contract';
import { formatRate, sessionStateText } from '../format/format';
import { PoolSegment } from './PoolSegment';
import { serverSoftwareText } from './SiteTestResult';
import { displayText } from '../../app/common/displayText';

export interface StatusBarProps {
  status: SessionStatus | undefined;
  /** Total rate, bytes/s. */
  rate: number;
  /** The global speed limit, bytes/s (0 = none); undefined while settings load. */
  speedLimit?: number;
  /** Sets the global speed limit (bytes/s, 0 = none). */
  onSpeedLimit?: (bytesPerSecond: number) => void;
  /** Keep remote up to date's segments (views/KeepUpStatus.tsx). */
  keepUps?: ReactNode;
}

const MiB = 1024 * 1024;
/** The limits offered, bytes/s (0 = none). */
export const SPEED_LIMITS = [0, 1, 5, 10, 25, 50, 100, 250].map((m) => m * MiB);

/** The global speed limit as a select; a limit set elsewhere (another value) is offered too. */
function SpeedLimitSelect({ value, onChange }: { value: number; onChange: (n: number) => void }) {
  const options = SPEED_LIMITS.includes(value) ? SPEED_LIMITS : [...SPEED_LIMITS, value].sort((a, b) => a - b);
  return (
    <select aria-label="Speed limit" value={value} onChange={(e) => onChange(Number(e.target.value))}>
      {options.map((n) => (
        <option key={n} value={n}>
          {n === 0 ? 'unlimited' : formatRate(n)}
        </option>
      ))}
    </select>
  );
}

/** The bottom status bar. */
export function StatusBar({ status: session, rate, speedLimit, onSpeedLimit, keepUps }: StatusBarProps) {
  // The negotiated set and the server hold only while connected (reconnecting: the old connection is gone).
  const status = session?.state === 'connected' ? session : undefined;
  return (
    <footer className="statusbar" role="status" aria-label="Status">
      <span>
        Site:{' '}
        <output aria-label="Connected site" className={session?.state === 'reconnecting' ? 'reconnecting' : undefined}>
          {session ? `${session.siteName} (${sessionStateText(session)})` : 'not connected'}
        </output>
      </span>
      <span>
        Cipher: <output aria-label="Cipher">{status?.cipher ?? '—'}</output>
      </span>
      <span>
        MAC: <output aria-label="MAC">{status?.mac ?? '—'}</output>
      </span>
      <span className="shrink" title={status?.kex}>
        KEX: <output aria-label="Key exchange">{status?.kex ?? '—'}</output>
      </span>
      <span>
        Host key: <output aria-label="Host-key algorithm">{status?.serverHostKey ?? '—'}</output>
      </span>
      <span className="shrink" title={status?.serverVersion && displayText(status.serverVersion)}>
        Server:{' '}
        <output aria-label="Server version">
          {status?.serverVersion ? serverSoftwareText(status.serverVersion) : '—'}
        </output>
      </span>
      <PoolSegment status={session} />
      {keepUps}
      <span>
        Speed: <output aria-label="Speed">{formatRate(rate)}</output>
      </span>
      {speedLimit !== undefined && onSpeedLimit && (
        <label>
          Limit: <SpeedLimitSelect value={speedLimit} onChange={onSpeedLimit} />
        </label>
      )}
    </footer>
  );
}
