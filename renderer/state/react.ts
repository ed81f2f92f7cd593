/**
 * React bindings of the store: a context carrying the store and hooks reading it with useSyncExternalStore.
 */
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { Bridge } from '../../app/common/ipc/contract';
import type { AppState } from './appState';
import type { AppStore } from './store';

export const StoreContext = createContext<AppStore | null>(null);

/** The store of the nearest provider. @throws Error outside a provider */
export function useStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore outside <StoreContext.Provider>');
  return store;
}

/** The bridge the store talks to (for actions: connect, enqueue, answers…). */
export function useBridge(): Bridge {
  return useStore().bridge;
}

/** Subscribes to the whole state and re-renders on change; pass a selector to narrow it. */
export function useAppState<T>(select: (s: AppState) => T): T {
  const store = useStore();
  return useSyncExternalStore(store.subscribe, () => select(store.getSnapshot()));
}
