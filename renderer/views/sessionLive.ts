import type { SessionStatus } from '../../app/common/ipc/contract';

/** A session that holds (or is getting) a connection: Disconnect applies, the site's identity is shown. */
export function sessionLive(status: SessionStatus | undefined): boolean {
  return status?.state === 'connected' || status?.state === 'connecting' || status?.state === 'reconnecting';
}
