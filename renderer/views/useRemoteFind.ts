/**
 * One remote find at a time (`remote.find`, its `find.hits` batches, `remote.findCancel`) for the Find dialog: the
 * matches as they stream in, the running counts, the report at the end, and the notes (a symlink loop visited once,
 * a folder not listed).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FindHit, FindMatch, FindNote, FindReport } from '../../app/common/ipc/find';
import { useBridge } from '../state/react';

export interface FindQuery {
  pattern: string;
  match: FindMatch;
  caseSensitive: boolean;
}

let findCount = 0;

/** The find's state and its start and stop. */
export function useRemoteFind(siteId: string, root: string) {
  const bridge = useBridge();
  const [hits, setHits] = useState<FindHit[]>([]);
  const [notes, setNotes] = useState<FindNote[]>([]);
  const [counts, setCounts] = useState({ folders: 0, matched: 0 });
  const [report, setReport] = useState<FindReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<string | null>(null);
  const current = useRef<string | null>(null);

  useEffect(
    () =>
      bridge.on('find.hits', (b) => {
        if (b.findId !== current.current) return;
        if (b.hits.length) setHits((h) => [...h, ...b.hits]);
        if (b.notes.length) setNotes((n) => [...n, ...b.notes]);
        setCounts({ folders: b.folders, matched: b.matched });
      }),
    [bridge],
  );

  const stop = useCallback(() => {
    const id = current.current;
    if (id) void bridge.remoteFindCancel({ findId: id });
  }, [bridge]);
  // A dialog closed while its find runs ends the find.
  useEffect(() => stop, [stop]);

  const start = async (q: FindQuery) => {
    stop();
    const findId = `find-${Date.now()}-${++findCount}`;
    current.current = findId;
    setHits([]);
    setNotes([]);
    setCounts({ folders: 0, matched: 0 });
    setReport(null);
    setError(null);
    setRunning(findId);
    const r = await bridge.remoteFind({ siteId, findId, root, ...q });
    if (current.current !== findId) return;
    current.current = null;
    setRunning(null);
    if (!r.ok) return setError(r.error.message);
    setReport(r.value);
    setCounts({ folders: r.value.folders, matched: r.value.matched });
  };
  return { hits, notes, counts, report, error, running: running !== null, start, stop };
}
