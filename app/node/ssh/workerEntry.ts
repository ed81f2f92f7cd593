/**
 * Entry of a connection worker thread: starts the first connection's TCP connection and identification exchange
 * (`workerData.preconnect`, or where `workerData.preconnectFrom` says; see preconnect.ts) before loading ssh2 and the
 * worker proper. Loading takes ~50–100 ms of this thread, during which it could not write the identification string, so
 * loading waits for the TCP connection, at most {@link CONNECT_WAIT_MS} (on loopback or a LAN it is there at once).
 */
import { setFlagsFromString } from 'node:v8';
import { workerData } from 'node:worker_threads';
import { preconnect, type PreconnectResolver } from './preconnect';

const CONNECT_WAIT_MS = 100;

const load = () => {
  // connection.ts keepV8Flags: this thread's start has reset V8's flags, for the whole process.
  void import('./worker').then(() => {
    for (const flag of data?.heapFlags ?? []) setFlagsFromString(flag);
  });
};
type Target = { host: string; port: number };
const data = workerData as {
  preconnect?: Target;
  preconnectFrom?: PreconnectResolver;
  heapFlags?: string[];
} | null;

/**
 * Where to preconnect, when the caller left it to a resolver module (the CLI's cli/preconnectTarget.js: its host
 * through ~/.ssh/config), which then runs here, off the coordinating thread. A resolver that fails means no preconnect.
 */
function resolved(r: PreconnectResolver | undefined): Target | undefined {
  if (!r) return undefined;
  try {
    return (require(r.module) as { preconnectTarget(args: string[]): Target | undefined }).preconnectTarget(r.args);
  } catch {
    return undefined;
  }
}

const target = data?.preconnect ?? resolved(data?.preconnectFrom);
if (target) {
  const sock = preconnect(target.host, target.port);
  let loaded = false;
  const once = () => {
    if (!loaded) {
      loaded = true;
      clearTimeout(timer);
      setImmediate(load);
    }
  };
  const timer = setTimeout(once, CONNECT_WAIT_MS);
  // After preconnect's own 'connect' listener (which writes the identification string); errors: load anyway.
  sock.once('connect', once).once('error', once);
} else {
  load();
}
