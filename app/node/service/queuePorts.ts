/** What the job queue (queue.ts) needs of the site sessions, and what one batch may set for itself. */
import type { ConflictDefault } from '../../common/model/transferDefaults';
import type { Engine } from '../engine/engine';
import type { EventSink } from '../transfer/types';

/** What the queue needs of the sessions: a connected engine session for a site. */
export interface Connector {
  connect(siteId: string): Promise<Engine>;
  /** The site's engine if it is connected now (no connect attempt). */
  connected(siteId: string): Engine | undefined;
  /** The site lost every connection and is reconnecting: its queued jobs wait (see {@link JobQueue.siteBack}). */
  reconnecting(siteId: string): boolean;
  /** The site's session: its `events` take a transfer's events (progress, file ends, log lines) the pool's way. */
  get(siteId: string): { events?: EventSink } | undefined;
}

/** What a batch may set for itself over Settings → Transfers (JobQueue.enqueue). */
export interface BatchSettings {
  conflict?: Exclude<ConflictDefault, 'ask'>;
  preservePermissions?: boolean;
}
