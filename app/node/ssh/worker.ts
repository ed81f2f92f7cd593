/**
 * One worker thread = one SSH connection and its SFTP channels. Cipher work, SFTP framing and the
 * file I/O of every transfer run here, off the coordinating thread; only commands, results and
 * counters cross the thread boundary (see workerProtocol.ts). This file only dispatches: the operation table and the
 * message loop, over worker/state.ts (the connection), worker/connect.ts, worker/remoteOps.ts, worker/transfers.ts
 * and worker/probe.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { SluiceError, fromLocalError } from '../errors';
import { serverSoftware } from '../ssh2x';
import { remoteSha256 } from './remoteHash';
import type { CallContext, OpName, ToWorker, WorkerOps } from './workerProtocol';
import { addChannels, connect, setChannelWindow } from './worker/connect';
import { probeOutOfOrder } from './worker/probe';
import { canWrite, list, listEach, mkdir, openAhead, rename, stat } from './worker/remoteOps';
import { call } from './worker/sftpCalls';
import { callContext, guarded, port, post, requireConn, sftpOf, state } from './worker/state';
import { checkpoint, finishUpload, getFile, putFile, rangeTask, releaseFile } from './worker/transfers';

/** The remote SHA-256 (ssh/remoteHash.ts); a re-read reports the bytes it hashed as the call's progress. */
async function hashRemote(a: WorkerOps['hashRemote'][0], ctx: CallContext): Promise<WorkerOps['hashRemote'][1]> {
  const c = requireConn();
  const software = serverSoftware(c.client);
  return remoteSha256({ client: c.client, sftp: sftpOf(a.channel), extensions: c.info.extensions, maxRead: c.info.maxRead, traits: c.hashTraits, software, sftpChannels: c.sftp.length },
    a.path, a.size, a.allowExec, a.length, (n) => ctx.progress(n));
}

/** A local file's SHA-256 (or its first `length` bytes'); the bytes hashed are the call's progress. */
async function hashLocal(a: WorkerOps['hashLocal'][0], ctx: CallContext): Promise<string> {
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

/** The operation table: every operation gets its argument and its call's context (cancel signal, progress). */
const ops: { [K in OpName]: (arg: WorkerOps[K][0], ctx: CallContext) => Promise<WorkerOps[K][1]> } = {
  connect,
  addChannels,
  setChannelWindow,
  stat,
  list,
  listEach,
  realpath: (a) => call<string>((cb) => sftpOf(a.channel).realpath(a.path, cb as never), a.path, 'REALPATH'),
  readlink: (a) => call<string>((cb) => sftpOf(a.channel).readlink(a.path, cb as never), a.path, 'READLINK'),
  mkdir,
  remove: (a) => call<void>((cb) => sftpOf(a.channel).unlink(a.path, cb as never), a.path, 'REMOVE'),
  rmdir: (a) => call<void>((cb) => sftpOf(a.channel).rmdir(a.path, cb as never), a.path, 'RMDIR'),
  rename,
  canWrite,
  download: (t, ctx) => rangeTask(t, 'download', ctx),
  upload: (t, ctx) => rangeTask(t, 'upload', ctx),
  checkpoint,
  putFile,
  getFile,
  finishUpload,
  releaseFile,
  openAhead,
  hashRemote,
  hashLocal,
  probeOutOfOrder,
  close: async () => {
    if (state.conn) {
      const c = state.conn;
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
  },
};

/** Runs call `id` and posts its result (after its last progress message). */
function runCall(msg: Extract<ToWorker, { kind: 'call' }>): void {
  const ctx = callContext(msg.id);
  const run = ops[msg.op] as (a: unknown, c: CallContext) => Promise<unknown>;
  const exec = msg.op === 'connect' || msg.op === 'close' || msg.op === 'hashLocal' ? run(msg.arg, ctx) : guarded(() => run(msg.arg, ctx));
  exec.then(
    (value) => { ctx.end(); post({ kind: 'result', id: msg.id, ok: true, value }); },
    (e: unknown) => { ctx.end(); post({ kind: 'result', id: msg.id, ok: false, error: SluiceError.from(e).toInfo() }); },
  );
}

port.on('message', (msg: ToWorker) => {
  if (msg.kind === 'call') runCall(msg);
  else if (msg.kind === 'cancel') state.calls.get(msg.id)?.abort();
  else if (msg.kind === 'items-taken') state.itemsTaken.get(msg.id)?.();
  else {
    const resolve = state.asks.get(msg.id);
    state.asks.delete(msg.id);
    resolve?.(msg);
  }
});
