/**
 * The keep-ups the service runs (#27, Keep remote up to date): `keepUp.list` once, then each `keepUp.changed` (a
 * `stopped` one leaves the list); Stop sends `keepUp.stop`.
 */
import { useCallback, useEffect, useState } from 'react';
import type { KeepUpView } from '../../app/common/ipc/keepUpIpc';
import { useBridge } from '../state/react';

/** The keep-ups in the order they started, and Stop. */
export function useKeepUps(onError: (message: string) => void) {
  const bridge = useBridge();
  const [views, setViews] = useState<KeepUpView[]>([]);
  useEffect(() => {
    let live = true;
    const put = (v: KeepUpView) =>
      setViews((now) => {
        const rest = now.filter((x) => x.keepUpId !== v.keepUpId);
        if (v.state === 'stopped') return rest;
        const at = now.findIndex((x) => x.keepUpId === v.keepUpId);
        return at < 0 ? [...now, v] : now.map((x) => (x.keepUpId === v.keepUpId ? v : x));
      });
    const off = bridge.on('keepUp.changed', put);
    void bridge.keepUpList().then((r) => {
      if (live && r.ok) for (const v of r.value) put(v);
    });
    return () => {
      live = false;
      off();
    };
  }, [bridge]);
  const stop = useCallback(
    async (keepUpId: string) => {
      const r = await bridge.keepUpStop({ keepUpId });
      if (!r.ok) onError(`Stop keeping up to date: ${r.error.message}`);
    },
    [bridge, onError],
  );
  return { views, stop };
}

/** The remote folders a view's last change touched (a rename: both names' folders), as `siteId\nfolder`. */
function touchedFolders(v: KeepUpView): string[] {
  if (!v.last) return [];
  const dirOf = (rel: string) => {
    const full = `${v.remoteRoot.replace(/\/+$/, '')}/${rel}`;
    return full.slice(0, full.lastIndexOf('/')) || '/';
  };
  const rels = v.last.from !== undefined ? [v.last.path, v.last.from] : [v.last.path];
  return [...new Set(rels.map(dirOf))].map((d) => `${v.siteId}\n${d}`);
}

/**
 * How many keep-up changes each remote folder has seen (`siteId\nfolder` → count): a remote pane showing that folder
 * lists it again (AppPanes' reload tokens), so what keep-up uploads appears there.
 */
export function useKeepUpTouches(): ReadonlyMap<string, number> {
  const bridge = useBridge();
  const [touches, setTouches] = useState<ReadonlyMap<string, number>>(new Map());
  useEffect(
    () =>
      bridge.on('keepUp.changed', (v) => {
        const keys = touchedFolders(v);
        if (keys.length === 0) return;
        setTouches((now) => {
          const next = new Map(now);
          for (const k of keys) next.set(k, (next.get(k) ?? 0) + 1);
          return next;
        });
      }),
    [bridge],
  );
  return touches;
}
