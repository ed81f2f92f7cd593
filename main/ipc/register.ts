/**
 * Binds the contract to the service for one window: invocations through validatedIpc, engine events
 * coalesced (~10 batches/s) and sent to the window's web contents on `sluice:event:<name>` channels.
 */
import type { WebContents } from 'electron';
import { eventIpcChannel, type EventName, type EventPayloads } from '../../app/common/ipc/contract';
import type { SluiceService } from '../../app/node/service';
import { EventCoalescer } from './coalescer';
import { registerInvokeHandlers } from './validatedIpc';

/** Registers every invocation channel on the service; returns the unregister function. Call once per app. */
export function registerService(service: Pick<SluiceService, 'invoke'>): () => void {
  return registerInvokeHandlers((channel, payload) => service.invoke(channel, payload));
}

/**
 * Forwards the service's events to one window, coalesced. A fresh page receives a queue snapshot when it
 * finishes loading (the renderer should also call `queueSnapshot()` on start). Returns the detach function.
 */
export function attachWindow(service: Pick<SluiceService, 'subscribe' | 'jobs'>, wc: WebContents): () => void {
  const send = <E extends EventName>(event: E, payload: EventPayloads[E]): void => {
    if (!wc.isDestroyed()) wc.send(eventIpcChannel(event), payload);
  };
  const coalescer = new EventCoalescer(send);
  const unsubscribe = service.subscribe((event, payload) => coalescer.push(event, payload));
  const onLoad = (): void => coalescer.push('queue.snapshot', { jobs: service.jobs() });
  wc.on('did-finish-load', onLoad);
  const detach = (): void => {
    unsubscribe();
    coalescer.dispose();
    if (!wc.isDestroyed()) wc.removeListener('did-finish-load', onLoad);
  };
  wc.once('destroyed', detach);
  return detach;
}
