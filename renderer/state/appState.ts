/**
 * The renderer's state as a pure reducer over engine events and bridge answers.
 * The queue part is replayed through the shared reducer of app/common: the UI decides nothing about transfers.
 */
import type {
  AuthPrompt,
  ConflictPrompt,
  EventName,
  EventPayloads,
  HostKeyPrompt,
  HostKeysLearned,
  LogLine,
  SessionStatus,
  Settings,
  SitesTree,
} from '../../app/common/ipc/contract';
import type { Job, JobState } from '../../app/common/model/job';
import type { BatchView } from '../../app/common/queue/batches';
import { applyQueueEvents, emptyQueue, type QueueEvent, type QueueState } from '../../app/common/queue/reducer';
import { RateSeries } from './series';
import { plural } from '../format/format';

/** Everything the views render. Immutable: every change produces a new object. */
export interface AppState {
  queue: QueueState;
  /** Throughput history per site id (last 60 s). */
  series: Readonly<Record<string, RateSeries>>;
  sessions: Readonly<Record<string, SessionStatus>>;
  /** Pending host-key prompts, oldest first; the first is shown. */
  hostKeyPrompts: readonly HostKeyPrompt[];
  /** Pending login questions (password, keyboard-interactive, passphrase), oldest first; the first is shown. */
  authPrompts: readonly AuthPrompt[];
  /** Pending conflict prompts, oldest first; the first is shown. */
  conflictPrompts: readonly ConflictPrompt[];
  /** Neutral, dismissable notices (e.g. host keys learned from a trusted server), oldest first. */
  notices: readonly Notice[];
  /** The latest log lines (at most {@link LOG_LIMIT}). */
  log: readonly LogLine[];
  sites: SitesTree;
  settings: Settings | null;
}

/** A non-blocking, informational message shown under the toolbar until dismissed. */
export interface Notice {
  id: string;
  /** One short line. */
  text: string;
  /** The full text, for the notice's Details dialog, and that dialog's title. */
  details?: string;
  title: string;
}

/** How many notices are kept (older ones are dropped). */
const NOTICE_LIMIT = 5;

/** How many log lines the panel keeps. */
export const LOG_LIMIT = 500;

export const initialAppState: AppState = {
  queue: emptyQueue,
  series: {},
  sessions: {},
  hostKeyPrompts: [],
  authPrompts: [],
  conflictPrompts: [],
  notices: [],
  log: [],
  sites: { folders: [], sites: [] },
  settings: null,
};

/** An engine event as delivered by the bridge. */
export type EventAction = { [E in EventName]: { type: 'event'; event: E; payload: EventPayloads[E] } }[EventName];

/** Inputs of the reducer: engine events plus answers the store fetched through the bridge. */
export type AppAction =
  | EventAction
  | { type: 'sites'; tree: SitesTree }
  | { type: 'settings'; settings: Settings }
  | { type: 'sessions'; list: SessionStatus[] }
  /** A queue snapshot fetched by the store, followed by the deltas that arrived while it was in flight. */
  | { type: 'queueResync'; jobs: Job[]; since: QueueEvent[] }
  /** The user answered a prompt: hide it at once (the engine confirms with `prompt.closed`). */
  | { type: 'promptAnswered'; promptId: string }
  /** The user closed a notice. */
  | { type: 'noticeDismissed'; id: string }
  /** A notice of the window itself (e.g. a closed tab's site stays connected for its transfers). */
  | { type: 'notice'; notice: Notice };

/** Applies one action; returns the same object when nothing changed. */
export function reduceApp(state: AppState, action: AppAction): AppState {
  switch (action.type) {
    case 'sites':
      return { ...state, sites: action.tree };
    case 'settings':
      return { ...state, settings: action.settings };
    case 'sessions': {
      const sessions: Record<string, SessionStatus> = {};
      for (const s of action.list) sessions[s.siteId] = s;
      return { ...state, sessions };
    }
    case 'queueResync':
      return {
        ...state,
        queue: applyQueueEvents(emptyQueue, [{ type: 'snapshot', jobs: action.jobs }, ...action.since]),
      };
    case 'promptAnswered':
      return dropPrompt(state, action.promptId);
    case 'noticeDismissed': {
      const notices = state.notices.filter((n) => n.id !== action.id);
      return notices.length === state.notices.length ? state : { ...state, notices };
    }
    case 'notice':
      return addNotice(state, action.notice);
    case 'event':
      return reduceEvent(state, action);
  }
}

