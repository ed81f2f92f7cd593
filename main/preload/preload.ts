/**
 * The contextBridge allowlist: `window.sluice` gets one named function per contract channel, `on()` for
 * the contract's events only, and `pathForFile()` for files dropped from the OS. Nothing generic
 * (no `invoke(channel)`, no `send`, no raw ipcRenderer), and no IpcRendererEvent reaches the page.
 *
 * Sandboxed preloads can only `require('electron')` (and a few Node built-ins), so this file imports the
 * contract for types only; the channel and event names are spelled here and the unit test checks them
 * against the contract (app/common/ipc/contract.ts).
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { Bridge, EventName, EventPayloads, InvokeChannel } from '../../app/common/ipc/contract';

/** Same format as `invokeIpcChannel()` in the contract. */
const call = (channel: InvokeChannel) => (request?: unknown) => ipcRenderer.invoke(`sluice:invoke:${channel}`, request);

const EVENTS: { readonly [E in EventName]: true } = {
  'queue.snapshot': true,
  'queue.delta': true,
  progress: true,
  'hostKey.prompt': true,
  'auth.prompt': true,
  'hostKey.learned': true,
  'conflict.prompt': true,
  'prompt.closed': true,
  'session.status': true,
  log: true,
  'edit.changed': true,
  'edit.closed': true,
  'find.hits': true,
  'keepUp.changed': true,
};

type GetPathForFile = typeof webUtils.getPathForFile;

export const api: Bridge = {
  sitesList: call('sites.list'),
  sitesSave: call('sites.save'),
  sitesDelete: call('sites.delete'),
  sitesDuplicate: call('sites.duplicate'),
  sitesImportPreview: call('sites.importPreview'),
  sitesImport: call('sites.import'),
  sitesExport: call('sites.export'),
  sitesTest: call('sites.test'),
  sitesTestCancel: call('sites.testCancel'),
  sitesQuick: call('sites.quick'),
  dialogOpenFile: call('dialog.openFile'),
  algorithmsCatalog: call('algorithms.catalog'),
  foldersCreate: call('folders.create'),
  foldersDelete: call('folders.delete'),
  sessionConnect: call('session.connect'),
  sessionDisconnect: call('session.disconnect'),
  sessionList: call('session.list'),
  hostKeyAnswer: call('hostKey.answer'),
  authAnswer: call('auth.answer'),
  knownHostsList: call('knownHosts.list'),
  knownHostsRemove: call('knownHosts.remove'),
  remoteList: call('remote.list'),
  remoteMkdir: call('remote.mkdir'),
  remoteRename: call('remote.rename'),
  remoteRemove: call('remote.remove'),
  remoteStat: call('remote.stat'),
  remoteChmod: call('remote.chmod'),
  syncPreview: call('sync.preview'),
  syncCancel: call('sync.cancel'),
  syncRun: call('sync.run'),
  keepUpStart: call('keepUp.start'),
  keepUpStop: call('keepUp.stop'),
  keepUpList: call('keepUp.list'),
  remoteFind: call('remote.find'),
  remoteFindCancel: call('remote.findCancel'),
  bookmarksList: call('bookmarks.list'),
  bookmarksAdd: call('bookmarks.add'),
  bookmarksRemove: call('bookmarks.remove'),
  localList: call('local.list'),
  localMkdir: call('local.mkdir'),
  localRename: call('local.rename'),
  localRemove: call('local.remove'),
  localHome: call('local.home'),
  remoteDuplicate: call('remote.duplicate'),
  remoteNewFile: call('remote.newFile'),
  remoteSymlink: call('remote.symlink'),
  localDuplicate: call('local.duplicate'),
  localNewFile: call('local.newFile'),
  localSymlink: call('local.symlink'),
  localOpen: call('local.open'),
  dragOut: call('drag.out'),
  queueEnqueue: call('queue.enqueue'),
  queueSnapshot: call('queue.snapshot'),
  queuePause: call('queue.pause'),
  queueResume: call('queue.resume'),
  queueCancel: call('queue.cancel'),
  queueRetry: call('queue.retry'),
  queuePauseAll: call('queue.pauseAll'),
  queueResumeAll: call('queue.resumeAll'),
  queueRetryFailed: call('queue.retryFailed'),
  queueMove: call('queue.move'),
  queueFiles: call('queue.files'),
  queueClearFinished: call('queue.clearFinished'),
  conflictAnswer: call('conflict.answer'),
  editOpen: call('edit.open'),
  editList: call('edit.list'),
  editResolve: call('edit.resolve'),
  editClose: call('edit.close'),
  settingsGet: call('settings.get'),
  settingsSet: call('settings.set'),
  algorithmsMeasurement: call('algorithms.measurement'),
  algorithmsMeasure: call('algorithms.measure'),

  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
    if (!Object.prototype.hasOwnProperty.call(EVENTS, event) || typeof listener !== 'function') {
      throw new TypeError(`Unknown event ${String(event)}`);
    }
    const channel = `sluice:event:${event}`;
    const forward = (_e: IpcRendererEvent, payload: EventPayloads[E]): void => listener(payload);
    ipcRenderer.on(channel, forward);
    return () => {
      ipcRenderer.removeListener(channel, forward);
    };
  },

  pathForFile(file: object): string {
    try {
      return webUtils.getPathForFile(file as Parameters<GetPathForFile>[0]);
    } catch {
      return '';
    }
  },
};

contextBridge.exposeInMainWorld('sluice', api);
