/**
 * One worker thread = one SSH connection and its SFTP channels. Cipher work, SFTP framing and the
 * file I/O of every transfer run here, off the coordinating thread; only commands, results and
 * counters cross the thread boundary (see workerProtocol.ts). This file only dispatches: every operation is
 * `op(conn, arg, ctx)`, given the worker's one connection (worker/conn.ts) and its call's context (cancel signal,
 * progress, batches) explicitly, as vscode's IServerChannel.call(ctx, …); the operations live in worker/connect.ts,
 * worker/channels.ts, worker/remoteOps.ts, worker/fileOps.ts, worker/transfers.ts and worker/probe.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { SluiceError, fromLocalError } from '../errors';
import { serverSoftware } from '../ssh2x';
import { remoteSha256 } from './remoteHash';
import type { CallContext, OpName, ToWorker, WorkerOps } from './workerProtocol';
import { addChannels, setChannelWindow } from './worker/channels';
import { WorkerConn } from './worker/conn';
import { connect } from './worker/connect';
import { setMode, statLong, statvfs, symlink } from './worker/fileOps';
import { copyData, createFile } from './worker/createOps';
import { CoordinatorLink } from './worker/link';
import { probeOutOfOrder } from './worker/probe';
import { canWrite, list, listEach, mkdir, openAhead, rename, stat } from './worker/remoteOps';
import { call } from './worker/sftpCalls';
import { checkpoint, finishUpload, getFile, putFile, rangeTask, releaseFile } from './worker/transfers';

/** The remote SHA-256 (ssh/remoteHash.ts); a re-read reports the bytes it hashed as the call's progress. */
async function hashRemote(
  conn: WorkerConn,
  a: WorkerOps['hashRemote'][0],
  ctx: CallContext,
): Promise<WorkerOps['hashRemote'][1]> {
  const c = conn.require();
  const software = serverSoftware(c.client);
  return remoteSha256(
    {
      client: c.client,
      sftp: conn.sftpOf(a.channel),
      extensions: c.info.extensions,
      maxRead: c.info.maxRead,
      traits: c.hashTraits,
      software,
      sftpChannels: c.sftp.length,
    },
    a.path,
    a.size,
    a.allowExec,
    a.length,
    (n) => ctx.progress(n),
    !a.serverOnly,
  );
}

/** A local file's SHA-256 (or its first `length` bytes'); the bytes hashed are the call's progress. */
async function hashLocal(_conn: WorkerConn, a: WorkerOps['hashLocal'][0], ctx: CallContext): Promise<string> {
  const hash = createHash('sha256');
  if (a.length === 0) return hash.digest('hex');
  // `end` is inclusive; a file shorter than `length` hashes what there is
  const range = a.length === undefined ? {} : { start: 0, end: a.length - 1 };
  try {
    for await (const chunk of fs.createReadStream(a.path, { highWaterMark: 1 << 20, ...range })) {
      hash.update(chunk as Buffer);
      ctx.progress((chunk as Buffer).length);
    }
  } catch (e) {
    throw fromLocalError(e, a.path);
  }
  return hash.digest('hex');
}

/** An operation: the connection, the call's argument and its context. */
type Op<K extends OpName> = (conn: WorkerConn, arg: WorkerOps[K][0], ctx: CallContext) => Promise<WorkerOps[K][1]>;

/** Closes the connection: the target first, then its jump hosts, the first hop's socket last. */
async function close(conn: WorkerConn): Promise<void> {
  const c = conn.open;
  if (!c) return;
  await new Promise<void>((resolve) => {
    c.client.once('close', () => resolve());
    // SSH_MSG_DISCONNECT (RFC 4253 §11.1) and our FIN leave the socket: nothing more is owed either way, so the
    // server's FIN is not waited for (half a round trip, at the end of every CLI run).
    c.sock.once('finish', () => resolve());
    c.client.end();
    setTimeout(resolve, 2000).unref();
  });
  // Jump hosts after the target (its DISCONNECT goes out through them first), the first hop's socket last.
  if (c.hopSock) {
    const first = c.hopSock;
    await new Promise<void>((resolve) => {
      first.once('finish', () => resolve()).once('close', () => resolve());
      for (const h of [...c.hops].reverse()) h.end();
      setTimeout(resolve, 2000).unref();
    });
  }
}

/** The operation table. */
const ops: { [K in OpName]: Op<K> } = {
  connect,
  addChannels,
  setChannelWindow,
  stat,
  list,
  listEach,
  statLong,
  setMode,
  symlink,
  createFile,
  copyData,
  statvfs,
  realpath: (conn, a) => call<string>((cb) => conn.sftpOf(a.channel).realpath(a.path, cb), a.path, 'REALPATH'),
  readlink: (conn, a) => call<string>((cb) => conn.sftpOf(a.channel).readlink(a.path, cb), a.path, 'READLINK'),
  mkdir,
  remove: (conn, a) => call<void>((cb) => conn.sftpOf(a.channel).unlink(a.path, cb), a.path, 'REMOVE'),
  rmdir: (conn, a) => call<void>((cb) => conn.sftpOf(a.channel).rmdir(a.path, cb), a.path, 'RMDIR'),
  rename,
  canWrite,
  download: (conn, t, ctx) => rangeTask(conn, t, 'download', ctx),
  upload: (conn, t, ctx) => rangeTask(conn, t, 'upload', ctx),
  checkpoint,
  putFile,
  getFile,
  finishUpload,
  releaseFile,
  openAhead,
  hashRemote,
  hashLocal,
  probeOutOfOrder,
  close,
};

/** Ops that run whatever state the connection is in (the others fail at once once it is lost). */
const UNGUARDED: ReadonlySet<OpName> = new Set<OpName>(['connect', 'close', 'hashLocal']);

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
const link = new CoordinatorLink(parentPort);
/** This worker's one connection, handed to every operation. */
const conn = new WorkerConn(link);

/** Runs call `id` and posts its result (after its last progress message). */
function runCall(msg: Extract<ToWorker, { kind: 'call' }>): void {
  const ctx = link.callContext(msg.id);
  const run = ops[msg.op] as (c: WorkerConn, a: unknown, x: CallContext) => Promise<unknown>;
  const exec = UNGUARDED.has(msg.op) ? run(conn, msg.arg, ctx) : conn.guarded(() => run(conn, msg.arg, ctx));
  exec.then(
    (value) => {
      ctx.end();
      link.post({ kind: 'result', id: msg.id, ok: true, value });
    },
    (e: unknown) => {
      ctx.end();
      link.post({ kind: 'result', id: msg.id, ok: false, error: SluiceError.from(e).toInfo() });
    },
  );
}

parentPort.on('message', (msg: ToWorker) => {
  if (!link.route(msg) && msg.kind === 'call') runCall(msg);
});
