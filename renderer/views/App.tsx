/**
 * The application shell: toolbar (theme), site manager, local and remote panes, queue, throughput graph,
 * log and status bar, plus the prompts the engine raises (host key, login questions, conflict).
 * It turns gestures into bridge intents (connect, enqueue, answers); the engine decides everything else.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ConflictChoice, HostKeyAnswer, QuickSite, SessionStatus, Theme } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import type { QueueState } from '../../app/common/queue/reducer';
import { plural, sessionStateText, summarizeError } from '../format/format';
import { resolveTheme } from '../state/theme';
import { RateSeries } from '../state/series';
import { liveConnections, queueSpeed, siteSpeed } from '../state/speeds';
import { useAppState, useBridge, useStore } from '../state/react';
import { Banner } from './Banner';
import { AuthDialog } from './AuthDialog';
import { ConflictDialog } from './ConflictDialog';
import { FilePane, type PaneDrag } from './FilePane';
import { DisconnectDialog } from './DisconnectDialog';
import { HostKeyDialog } from './HostKeyDialog';
import { KnownHostsView } from './KnownHostsView';
import { LogPanel } from './LogPanel';
import { QueueView } from './QueueView';
import { SettingsDialog } from './SettingsDialog';
import { SiteManager, type TreeSelection } from './SiteManager';
import { StatusBar } from './StatusBar';
import { ThroughputGraph } from './ThroughputGraph';
import { LimitedBy } from './LimitedBy';
import { WorkspaceLayout } from './WorkspaceLayout';
import { QuickConnectBar } from './QuickConnect';
import { quickToForm, type SiteForm } from '../state/siteForm';
import { isMacPlatform, paneKeyLabels } from '../format/paneKeys';

const EMPTY_SERIES = RateSeries.empty();

function usePrefersDark(): boolean {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const [dark, setDark] = useState(query?.matches ?? false);
  useEffect(() => {
    if (!query) return;
    const on = (e: MediaQueryListEvent) => setDark(e.matches);
    query.addEventListener('change', on);
    return () => query.removeEventListener('change', on);
  }, [query]);
  return dark;
}

/** A pane reloads when a job into its folder finishes: the token counts such jobs. */
function reloadToken(queue: QueueState, dir: string | null): string {
  if (dir === null) return '0';
  let n = 0;
  for (const id of queue.order) {
    const j = queue.byId[id];
    if (j.dest === dir && (j.state === 'done' || j.state === 'failed')) n++;
  }
  return String(n);
}

/** A session that holds (or is getting) a connection: Disconnect applies, the site's identity is shown. */
function sessionLive(status: SessionStatus | undefined): boolean {
  return status?.state === 'connected' || status?.state === 'connecting' || status?.state === 'reconnecting';
}

/** The toolbar's line: whom the window talks to now, from the session's state alone. */
function sessionTitle(status: SessionStatus | undefined, site: SiteView | undefined): string {
  if (!status || !site || !sessionLive(status)) return 'No site connected';
  const who = `${site.user}@${site.host}:${site.port}`;
  if (status.state === 'connecting') return `Connecting to ${who}…`;
  return status.state === 'reconnecting' ? `${who} (reconnecting)` : who;
}

/** What the remote pane says while it has no listing. */
function remotePlaceholder(status: SessionStatus | undefined): string {
  if (status?.state === 'connecting') return 'Connecting…';
  if (status?.state === 'reconnecting') return `Connection lost: ${sessionStateText(status)}…`;
  return 'Select a site and press Connect.';
}

