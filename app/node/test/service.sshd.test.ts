/**
 * The service (app/node/service.ts) over the real engine against a private OpenSSH sshd
 * (e2e/fixtures/sshd.ts): unknown host key prompt, accept-save, browse, upload + download with SHA-256
 * check, the conflict prompt, a changed host key.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { EventPayloads } from '../../common/ipc/contract';
import { connectAccepting, setupSshd as setup, waitJobs } from './sshdService';

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

test(
  'real sshd: accept the unknown key, browse, upload and download with matching SHA-256',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setup(t);
    await connectAccepting(c);
    assert.equal(fs.readFileSync(c.knownHosts, 'utf8').trim(), c.server.knownHostsLine().trim());

    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-local-'));
    t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
    const src = path.join(local, 'payload.bin');
    fs.writeFileSync(src, randomBytes(3 * 1024 * 1024 + 17));

    const up = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [src],
      dest: c.server.root,
    });
    assert.ok(up.ok, JSON.stringify(up));
    await waitJobs(c, up.value.jobIds, 'done');
    assert.equal(sha256(path.join(c.server.root, 'payload.bin')), sha256(src));

    const listing = await c.service.invoke('remote.list', { siteId: c.siteId, path: c.server.root });
    assert.ok(listing.ok);
    assert.deepEqual(
      listing.value.entries.map((e) => [e.name, e.type, e.size]),
      [['payload.bin', 'file', 3 * 1024 * 1024 + 17]],
    );

    const back = path.join(local, 'back');
    fs.mkdirSync(back);
    const down = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'download',
      sources: [path.join(c.server.root, 'payload.bin')],
      dest: back,
    });
    assert.ok(down.ok);
    await waitJobs(c, down.value.jobIds, 'done');
    assert.equal(sha256(path.join(back, 'payload.bin')), sha256(src));

    // Same upload again: the target exists, so the conflict dialog asks; "skip" leaves the remote file alone.
    fs.writeFileSync(src, 'different now');
    const prompt = c.next('conflict.prompt');
    const again = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [src],
      dest: c.server.root,
    });
    assert.ok(again.ok);
    const p = await prompt;
    assert.equal(p.target, path.join(c.server.root, 'payload.bin'));
    assert.equal(p.existing?.size, 3 * 1024 * 1024 + 17);
    assert.ok((await c.service.invoke('conflict.answer', { promptId: p.promptId, choice: 'skip', forAll: false })).ok);
    await waitJobs(c, again.value.jobIds, 'done');
    assert.equal(sha256(path.join(c.server.root, 'payload.bin')), sha256(path.join(back, 'payload.bin')));
  },
);

test(
  'real sshd: a changed host key fails the connect with the red prompt and transfers nothing',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setup(t);
    await connectAccepting(c);
    assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
    await c.server.rotateHostKeys();

    const red = c.next('hostKey.prompt');
    const res = await c.service.invoke('session.connect', { siteId: c.siteId });
    assert.equal(res.ok ? '' : res.error.code, 'HOSTKEY_CHANGED');
    const p = await red;
    assert.equal(p.kind, 'changed');
    assert.ok(p.previous && p.previous.length >= 1 && p.previous[0].fingerprint !== p.presented.fingerprint);

    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-local-'));
    t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
    fs.writeFileSync(path.join(local, 'x.txt'), 'x');
    const job = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [path.join(local, 'x.txt')],
      dest: c.server.root,
    });
    assert.ok(job.ok);
    await waitJobs(c, job.value.jobIds, 'failed');
    assert.equal(c.service.jobs().find((j) => j.id === job.value.jobIds[0])?.error?.code, 'HOSTKEY_CHANGED');
    assert.deepEqual(fs.readdirSync(c.server.root), [], 'nothing reached the server');
  },
);

test(
  'real sshd: 200 files at once all arrive; pause aborts a big upload and resume completes it',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setup(t);
    await connectAccepting(c);
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-local-'));
    t.after(async () => fs.rmSync(local, { recursive: true, force: true }));

    const many = Array.from({ length: 200 }, (_, i) => {
      const f = path.join(local, `f${String(i).padStart(3, '0')}.txt`);
      fs.writeFileSync(f, `file ${i}\n`.repeat(i + 1));
      return f;
    });
    const batch = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: many,
      dest: c.server.root,
    });
    assert.ok(batch.ok);
    await waitJobs(c, batch.value.jobIds, 'done');
    for (const f of many)
      assert.equal(fs.readFileSync(path.join(c.server.root, path.basename(f)), 'utf8'), fs.readFileSync(f, 'utf8'));

    const big = path.join(local, 'big.bin');
    fs.writeFileSync(big, randomBytes(256 * 1024 * 1024));
    const remoteBig = path.join(c.server.root, 'big.bin');
    const moving = c.next('queue.delta', (d) =>
      d.events.some((e) => e.type === 'updated' && (e.patch.bytesDone ?? 0) > 0),
    );
    const up = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [big],
      dest: c.server.root,
    });
    assert.ok(up.ok);
    const [jobId] = up.value.jobIds;
    await moving;
    const pausedOrDone = (): boolean =>
      ['paused', 'done'].includes(c.service.jobs().find((j) => j.id === jobId)!.state);
    assert.ok((await c.service.invoke('queue.pause', { jobId })).ok);
    if (!pausedOrDone()) await c.next('queue.delta', pausedOrDone);
    const state = c.service.jobs().find((j) => j.id === jobId)!.state;
    if (state === 'paused') {
      assert.equal(
        fs.existsSync(remoteBig),
        false,
        'a paused upload leaves no partial target (temp name until commit)',
      );
      assert.ok((await c.service.invoke('queue.resume', { jobId })).ok);
      await waitJobs(c, [jobId], 'done');
    } else {
      t.diagnostic('the upload finished before the pause took effect; resume path not exercised');
    }
    assert.equal(sha256(remoteBig), sha256(big));
  },
);

test(
  'real sshd: a host key added on the trusted server is learned once and reported with hostKey.learned',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setup(t);
    await connectAccepting(c);
    assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
    // Keep the saved ed25519 key and add an ecdsa one: OpenSSH announces both (hostkeys-00@openssh.com).
    await c.server.rotateHostKeys({ add: ['ecdsa'], keep: true });
    const learnedEvents: Array<EventPayloads['hostKey.learned']> = [];
    c.service.subscribe((name, payload) => {
      if (name === 'hostKey.learned') learnedEvents.push(payload as EventPayloads['hostKey.learned']);
    });
    const learned = c.next('hostKey.learned');
    const logged = c.next('log', (p) => p.lines.some((l) => /announced 1 new host key/.test(l.message)));
    const res = await c.service.invoke('session.connect', { siteId: c.siteId });
    assert.ok(res.ok, JSON.stringify(res));
    const ev = await learned;
    await logged;
    assert.equal(ev.siteId, c.siteId);
    assert.equal(ev.file, c.knownHosts);
    assert.deepEqual(
      ev.keys.map((k) => k.keyType),
      ['ecdsa-sha2-nistp256'],
    );
    assert.match(ev.keys[0].fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
    const lines = fs.readFileSync(c.knownHosts, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2, 'the new key was appended, nothing removed');
    assert.ok(lines[1].includes('ecdsa-sha2-nistp256'));
    // Both connections of the session see the announcement; the notice comes once.
    assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
    assert.equal(learnedEvents.length, 1);
  },
);
