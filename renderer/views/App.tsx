/**
 * The application shell: toolbar (theme), site manager, local and remote panes, queue, throughput graph,
 * log and status bar, plus the prompts the engine raises (host key, login questions, conflict).
 * It turns gestures into bridge intents (connect, enqueue, answers); the engine decides everything else.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { SessionStatus, Theme } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { resolveTheme } from '../state/theme';
import { RateSeries } from '../state/series';
import { liveConnections, queueSpeed, siteSpeed } from '../state/speeds';
import { useAppState, useBridge, useStore } from '../state/react';
import { AppPanes } from './AppPanes';
import { PromptDialogs, usePrompts } from './AppPrompts';
import { AppNotices, AppToolbar } from './AppToolbar';
import { DisconnectDialog } from './DisconnectDialog';
import { KnownHostsView } from './KnownHostsView';
import { LogPanel } from './LogPanel';
import { OpenFiles } from './OpenFiles';
import { QueueView } from './QueueView';
import { SettingsDialog } from './SettingsDialog';
import { SiteManager, type TreeSelection } from './SiteManager';
import { StatusBar } from './StatusBar';
import { KeepUpStatus } from './KeepUpStatus';
import { useKeepUps } from './useKeepUps';
import { ThroughputGraph } from './ThroughputGraph';
import { LimitedBy } from './LimitedBy';
import { WorkspaceLayout } from './WorkspaceLayout';
import { QuickConnectBar } from './QuickConnect';
import { quickToForm, type SiteForm } from '../state/siteForm';
import { sessionLive, useActiveSite } from './useActiveSite';

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

/** The settings' theme, applied to the document (System follows the OS's dark mode). */
function useTheme(): Theme {
  const settings = useAppState((s) => s.settings);
  const prefersDark = usePrefersDark();
  const theme: Theme = settings?.theme ?? 'system';
  useEffect(() => {
    document.documentElement.dataset.theme = resolveTheme(theme, prefersDark);
  }, [theme, prefersDark]);
  return theme;
}

/** The toolbar's line: whom the window talks to now, from the session's state alone. */
function sessionTitle(status: SessionStatus | undefined, site: SiteView | undefined): string {
  if (!status || !site || !sessionLive(status)) return 'No site connected';
  const who = `${site.user}@${site.host}:${site.port}`;
  if (status.state === 'connecting') return `Connecting to ${who}…`;
  return status.state === 'reconnecting' ? `${who} (reconnecting)` : who;
}

/**
 * One speed source (state/speeds.ts): the status bar's speed is the queue footer's, the graph's total the site's
 * share.
 */
function useSpeeds(activeSiteId: string | null, status: SessionStatus | undefined) {
  const queue = useAppState((s) => s.queue);
  const seriesBySite = useAppState((s) => s.series);
  const series = (activeSiteId && seriesBySite[activeSiteId]) || EMPTY_SERIES;
  const queueRate = useMemo(() => queueSpeed(queue), [queue]);
  const live = useMemo(() => liveConnections(status?.state === 'connected' ? status.pool : undefined), [status]);
  const graphSpeed = useMemo(
    () => siteSpeed(queue, activeSiteId ?? '', series, live),
    [queue, activeSiteId, series, live],
  );
  return { series, queueRate, live, graphSpeed };
}

/** The status bar's speed limit chooser: saves the `speedLimit` setting. */
function useSetSpeedLimit() {
  const store = useStore();
  const bridge = useBridge();
  return useCallback(
    async (speedLimit: number) => {
      const r = await bridge.settingsSet({ speedLimit });
      if (r.ok) store.dispatch({ type: 'settings', settings: r.value });
    },
    [bridge, store],
  );
}