/** The whole window. */
export function App() {
  const store = useStore();
  const bridge = useBridge();
  const sites = useAppState((s) => s.sites);
  const sessions = useAppState((s) => s.sessions);
  const settings = useAppState((s) => s.settings);
  const queue = useAppState((s) => s.queue);
  const seriesBySite = useAppState((s) => s.series);
  const hostKeyPrompts = useAppState((s) => s.hostKeyPrompts);
  const authPrompts = useAppState((s) => s.authPrompts);
  const conflictPrompts = useAppState((s) => s.conflictPrompts);
  const notices = useAppState((s) => s.notices);
  const prefersDark = usePrefersDark();

  const [selection, setSelection] = useState<TreeSelection>(null);
  const [activeSiteId, setActiveSiteId] = useState<string | null>(null);
  const [localPath, setLocalPath] = useState<string | null>(null);
  const [knownHostsOpen, setKnownHostsOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  /** Each site's remote folder: the pane shows the active site's (one value per site, never another site's). */
  const [remotePaths, setRemotePaths] = useState<Readonly<Record<string, string>>>({});
  /** The quick-connect bar's unsaved site, while it is the active one; and its "Save as site" form. */
  const [quickSite, setQuickSite] = useState<QuickSite | null>(null);
  const [siteDraft, setSiteDraft] = useState<SiteForm | null>(null);
  const draftTaken = useCallback(() => setSiteDraft(null), []);
  /** The failed session status whose banner the user closed (a new failure is a new object and shows again). */
  const [dismissedFailure, setDismissedFailure] = useState<SessionStatus | null>(null);

  const theme: Theme = settings?.theme ?? 'system';
  useEffect(() => {
    document.documentElement.dataset.theme = resolveTheme(theme, prefersDark);
  }, [theme, prefersDark]);

  useEffect(() => {
    void bridge.localHome().then((r) => {
      if (r.ok) setLocalPath((p) => p ?? r.value);
      else store.localLog('error', `Local home: ${r.error.message}`);
    });
  }, [bridge, store]);

  const activeSite = sites.sites.find((s) => s.id === activeSiteId) ?? (quickSite?.id === activeSiteId ? quickSite : undefined);
  const remotePath = activeSiteId ? remotePaths[activeSiteId] ?? null : null;
  const setRemotePath = useCallback((p: string) => {
    if (activeSiteId) setRemotePaths((all) => (all[activeSiteId] === p ? all : { ...all, [activeSiteId]: p }));
  }, [activeSiteId]);
  const status = activeSiteId ? sessions[activeSiteId] : undefined;
  const connected = status?.state === 'connected';
  const series = (activeSiteId && seriesBySite[activeSiteId]) || EMPTY_SERIES;
  const keyLabels = paneKeyLabels(isMacPlatform());
  // Only until the first local listing, which carries the engine's separator (FilePane prefers it).
  const sep: '/' | '\\' = localPath?.includes('\\') ? '\\' : '/';

  // A password site without a saved password is asked by the engine (auth.prompt), as is a wrong one again.
  const connect = useCallback(
    async (site: SiteView) => {
      setActiveSiteId(site.id);
      // A site already connected is shown as it is (Connect is disabled for it; Enter or a double-click lands here).
      if (sessionLive(store.getSnapshot().sessions[site.id])) return;
      setRemotePaths(({ [site.id]: _dropped, ...rest }) => rest);
      const r = await bridge.sessionConnect({ siteId: site.id });
      if (!r.ok) {
        store.localLog('error', `Connecting to ${site.name} failed: ${r.error.code}: ${r.error.message}`);
        return;
      }
      store.dispatch({ type: 'event', event: 'session.status', payload: r.value });
      const start = site.remoteDir ?? r.value.home ?? '/';
      setRemotePaths((all) => ({ ...all, [site.id]: start }));
      if (site.localDir) setLocalPath(site.localDir);
    },
    [bridge, store],
  );

  /** The active site's running and queued jobs: a Disconnect asks first what becomes of them. */
  const moving = useMemo(() => queue.order.filter((id) => {
    const j = queue.byId[id];
    return j.siteId === activeSiteId && (j.state === 'running' || j.state === 'queued');
  }).length, [queue, activeSiteId]);
  const [askDisconnect, setAskDisconnect] = useState(false);

  const disconnect = async (transfers?: 'pause' | 'cancel') => {
    if (!activeSiteId) return;
    if (moving > 0 && transfers === undefined) {
      setAskDisconnect(true);
      return;
    }
    const r = await bridge.sessionDisconnect(transfers ? { siteId: activeSiteId, transfers } : { siteId: activeSiteId });
    if (!r.ok) store.localLog('error', `Disconnect failed: ${r.error.message}`);
    setRemotePaths(({ [activeSiteId]: _dropped, ...rest }) => rest);
    await store.refreshSessions();
  };

  // One speed source (state/speeds.ts): the status bar's speed is the queue footer's, the graph's total the site's share.
  const queueRate = useMemo(() => queueSpeed(queue), [queue]);
  const live = useMemo(() => liveConnections(status?.state === 'connected' ? status.pool : undefined), [status]);
  const graphSpeed = useMemo(() => siteSpeed(queue, activeSiteId ?? '', series, live), [queue, activeSiteId, series, live]);
  const localToken = useMemo(() => reloadToken(queue, localPath), [queue, localPath]);
  const remoteToken = useMemo(() => reloadToken(queue, remotePath), [queue, remotePath]);

  const enqueue = async (direction: 'upload' | 'download', sources: string[], dest: string) => {
    if (!activeSiteId || sources.length === 0) return;
    const r = await bridge.queueEnqueue({ siteId: activeSiteId, direction, sources, dest });
    if (!r.ok) store.localLog('error', `Queueing ${plural(sources.length, 'item')} failed: ${r.error.message}`);
  };

  const logError = useCallback((m: string) => store.localLog('error', m), [store]);
  const logInfo = useCallback((m: string) => store.localLog('info', m), [store]);
  const listLocal = useCallback((path: string) => bridge.localList({ path }), [bridge]);
  const listRemote = useCallback((path: string) => bridge.remoteList({ siteId: activeSiteId ?? '', path }), [bridge, activeSiteId]);

  const hostKeyPrompt = hostKeyPrompts[0];
  const authPrompt = hostKeyPrompt ? undefined : authPrompts[0];
  const conflictPrompt = hostKeyPrompt || authPrompt ? undefined : conflictPrompts[0];
  const answerHostKey = async (answer: HostKeyAnswer, confirmHost?: string) => {
    if (!hostKeyPrompt) return;
    const { promptId, siteId } = hostKeyPrompt;
    store.dispatch({ type: 'promptAnswered', promptId });
    const r = await bridge.hostKeyAnswer(confirmHost === undefined ? { promptId, answer } : { promptId, answer, confirmHost });
    if (!r.ok) {
      store.localLog('error', `Host key answer failed: ${r.error.message}`);
      return;
    }
    // A replaced or added key is saved, not yet used: connect again, now trusting it.
    const site = sites.sites.find((s) => s.id === siteId);
    if ((answer === 'replace' || answer === 'add') && site) await connect(site);
  };
  const answerAuth = async (answers: string[] | null, remember: boolean) => {
    if (!authPrompt) return;
    store.dispatch({ type: 'promptAnswered', promptId: authPrompt.promptId });
    const r = await bridge.authAnswer(answers ? { promptId: authPrompt.promptId, answers, remember } : { promptId: authPrompt.promptId });
    if (!r.ok) store.localLog('error', `Login answer failed: ${r.error.message}`);
  };
  const answerConflict = async (choice: ConflictChoice, forAll: boolean) => {
    if (!conflictPrompt) return;
    store.dispatch({ type: 'promptAnswered', promptId: conflictPrompt.promptId });
    const r = await bridge.conflictAnswer({ promptId: conflictPrompt.promptId, choice, forAll });
    if (!r.ok) store.localLog('error', `Conflict answer failed: ${r.error.message}`);
  };

  return (
    <div className="app">
      <div className="toolbar" role="toolbar" aria-label="Main toolbar">
        <h1>Sluice</h1>
        <span className="muted" aria-label="Session">{sessionTitle(status, activeSite)}</span>
        <span className="spacer" />
        <button type="button" onClick={() => setKnownHostsOpen(true)}>
          Known hosts
        </button>
        <button type="button" onClick={() => setSettingsOpen(true)}>
          Settings
        </button>
        <button type="button" disabled={!sessionLive(status)} onClick={() => void disconnect()}>
          Disconnect
        </button>
        <label>
          Theme{' '}
          <select
            aria-label="Theme"
            value={theme}
            onChange={async (e) => {
              const r = await bridge.settingsSet({ theme: e.target.value as Theme });
              if (r.ok) store.dispatch({ type: 'settings', settings: r.value });
            }}
          >
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </div>
      <QuickConnectBar
        current={quickSite?.id === activeSiteId ? quickSite : undefined}
        onConnect={(site) => {
          setQuickSite(site);
          void connect(site);
        }}
        onSave={(site) => setSiteDraft(quickToForm(site))}
      />
      <div className="notices">
        {status?.state === 'failed' && status.error && status !== dismissedFailure && (
          <Banner
            level="error"
            label="Connection error"
            text={`${status.siteName}: ${summarizeError(status.error.code, status.error.message)} (${status.error.code})`}
            details={status.error.message}
            detailsTitle={`Connecting to ${status.siteName} failed`}
            onDismiss={() => setDismissedFailure(status)}
          />
        )}
        {notices.map((n) => (
          <Banner
            key={n.id}
            level="info"
            label="Notice"
            text={n.text}
            details={n.details}
            detailsTitle={n.title}
            onDismiss={() => store.dispatch({ type: 'noticeDismissed', id: n.id })}
          />
        ))}
      </div>
      <div className="main">
        <SiteManager selection={selection} onSelect={setSelection} onConnect={(s) => void connect(s)} draft={siteDraft} onDraftTaken={draftTaken} />
        <WorkspaceLayout
          panes={
          <div className="panes">
            <FilePane
              side="local"
              title="Local"
              path={localPath}
              placeholder="Loading…"
              sep={sep}
              reloadToken={localToken}
              list={listLocal}
              mkdir={(path) => bridge.localMkdir({ path })}
              rename={(from, to) => bridge.localRename({ from, to })}
              remove={(path, recursive) => bridge.localRemove({ path, recursive })}
              onNavigate={setLocalPath}
              onPaneDrop={(drag: PaneDrag, dir) => void enqueue('download', drag.paths, dir)}
              transfer={{ label: 'Upload', shortcut: keyLabels.upload, run: connected && remotePath ? (paths) => void enqueue('upload', paths, remotePath) : undefined }}
              onError={logError}
              onInfo={logInfo}
            />
            <FilePane
              side="remote"
              title="Remote"
              path={connected ? remotePath : null}
              placeholder={remotePlaceholder(status)}
              sep="/"
              reloadToken={remoteToken}
              list={listRemote}
              mkdir={(path) => bridge.remoteMkdir({ siteId: activeSiteId ?? '', path })}
              rename={(from, to) => bridge.remoteRename({ siteId: activeSiteId ?? '', from, to })}
              remove={(path, recursive) => bridge.remoteRemove({ siteId: activeSiteId ?? '', path, recursive })}
              onNavigate={setRemotePath}
              onPaneDrop={(drag: PaneDrag, dir) => void enqueue('upload', drag.paths, dir)}
              acceptOsFiles
              onOsDrop={(files, dir) => {
                const paths = files.map((f) => bridge.pathForFile(f)).filter((p) => p !== '');
                if (paths.length < files.length) store.localLog('warn', `${plural(files.length - paths.length, 'dropped item')} without a local path ignored`);
                void enqueue('upload', paths, dir);
              }}
              transfer={{ label: 'Download', shortcut: keyLabels.download, run: connected && localPath ? (paths) => void enqueue('download', paths, localPath) : undefined }}
              onError={logError}
              onInfo={logInfo}
            />
          </div>
          }
          queue={<QueueView />}
          graph={(fold) => <ThroughputGraph series={series} speed={graphSpeed} live={live} annotation={<LimitedBy series={series} />} {...fold} />}
          log={(fold) => <LogPanel {...fold} />}
        />
      </div>
      <StatusBar
        status={status}
        rate={queueRate}
        speedLimit={settings?.speedLimit}
        onSpeedLimit={async (speedLimit) => {
          const r = await bridge.settingsSet({ speedLimit });
          if (r.ok) store.dispatch({ type: 'settings', settings: r.value });
        }}
      />

      {hostKeyPrompt && (
        <HostKeyDialog
          prompt={hostKeyPrompt}
          siteName={sites.sites.find((s) => s.id === hostKeyPrompt.siteId)?.name}
          onAnswer={(a, typed) => void answerHostKey(a, typed)}
        />
      )}
      {authPrompt && <AuthDialog key={authPrompt.promptId} prompt={authPrompt} onAnswer={(a, r) => void answerAuth(a, r)} />}
      {knownHostsOpen && !hostKeyPrompt && <KnownHostsView onClose={() => setKnownHostsOpen(false)} onError={logError} />}
      {settingsOpen && !hostKeyPrompt && <SettingsDialog onClose={() => setSettingsOpen(false)} onError={logError} />}
      {askDisconnect && activeSite && (
        <DisconnectDialog
          siteName={activeSite.name}
          jobs={moving}
          onAnswer={(a) => {
            setAskDisconnect(false);
            if (a !== 'stay') void disconnect(a);
          }}
        />
      )}
      {conflictPrompt && <ConflictDialog prompt={conflictPrompt} pending={conflictPrompts.length - 1} onAnswer={(c, f) => void answerConflict(c, f)} />}
    </div>
  );
}
