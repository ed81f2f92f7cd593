/**
 * Synchronized browsing in the panes (FileZilla's; the path arithmetic is state/syncBrowsing.ts): switched on, the
 * local and remote folders shown are paired; when one pane lists another folder, the other pane is sent to the
 * matching folder once that folder was listed; a folder missing on the other side is said in the log and switches the
 * mode off (the pane that moved stays where it went). The state lives with the panes' owner (one pair per tab).
 */
import { useCallback, useRef, useState } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import { displayText } from '../../app/common/displayText';
import { localFor, remoteFor, type PathSep, type SyncPair } from '../state/syncBrowsing';

export interface SyncBrowsingPorts {
  localPath: string | null;
  remotePath: string | null;
  localSep: PathSep;
  listLocal: (path: string) => Promise<Result<Listing>>;
  listRemote: (path: string) => Promise<Result<Listing>>;
  setLocalPath: (p: string) => void;
  setRemotePath: (p: string) => void;
  onError: (message: string) => void;
}

/** The toggle's state, and what each pane's navigation calls. */
export function useSyncBrowsing(p: SyncBrowsingPorts) {
  const [pair, setPair] = useState<SyncPair | null>(null);
  const pairRef = useRef(pair);
  pairRef.current = pair;
  /** The folders each side was last at (its own moves, or where the mode sent it). */
  const at = useRef({ local: p.localPath, remote: p.remotePath });
  const ports = useRef(p);
  ports.current = p;

  const off = (why: string) => {
    setPair(null);
    ports.current.onError(`Synchronized browsing is off: ${why}`);
  };
  /** One side moved to `to`: the other goes to its counterpart, if it has one and it can be listed. */
  const moved = useCallback(async (side: 'local' | 'remote', to: string) => {
    const was = at.current[side];
    at.current[side] = to;
    const pr = pairRef.current;
    if (!pr || was === to) return;
    const other = side === 'remote' ? 'local' : 'remote';
    const target = side === 'remote' ? localFor(pr, to) : remoteFor(pr, to);
    const q = ports.current;
    const shownTo = displayText(to);
    if (target === null) return off(`the ${other} side has no folder matching ${shownTo}`);
    if (target === at.current[other]) return;
    const r = await (other === 'local' ? q.listLocal(target) : q.listRemote(target));
    if (pairRef.current !== pr) return;
    if (!r.ok) return off(`${other} folder ${displayText(target)} is missing (${r.error.message})`);
    at.current[other] = r.value.path;
    (other === 'local' ? q.setLocalPath : q.setRemotePath)(r.value.path);
  }, []);

  const toggle = () => {
    if (pair) return setPair(null);
    const { localPath, remotePath, localSep } = ports.current;
    if (localPath === null || remotePath === null) return;
    at.current = { local: localPath, remote: remotePath };
    setPair({ local: localPath, localSep, remote: remotePath });
  };
  const localMoved = useCallback((path: string) => void moved('local', path), [moved]);
  const remoteMoved = useCallback((path: string) => void moved('remote', path), [moved]);
  const reset = useCallback(() => setPair(null), []);
  return {
    on: pair !== null,
    /** Switches the mode off without a word (another site, a disconnect). */
    reset,
    canToggle: p.localPath !== null && p.remotePath !== null,
    toggle,
    localMoved,
    remoteMoved,
  };
}