/** The window's dialogs under the prompts: known hosts, Settings, and what a Disconnect does to running jobs. */
function AppDialogs({
  prompts,
  site,
  knownHostsOpen,
  settingsOpen,
  onCloseKnownHosts,
  onCloseSettings,
  onError,
}: {
  prompts: ReturnType<typeof usePrompts>;
  site: ReturnType<typeof useActiveSite>;
  knownHostsOpen: boolean;
  settingsOpen: boolean;
  onCloseKnownHosts: () => void;
  onCloseSettings: () => void;
  onError: (m: string) => void;
}) {
  const hostKeyOpen = !!prompts.hostKeyPrompt;
  const { activeSite, disconnect } = site;
  return (
    <PromptDialogs prompts={prompts}>
      {knownHostsOpen && !hostKeyOpen && <KnownHostsView onClose={onCloseKnownHosts} onError={onError} />}
      {settingsOpen && !hostKeyOpen && <SettingsDialog onClose={onCloseSettings} onError={onError} />}
      {site.askDisconnect && activeSite && (
        <DisconnectDialog
          siteName={activeSite.name}
          jobs={site.moving}
          onAnswer={(a) => {
            site.setAskDisconnect(false);
            if (a !== 'stay') void disconnect(a);
          }}
        />
      )}
    </PromptDialogs>
  );
}

/** The whole window. */
export function App() {
  const store = useStore();
  const settings = useAppState((s) => s.settings);
  const setSpeedLimit = useSetSpeedLimit();
  const theme = useTheme();
  const [selection, setSelection] = useState<TreeSelection>(null);
  const [knownHostsOpen, setKnownHostsOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  /** The quick-connect bar's "Save as site" form. */
  const [siteDraft, setSiteDraft] = useState<SiteForm | null>(null);
  const draftTaken = useCallback(() => setSiteDraft(null), []);
  const site = useActiveSite();
  const { activeSiteId, activeSite, status, quickSite, connect, disconnect } = site;
  const { series, queueRate, live, graphSpeed } = useSpeeds(activeSiteId, status);
  const tabbed = useMemo(() => new Set(site.tabs.tabs.map((t) => t.siteId)), [site.tabs]);
  const prompts = usePrompts(connect);
  const logError = useCallback((m: string) => store.localLog('error', m), [store]);
  const logInfo = useCallback((m: string) => store.localLog('info', m), [store]);
  const keepUps = useKeepUps(logError);

  return (
    <div className="app">
      <AppToolbar
        title={sessionTitle(status, activeSite)}
        theme={theme}
        canDisconnect={sessionLive(status)}
        onKnownHosts={() => setKnownHostsOpen(true)}
        onSettings={() => setSettingsOpen(true)}
        onDisconnect={() => void disconnect()}
      />
      <QuickConnectBar
        current={quickSite?.id === activeSiteId ? quickSite : undefined}
        onConnect={(quick) => void connect(quick)}
        onSave={(quick) => setSiteDraft(quickToForm(quick))}
      />
      <AppNotices status={status} />
      <OpenFiles onError={logError} />
      <div className="main">
        <SiteManager
          selection={selection}
          onSelect={setSelection}
          onConnect={(s, newTab) => void connect(s, { newTab })}
          tabbed={tabbed}
          draft={siteDraft}
          onDraftTaken={draftTaken}
        />
        <WorkspaceLayout
          panes={<AppPanes {...site} onError={logError} onInfo={logInfo} />}
          queue={<QueueView />}
          graph={(fold) => (
            <ThroughputGraph
              series={series}
              speed={graphSpeed}
              live={live}
              annotation={<LimitedBy series={series} />}
              {...fold}
            />
          )}
          log={(fold) => <LogPanel {...fold} />}
        />
      </div>
      <StatusBar
        status={status}
        rate={queueRate}
        speedLimit={settings?.speedLimit}
        onSpeedLimit={setSpeedLimit}
        keepUps={<KeepUpStatus views={keepUps.views} onStop={(id) => void keepUps.stop(id)} />}
      />
      <AppDialogs
        prompts={prompts}
        site={site}
        knownHostsOpen={knownHostsOpen}
        settingsOpen={settingsOpen}
        onCloseKnownHosts={() => setKnownHostsOpen(false)}
        onCloseSettings={() => setSettingsOpen(false)}
        onError={logError}
      />
    </div>
  );
}
