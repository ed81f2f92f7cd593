/**
 * A failing native addon call falls back to the JavaScript path instead of failing the transfer (#30 item 10): on
 * Windows a handle lookup can fail where Linux never does, so every call is made to fail here with
 * SLUICE_NATIVE_FAULT (EBADF, as a failed uv_get_osfhandle reports). Unit level: reserveSpace goes on without a
 * reservation, dataRanges scans, readTcpInfo asks `ss`. End to end: a segmented download and a sparse upload through
 * the real CLI against a private sshd arrive byte-identical with every addon call failing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { nativeAddon } from '../sys/native';
import { reserveSpace } from '../sys/preallocate';
import { dataRanges } from '../sys/sparse';
import { readTcpInfo } from '../sys/tcpInfo';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  startTestServer,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

const MiB = 1024 * 1024;
const ALL_FAULTS = 'tcpInfo,preallocate,dataRanges';
const skip = nativeAddon() ? undefined : 'the native addon is not built (npm run build:native)';
if (skip) process.stdout.write(`# skipped: ${skip}\n`);

async function withFaults<T>(fn: () => Promise<T> | T): Promise<T> {
  const before = process.env.SLUICE_NATIVE_FAULT;
  process.env.SLUICE_NATIVE_FAULT = ALL_FAULTS;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.SLUICE_NATIVE_FAULT;
    else process.env.SLUICE_NATIVE_FAULT = before;
  }
}

/** A 24 MiB file with 2 MiB of data at its start and end, the rest a hole. */
function sparseFile(p: string): void {
  const fd = fs.openSync(p, 'w');
  try {
    fs.writeSync(fd, Buffer.alloc(2 * MiB, 1), 0, 2 * MiB, 0);
    fs.writeSync(fd, Buffer.alloc(2 * MiB, 2), 0, 2 * MiB, 22 * MiB);
  } finally {
    fs.closeSync(fd);
  }
}

describe('each addon call that fails falls back', { skip }, () => {
  test('preallocate: the file is written without a reservation (was: the download failed EBADF)', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fault-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const p = path.join(dir, 'x.part');
    const fd = fs.openSync(p, 'w');
    try {
      assert.equal(await withFaults(() => reserveSpace(fd, 4 * MiB, p)), 'failed');
      assert.equal(fs.fstatSync(fd).size, 0);
    } finally {
      fs.closeSync(fd);
    }
  });

  test('dataRanges: the zero-block scan finds the same data', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fault-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const p = path.join(dir, 'sparse.img');
    sparseFile(p);
    if (fs.statSync(p).blocks * 512 >= 24 * MiB) {
      t.skip('this file system does not keep holes');
      return;
    }
    const r = await withFaults(() => dataRanges(p, 24 * MiB));
    assert.equal(r.source, 'scan');
    assert.deepEqual(r.ranges, [
      [0, 2 * MiB],
      [22 * MiB, 24 * MiB],
    ]);
  });

  test('tcpInfo: the ss fallback (or nothing) instead of the addon; never a rejection', async (t) => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const sock = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
    t.after(() => sock.destroy());
    const info = await withFaults(() => readTcpInfo(sock));
    assert.notEqual(info?.source, 'native');
  });
});

let server: SshServer;
let work: string;
let knownHosts: string;
trustedServerHooks(
  startTestServer,
  'sluice-fault-',
  (t) => {
    ({ server, dir: work, knownHosts } = t);
  },
  skip,
);

describe('transfers with every addon call failing', { skip }, () => {
  test('a segmented 24 MiB download and a sparse 24 MiB upload arrive byte-identical', async () => {
    const env = { SLUICE_NATIVE_FAULT: ALL_FAULTS };
    const remote = path.join(server.root, 'fault-down.bin');
    writeRandomFile(remote, 24 * MiB);
    const target = path.join(work, 'fault-down.bin');
    const args = ['get', '--json', '--segment-size', '4M', ...baseFlags(server), urlOf(server, remote), target];
    const down = await runCli(args, { knownHosts, env });
    assert.equal(down.code, 0, describeRun(down));
    assert.equal(await sha256File(target), await sha256File(remote));

    const local = path.join(work, 'fault-up.img');
    sparseFile(local);
    const upTarget = path.join(server.root, 'fault-up.img');
    const up = await runCli(['put', '--json', ...baseFlags(server), local, urlOf(server, upTarget)], {
      knownHosts,
      env,
    });
    assert.equal(up.code, 0, describeRun(up));
    assert.equal(await sha256File(upTarget), await sha256File(local));
  });
});