function reduceEvent(state: AppState, action: EventAction): AppState {
  switch (action.event) {
    case 'queue.snapshot':
      return { ...state, queue: applyQueueEvents(state.queue, [{ type: 'snapshot', jobs: action.payload.jobs }]) };
    case 'queue.delta': {
      const queue = applyQueueEvents(state.queue, action.payload.events);
      return queue === state.queue ? state : { ...state, queue };
    }
    case 'progress': {
      if (action.payload.samples.length === 0) return state;
      const series = { ...state.series };
      for (const s of action.payload.samples) {
        const perConnection: Record<string, number> = {};
        for (const c of s.connections) perConnection[String(c.id)] = c.rate;
        series[s.siteId] = (series[s.siteId] ?? RateSeries.empty()).push({
          t: s.t,
          total: s.rate,
          perConnection,
          bottleneck: s.bottleneck,
        });
      }
      return { ...state, series };
    }
    case 'hostKey.prompt':
      if (state.hostKeyPrompts.some((p) => p.promptId === action.payload.promptId)) return state;
      return { ...state, hostKeyPrompts: [...state.hostKeyPrompts, action.payload] };
    case 'auth.prompt':
      if (state.authPrompts.some((p) => p.promptId === action.payload.promptId)) return state;
      return { ...state, authPrompts: [...state.authPrompts, action.payload] };
    case 'hostKey.learned':
      return addNotice(state, learnedKeysNotice(action.payload));
    case 'conflict.prompt': {
      // Sent again with the same id when the number of conflicts waiting behind it changes.
      const at = state.conflictPrompts.findIndex((p) => p.promptId === action.payload.promptId);
      if (at < 0) return { ...state, conflictPrompts: [...state.conflictPrompts, action.payload] };
      return { ...state, conflictPrompts: state.conflictPrompts.map((p, i) => (i === at ? action.payload : p)) };
    }
    case 'prompt.closed':
      return dropPrompt(state, action.payload.promptId);
    case 'session.status':
      return { ...state, sessions: { ...state.sessions, [action.payload.siteId]: action.payload } };
    case 'log': {
      if (action.payload.lines.length === 0) return state;
      const log = [...state.log, ...action.payload.lines];
      return { ...state, log: log.length > LOG_LIMIT ? log.slice(log.length - LOG_LIMIT) : log };
    }
    case 'edit.changed':
    case 'edit.closed':
    case 'find.hits':
    case 'keepUp.changed':
      return state; // the Open files list, the Find dialog and the keep-up status subscribe themselves
  }
}

/** The notice for keys a trusted server announced (hostkeys-00@openssh.com) and the engine saved. */
function learnedKeysNotice(p: HostKeysLearned): Notice {
  const n = p.keys.length;
  const where = p.port === 22 ? p.host : `${p.host}:${p.port}`;
  return {
    id: `hostkeys:${p.siteId}:${p.keys.map((k) => k.fingerprint).join(',')}`,
    title: 'Host keys saved',
    text: `${where} announced ${plural(n, 'new host key')} (${p.keys.map((k) => k.keyType).join(', ')}); saved to known_hosts.`,
    details:
      `The server proved it holds ${n === 1 ? 'this key' : 'these keys'} (OpenSSH hostkeys-00@openssh.com), over a connection whose key ` +
      `was already trusted, so ${n === 1 ? 'it was' : 'they were'} added to ${p.file}:\n\n` +
      p.keys.map((k) => `${k.keyType} ${k.fingerprint}`).join('\n'),
  };
}

/** Adds a notice once (an id already shown is not repeated), keeping the latest {@link NOTICE_LIMIT}. */
function addNotice(state: AppState, notice: Notice): AppState {
  if (state.notices.some((n) => n.id === notice.id)) return state;
  return { ...state, notices: [...state.notices, notice].slice(-NOTICE_LIMIT) };
}

function dropPrompt(state: AppState, promptId: string): AppState {
  const hostKeyPrompts = state.hostKeyPrompts.filter((p) => p.promptId !== promptId);
  const authPrompts = state.authPrompts.filter((p) => p.promptId !== promptId);
  const conflictPrompts = state.conflictPrompts.filter((p) => p.promptId !== promptId);
  if (
    hostKeyPrompts.length === state.hostKeyPrompts.length &&
    authPrompts.length === state.authPrompts.length &&
    conflictPrompts.length === state.conflictPrompts.length
  )
    return state;
  return { ...state, hostKeyPrompts, authPrompts, conflictPrompts };
}

/** Queue filter tabs. `active` = queued, running or paused. */
export type QueueFilter = 'all' | 'active' | 'failed' | 'done';

const FILTER_STATES: Record<QueueFilter, ReadonlySet<JobState> | null> = {
  all: null,
  active: new Set<JobState>(['queued', 'running', 'paused']),
  failed: new Set<JobState>(['failed', 'cancelled']),
  done: new Set<JobState>(['done']),
};

/** Ids of the jobs a filter shows, in queue order. */
export function filterJobIds(queue: QueueState, filter: QueueFilter): readonly string[] {
  const states = FILTER_STATES[filter];
  if (!states) return queue.order;
  return queue.order.filter((id) => states.has(queue.byId[id].state));
}

/** The batches (queue rows) a filter shows, in queue order, by the state each batch shows. */
export function filterBatches(views: ReadonlyMap<string, BatchView>, filter: QueueFilter): BatchView[] {
  const states = FILTER_STATES[filter];
  const all = [...views.values()];
  return states ? all.filter((v) => states.has(v.state)) : all;
}
