/** What the service's parts share: the stores, the clock, and the way out for events and log lines. */
import type {
  EventName,
  EventPayloads,
  InvokeChannel,
  InvokeRequests,
  InvokeResponses,
} from '../../common/ipc/contract';
import type { SecretStore, SitesStore } from '../stores/sites';

export interface ServiceHub {
  readonly store: SitesStore;
  readonly secrets: SecretStore;
  clock(): number;
  /** Sends an event to every subscriber (main's coalescing, the harness). */
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  /** A log line for the UI, with the site's secrets redacted. */
  log(level: 'info' | 'warn' | 'error', message: string, siteId?: string): void;
}

/** The router's table: one handler per channel of the contract. */
export type Handlers = { [C in InvokeChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]> };
