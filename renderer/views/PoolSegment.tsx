/**
 * The status bar's pool: connections up / planned, then each planned SSH connection with its SFTP channels, up or
 * down, as the engine reports it (SessionStatus.pool from service/poolStatus.ts), not as the site's settings guess.
 */
import type { SessionStatus } from '../../app/common/ipc/contract';

/** One line per connection for the tooltip and the accessible name: `connection 1: up, 4 SFTP channels`. */
export function poolDescription(pool: NonNullable<SessionStatus['pool']>): string {
  const links = pool.links.map(
    (l) =>
      `connection ${l.connection}: ${l.up ? `up, ${l.channels} SFTP channel${l.channels === 1 ? '' : 's'}` : 'down'}`,
  );
  const rtt = pool.rttMs !== undefined ? `; RTT ${pool.rttMs} ms` : '';
  return `${pool.connections} connection${pool.connections === 1 ? '' : 's'} × ${pool.channels} channel${pool.channels === 1 ? '' : 's'} planned${rtt}; ${links.join('; ')}`;
}

/** `Connections: 2/2` and, once connected, one badge per connection (`#1 4ch`, struck through when down). */
export function PoolSegment({ status }: { status: SessionStatus | undefined }) {
  const pool = status?.state === 'connected' ? status.pool : undefined;
  return (
    <span className="pool">
      Connections:{' '}
      <output aria-label="Connections">{status ? `${status.connectionsUp}/${status.connections}` : '—'}</output>
      {pool && (
        <output
          className="pool-links"
          aria-label="Pool"
          title={poolDescription(pool)}
          data-up={pool.links.filter((l) => l.up).length}
        >
          {pool.links.map((l) => (
            <span
              key={l.connection}
              className={`pool-link ${l.up ? 'up' : 'down'}`}
              aria-label={`Connection ${l.connection} ${l.up ? `up, ${l.channels} SFTP channels` : 'down'}`}
              data-channels={l.channels}
            >
              #{l.connection} {l.up ? `${l.channels}ch` : 'down'}
            </span>
          ))}
        </output>
      )}
    </span>
  );
}
