/**
 * The files of the expanded batches (`queue.files`), fetched when a batch expands and again when its row changes, at
 * most every {@link REFRESH_MS} per batch (the last change is always fetched).
 */
import { useEffect, useRef, useState } from 'react';
import type { Bridge } from '../../app/common/ipc/contract';
import type { BatchView } from '../../app/common/queue/batches';
import type { FetchedFiles } from '../state/batchFiles';

const REFRESH_MS = 500;

interface Fetching {
  /** The view last fetched for. */
  view?: BatchView;
  last: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** The fetched files per expanded batch id. */
export function useBatchFiles(
  bridge: Bridge,
  expanded: ReadonlySet<string>,
  views: ReadonlyMap<string, BatchView>,
): ReadonlyMap<string, FetchedFiles> {
  const [files, setFiles] = useState<ReadonlyMap<string, FetchedFiles>>(new Map());
  const state = useRef(new Map<string, Fetching>());
  const latest = useRef(views);
  latest.current = views;

  useEffect(() => {
    const fetchFiles = async (batchId: string): Promise<void> => {
      const f = state.current.get(batchId);
      if (!f) return;
      f.timer = undefined;
      f.last = Date.now();
      f.view = latest.current.get(batchId);
      const r = await bridge.queueFiles({ batchId });
      if (r.ok && state.current.has(batchId)) setFiles((m) => new Map(m).set(batchId, r.value));
    };
    for (const [id, f] of state.current) {
      if (expanded.has(id)) continue;
      clearTimeout(f.timer);
      state.current.delete(id);
    }
    for (const id of expanded) {
      const f = state.current.get(id) ?? { last: 0 };
      state.current.set(id, f);
      if (f.view === views.get(id) || f.timer !== undefined) continue;
      const wait = f.last + REFRESH_MS - Date.now();
      if (wait <= 0) void fetchFiles(id);
      else f.timer = setTimeout(() => void fetchFiles(id), wait);
    }
  }, [bridge, expanded, views]);

  useEffect(
    () => () => {
      for (const f of state.current.values()) clearTimeout(f.timer);
    },
    [],
  );
  return files;
}
