/**
 * The shapes of the app's site sessions (service/sessions.ts): one site's session as the service keeps it, how the
 * sessions are opened, and what the queue hears from them.
 */
import type { SessionStatus } from '../../common/ipc/contract';
import type { Site } from '../../common/model/site';
import type { RetryPolicy } from '../../common/retry';
import type { Engine, EngineFactory } from '../engine/engine';
import type { KnownHostsPaths } from '../stores/knownHosts';
import type { SecretStore } from '../stores/sites';
import type { EngineEvent } from '../transfer/types';
import type { HostKeyDesk } from './hostKeyDesk';

/** One site's session as the service keeps it. */
export interface SiteSession {
  site: Site;
  status: SessionStatus;
  opening?: Promise<Engine>;
  engine?: Engine;
  /** Secrets used by this session, redacted from log lines. */
  secrets: Set<string>;
  /** Open prompts of this session, closed when the connection attempt ends. */
  prompts: Set<string>;
  /** Set while the user disconnects, so the connections going down are not reported as lost. */
  closing?: boolean;
  /** The password given or typed in this session (a reconnect logs in with it). */
  password?: string;
  /** Passphrases that opened keys in this session, by key path. */
  passphrases: Map<string, string>;
  /** While every connection was lost: the reconnect under way, and how to stop it. */
  reconnecting?: Promise<Engine>;
  stopReconnect?: AbortController;
  /** Called on the session's next connection event or status change (see SiteSessions.browse (service/sessions.ts)). */
  changed: Set<() => void>;
  /**
   * The site's event routing (the queue's progress and file ends, the site's log, the pool status): its engine's pool
   * events, and each transfer's own (Engine.transfer's onEvent, given by the queue).
   */
  events?: (e: EngineEvent) => void;
  /** The host and port the site resolved to (ssh_config), to tell its own host-key prompts from a jump host's. */
  target?: { host: string; port: number };
  /**
   * Where its password and passphrases are read and remembered; default the service's (a test of an unsaved site: none
   * kept).
   */
  secretStore?: SecretStore;
}

/** How sessions are opened (see ServiceOptions). */
export interface SessionsOptions {
  engine: EngineFactory;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  /**
   * known_hosts chosen for the service (tests, harness); absent: UserKnownHostsFile of ssh_config, else OpenSSH's
   * files.
   */
  knownHostsPaths?: KnownHostsPaths;
  /**
   * The OpenSSH client configuration to read for a site's host (like `ssh -F`; `none`: none); default ~/.ssh/config +
   * /etc/ssh/ssh_config.
   */
  sshConfig?: string;
  /** The data folder (the engine's leftovers journal). */
  home: string;
  /** Reconnect attempts and waits (app/common/retry.ts RECONNECT_POLICY). */
  reconnectPolicy: Readonly<RetryPolicy>;
  /** First/last seen dates and the changed-key answers. */
  hostKeys: HostKeyDesk;
}

/** What the queue must hear from the sessions. */
export interface SessionHooks {
  /** A site is about to disconnect: its running jobs pause, its queued ones too. */
  beforeDisconnect(siteId: string): void;
  /** Every connection of a site was lost and it reconnects: its running jobs go back in line. */
  onConnectionLost(siteId: string): void;
  /** The user connected the site (not a reconnect): the jobs its last disconnect paused resume. */
  onConnected(siteId: string): void;
  /** A lost site is connected again: its queued jobs may start. */
  onReconnected(siteId: string): void;
  /** A job's progress sample from the engine. */
  onProgress(siteId: string, e: Extract<EngineEvent, { type: 'progress' }>): void;
  /** A file of a job ended (done, skipped or failed). */
  onFile(siteId: string, e: Extract<EngineEvent, { type: 'file' }>): void;
}
