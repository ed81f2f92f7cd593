/**
 * Files on this computer as a job's endpoints (endpoints.ts): the source of an upload, read by the worker; the
 * destination of a download, written under a local temporary name, fsynced, given its source's attributes and
 * renamed (localFiles.ts).
 */
import fs from 'node:fs';
import { fromLocalError, SluiceError } from '../errors';
import type { KeptAttributes } from '../ssh/workerProtocol';
import { releaseReservation } from '../sys/preallocate';
import type { CommitMode } from './conflict';
import type { DestinationEndpoint, EndpointFile, FileEnd, SourceEndpoint } from './endpoints';
import { tempNameFor } from './fileNames';
import { createLocalTemp, keepLocalAttributes, localCommit, localFinish } from './localFiles';
import { ensureLocalSpace } from './localSpace';
import { planSparseUpload, type SparsePlan } from './sparseUpload';
import type { EventSink, FileTimes } from './types';

/** A local file a job reads. */
export class LocalSource implements SourceEndpoint {
  readonly side = 'local';
  readonly pathKey = 'localPath';

  /** @param events where a sparse plan is told (its `info` log event) */
  constructor(private readonly events: EventSink) {}

  async stat(p: string): Promise<FileTimes | null> {
    const st = await fs.promises.stat(p).catch(() => null);
    return st?.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  async checkUnchanged(f: EndpointFile): Promise<void> {
    const st = await fs.promises.stat(f.src).catch((e: unknown) => {
      throw fromLocalError(e, f.src, 'stat');
    });
    if (st.size === f.size && Math.trunc(st.mtimeMs) === Math.trunc(f.mtimeMs)) return;
    throw new SluiceError(
      'SOURCE_CHANGED',
      `${f.src} changed while it was sent (${f.size} → ${st.size} bytes, modified ` +
        `${new Date(st.mtimeMs).toISOString()}): the copy is not committed`,
    );
  }

  dataRanges(f: EndpointFile, clearTemp?: () => Promise<boolean>): Promise<SparsePlan | undefined> {
    return planSparseUpload(f, clearTemp, this.events);
  }
}

/** A local file a job writes: a temporary file beside the target, renamed onto it once verified. */
export class LocalDestination implements DestinationEndpoint {
  readonly side = 'local';
  readonly pathKey = 'localPath';
  readonly finishReleasesLane = false;

  tempName(dst: string): string {
    return tempNameFor(dst, false);
  }

  /** The worker creates a download's temporary file with tempFileMode of the source's mode itself. */
  createMode(sourceMode: number): number {
    return sourceMode;
  }

  stat(p: string): Promise<FileTimes | null> {
    return fs.promises.lstat(p).then(
      (s) => ({ size: s.size, mtimeMs: s.mtimeMs }),
      () => null,
    );
  }

  remove(p: string): Promise<boolean> {
    return fs.promises.unlink(p).then(
      () => true,
      (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
    );
  }

  ensureRoom(dst: string, bytes: number): Promise<void> {
    return ensureLocalSpace(dst, bytes);
  }

  /** A local file takes writes at any offset, from any number of handles. */
  takesOutOfOrder(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** Nothing to open ahead: local handles cost no round trip. */
  openAhead(): [] {
    return [];
  }

  /** Created at its full length before segments write into it (localFiles.ts createLocalTemp). */
  prepareSegments(f: EndpointFile): Promise<void> {
    return createLocalTemp(f.temp, f.size, f.mode);
  }

  async finish(
    _lane: unknown,
    f: EndpointFile,
    _keep: KeptAttributes | undefined,
    released: Promise<unknown>,
  ): Promise<FileEnd> {
    // Every handle of the file must be closed before its fsync and size check.
    await released;
    return { size: await localFinish(f.temp) };
  }

  async commit(
    _lane: unknown,
    f: EndpointFile,
    mode: CommitMode,
    keep: KeptAttributes | undefined,
  ): Promise<SluiceError | undefined> {
    // In place, the target keeps its own mode.
    const refused = await keepLocalAttributes(f.temp, keep, f.inPlace ? undefined : f.mode);
    if (!f.inPlace) await localCommit(f.temp, f.dst, mode);
    return refused;
  }

  removeTemp(f: EndpointFile): Promise<unknown> {
    return f.inPlace ? Promise.resolve() : fs.promises.unlink(f.temp).catch(() => undefined);
  }

  /** Cut after its last recorded byte: gives back the disk its preallocation reserved (sys/preallocate.ts). */
  keepTemp(f: EndpointFile, recordedEnd: number): Promise<unknown> {
    return f.inPlace ? Promise.resolve() : releaseReservation(f.temp, recordedEnd);
  }

  /** A local temporary file that cannot be created fails the file: no writing into the target instead. */
  writesInPlaceAfter(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** A local file's segments are never refused by a server: their failure is the file's. */
  segmentsRefused(): boolean {
    return false;
  }

  segmentedWrites(): undefined {
    return undefined;
  }
}
