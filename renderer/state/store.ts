/**
 * The renderer store: subscribes to every bridge event, fetches the initial state, and applies both
 * through {@link reduceApp}. Views read it with {@link useAppState} (React's useSyncExternalStore).
 */
import { EVENT_NAMES, type Bridge, type EventName, type EventPayloads } from '../../app/common/ipc/contract';
import type { QueueEvent } from '../../app/common/queue/reducer';
import { initialAppState, reduceApp, type AppAction, type AppState } from './appState';

/** Observable holder of {@link AppState}; no business logic beyond replaying engine state. */
export class AppStore {
  private state: AppState = initialAppState;
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribes: Array<() => void> = [];
  /** Deltas received while a queue snapshot request is in flight (replayed on top of it). */
  private pendingDeltas: QueueEvent[] | null = null;

  constructor(readonly bridge: Bridge) {}

  /** Current state (stable reference until the next change). */
  readonly getSnapshot = (): AppState => this.state;

  /** Registers a change listener; returns the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Applies an action and notifies listeners when the state changed. */
  dispatch(action: AppAction): void {
    const next = reduceApp(this.state, action);
    if (next === this.state) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }

  /**
   * Subscribes to every engine event, then loads sites, settings, sessions and the queue.
   * Failures of the initial loads are logged into the state's log (the UI stays usable).
   */
  async start(): Promise<void> {
    for (const name of EVENT_NAMES) this.unsubscribes.push(this.listen(name));
    await Promise.all([this.refreshSites(), this.refreshSettings(), this.refreshSessions(), this.resyncQueue()]);
  }

  /** Removes every bridge subscription. */
  stop(): void {
    for (const off of this.unsubscribes.splice(0)) off();
  }

  /** Reloads the site tree. */
  async refreshSites(): Promise<void> {
    const r = await this.bridge.sitesList();
    if (r.ok) this.dispatch({ type: 'sites', tree: r.value });
    else this.localLog('error', `Loading sites failed: ${r.error.message}`);
  }

  /** Reloads settings (theme, secret storage). */
  async refreshSettings(): Promise<void> {
    const r = await this.bridge.settingsGet();
    if (r.ok) this.dispatch({ type: 'settings', settings: r.value });
    else this.localLog('error', `Loading settings failed: ${r.error.message}`);
  }

  /** Reloads the session list. */
  async refreshSessions(): Promise<void> {
    const r = await this.bridge.sessionList();
    if (r.ok) this.dispatch({ type: 'sessions', list: r.value });
  }

  /** Fetches a queue snapshot and replays the deltas that raced with it. */
  async resyncQueue(): Promise<void> {
    this.pendingDeltas = [];
    const r = await this.bridge.queueSnapshot();
    const since = this.pendingDeltas;
    this.pendingDeltas = null;
    if (r.ok) this.dispatch({ type: 'queueResync', jobs: r.value.jobs, since });
    else this.localLog('error', `Loading the queue failed: ${r.error.message}`);
  }

  /** Adds a UI-side line to the log panel (e.g. a failed action). */
  localLog(level: 'info' | 'warn' | 'error', message: string): void {
    this.dispatch({ type: 'event', event: 'log', payload: { lines: [{ t: Date.now(), level, message }] } });
  }

  private listen<E extends EventName>(name: E): () => void {
    return this.bridge.on(name, (payload: EventPayloads[E]) => {
      if (name === 'queue.delta' && this.pendingDeltas) {
        this.pendingDeltas.push(...(payload as EventPayloads['queue.delta']).events);
      }
      this.dispatch({ type: 'event', event: name, payload } as AppAction);
    });
  }
}
