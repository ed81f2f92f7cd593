/**
 * The service's side of the edit desk (app/node/edit/): its transfers are the queue's jobs, its STATs go through the
 * site's session, its events are the service's `edit.changed` and `edit.closed`, and a file opens in Settings' editor
 * command, else through `openPath` (Electron's shell.openPath, from main/).
 */
import type { Job } from '../../common/model/job';
import { isFinished } from '../../common/model/job';
import type { EventName, EventPayloads, InvokeRequests, InvokeResponses } from '../../common/ipc/contract';
import { SluiceError } from '../errors';
import { remoteFilesOf } from '../engine/engine';
import { EditDesk } from '../edit/editDesk';
import { launchEditor } from '../edit/launch';
import type { EditPorts, JobEnd } from '../edit/ports';
import type { ServiceHub } from './hub';
import type { JobQueue } from './queue';
import type { SiteSessions } from './sessions';

type Subscribe = (listener: <E extends EventName>(event: E, payload: EventPayloads[E]) => void) => () => void;

/** What the edit desk's ports are made of. */
export interface EditPortDeps {
  home: string;
  hub: ServiceHub;
  queue: JobQueue;
  sessions: SiteSessions;
  subscribe: Subscribe;
  env: NodeJS.ProcessEnv;
  /** Opens a file in the system's default application; resolves to '' or an error message (shell.openPath's shape). */
  openPath?: ((file: string) => Promise<string>) | undefined;
}

/**
 * The service's edit desk, with the edits a previous run left restored; restoring is synchronous up to its first
 * await, so the leftover jobs of edits are cancelled before the queue starts them.
 */
export function startEditDesk(d: EditPortDeps): EditDesk {
  const desk = new EditDesk(editPorts(d));
  void desk.restore().catch((e: unknown) => d.hub.log('error', `Open files: restoring the edits failed: ${String(e)}`));
  return desk;
}

type EditChannel = 'edit.open' | 'edit.list' | 'edit.resolve' | 'edit.close';

type EditHandlers = { [C in EditChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]> };

/** The service's `edit.*` channels over the desk. */
export function editHandlers(desk: EditDesk): EditHandlers {
  return {
    'edit.open': async ({ siteId, path }) => desk.open(siteId, path),
    'edit.list': async () => desk.listRestored(),
    'edit.resolve': async ({ editId, choice }) => desk.resolve(editId, choice),
    'edit.close': async ({ editId, force }) => desk.close(editId, force ?? false),
  };
}

/** Resolves when job `jobId` of `jobs()` is done, failed or cancelled (cancelled too when it left the queue). */
export function jobSettled(subscribe: Subscribe, jobs: () => readonly Job[], jobId: string): Promise<JobEnd> {
  return new Promise((resolve) => {
    let off = (): void => undefined;
    const check = (): void => {
      const job = jobs().find((j) => j.id === jobId);
      if (job && !isFinished(job.state)) return;
      off();
      resolve(job ?? { state: 'cancelled' });
    };
    off = subscribe((event) => {
      if (event === 'queue.delta') check();
    });
    check();
  });
}

/** The edit desk's ports over the service's parts. */
export function editPorts(d: EditPortDeps): EditPorts {
  return {
    home: d.home,
    clock: () => d.hub.clock(),
    enqueue: (t) =>
      d.queue.enqueue(
        { siteId: t.siteId, direction: t.direction, sources: [t.source], dest: t.dest },
        { conflict: t.conflict, ...(t.preservePermissions ? { preservePermissions: true } : {}) },
      )[0],
    settled: (jobId) => jobSettled(d.subscribe, () => d.queue.jobs(), jobId),
    jobs: () => d.queue.jobs(),
    cancelJob: (jobId) => d.queue.perform({ type: 'cancel', jobId }),
    stat: (siteId, p) => d.sessions.browse(siteId, (engine) => engine.stat(p)),
    remoteHash: (siteId, p, size) =>
      d.sessions.browse(siteId, async (engine) => {
        const args = { path: p, size, allowExec: true, serverOnly: true };
        return (await remoteFilesOf(engine).pool.call('hashRemote', args)).sha256 || null;
      }),
    realpath: (siteId, p) => d.sessions.browse(siteId, (engine) => engine.realpath(p)),
    openEditor: async (file) => {
      const command = d.hub.store.getSetting<string>('editorCommand');
      if (command) return launchEditor(command, file, d.env);
      if (!d.openPath) return;
      const failure = await d.openPath(file);
      if (failure) throw new SluiceError('USAGE', `Cannot open ${file}: ${failure}`);
    },
    changed: (view) => d.hub.emit('edit.changed', view),
    closed: (editId) => d.hub.emit('edit.closed', { editId }),
    log: (level, message, siteId) => d.hub.log(level, message, siteId),
  };
}
