/**
 * Service tests of host keys the user manages, against a fake engine and a real known_hosts file: first/last seen,
 * the changed-key dialog's replace (typed host name) and add, and the known-hosts manager's list and remove.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ed25519Blob, harness } from '../test/serviceHarness';
import { sha256Fingerprint } from '../stores/knownHosts';

const OLD = ed25519Blob(9);

/** Connects with a different key saved: the connect fails HOSTKEY_CHANGED and the red prompt opens. */
async function changedPrompt(h: Awaited<ReturnType<typeof harness>>) {
  const red = h.next('hostKey.prompt', (p) => p.kind === 'changed');
  const res = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.equal(res.ok ? '' : res.error.code, 'HOSTKEY_CHANGED');
  return red;
}

test('changed key: the prompt shows file:line and dates; replace needs the typed host name, then the next connect is trusted', async (t) => {
  const h = await harness(t);
  const other = `other.example ssh-ed25519 ${OLD.toString('base64')}\n`;
  fs.writeFileSync(h.knownHosts, `# kept\n[127.0.0.1]:2222 ssh-ed25519 ${OLD.toString('base64')}\n${other}`);
  const p = await changedPrompt(h);
  assert.equal(p.canEdit, true);
  assert.deepEqual(p.previous, [
    {
      keyType: 'ssh-ed25519',
      fingerprint: sha256Fingerprint(OLD),
      file: h.knownHosts,
      line: 2,
      firstSeen: null,
      lastSeen: null,
    },
  ]);

  const wrong = await h.service.invoke('hostKey.answer', {
    promptId: p.promptId,
    answer: 'replace',
    confirmHost: '127.0.0.2',
  });
  assert.equal(wrong.ok ? '' : wrong.error.code, 'USAGE');
  const none = await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'replace' });
  assert.equal(none.ok ? '' : none.error.code, 'USAGE');
  assert.match(fs.readFileSync(h.knownHosts, 'utf8'), /^\[127\.0\.0\.1\]:2222 ssh-ed25519 /m, 'nothing changed yet');

  const closed = h.next('prompt.closed', (c) => c.promptId === p.promptId);
  assert.ok(
    (await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'replace', confirmHost: '127.0.0.1' }))
      .ok,
  );
  await closed;
  const text = fs.readFileSync(h.knownHosts, 'utf8');
  assert.equal(text, `# kept\n${other}[127.0.0.1]:2222 ssh-ed25519 ${h.engine.hostKey.toString('base64')}\n`);

  const prompts = h.events.filter((e) => e.name === 'hostKey.prompt').length;
  const res = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.ok(res.ok);
  assert.equal(
    h.events.filter((e) => e.name === 'hostKey.prompt').length,
    prompts,
    'no prompt: the new key is trusted',
  );

  const list = await h.service.invoke('knownHosts.list', undefined);
  assert.ok(list.ok);
  const mine = list.value.entries.find((e) => e.hosts === '[127.0.0.1]:2222');
  assert.equal(mine?.fingerprint, sha256Fingerprint(h.engine.hostKey));
  assert.equal(typeof mine?.firstSeen, 'number', 'saved by Sluice: first seen known');
  assert.ok((mine?.lastSeen ?? 0) >= (mine?.firstSeen ?? Infinity));
  assert.deepEqual(mine?.sites, ['Lab']);
  const foreign = list.value.entries.find((e) => e.hosts === 'other.example');
  assert.equal(foreign?.firstSeen, null, 'written by someone else: first seen unknown');
  assert.deepEqual(foreign?.sites, []);
});

test('changed key: add keeps the old key and appends the new one; replace and add are refused for an unknown key', async (t) => {
  const h = await harness(t);
  const before = `@cert-authority *.example ssh-ed25519 ${ed25519Blob(5).toString('base64')}\n[127.0.0.1]:2222 ssh-ed25519 ${OLD.toString('base64')}\n`;
  fs.writeFileSync(h.knownHosts, before);
  let p = await changedPrompt(h);
  assert.equal(p.certAuthority, undefined, 'no @cert-authority line matches 127.0.0.1');
  fs.writeFileSync(h.knownHosts, before.replace('*.example', '[127.0.0.1]:*'));
  p = await changedPrompt(h);
  assert.equal(p.certAuthority, true, 'a matching @cert-authority line: the dialog says certificates are not trusted');
  fs.writeFileSync(h.knownHosts, before);
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'add' })).ok);
  assert.equal(
    fs.readFileSync(h.knownHosts, 'utf8'),
    `${before}[127.0.0.1]:2222 ssh-ed25519 ${h.engine.hostKey.toString('base64')}\n`,
  );
  assert.ok((await h.service.invoke('session.connect', { siteId: h.siteId })).ok);
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);

  fs.writeFileSync(h.knownHosts, '');
  const ask = h.next('hostKey.prompt', (q) => q.kind === 'unknown');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId });
  const q = await ask;
  const refused = await h.service.invoke('hostKey.answer', {
    promptId: q.promptId,
    answer: 'replace',
    confirmHost: '127.0.0.1',
  });
  assert.equal(refused.ok ? '' : refused.error.code, 'INVALID_STATE');
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: q.promptId, answer: 'reject' })).ok);
  const res = await connecting;
  assert.equal(res.ok ? '' : res.error.code, 'HOSTKEY_REJECTED');
  assert.equal(fs.readFileSync(h.knownHosts, 'utf8'), '');
});

test('known hosts: remove deletes one line of the written file after checking its key, and refuses others', async (t) => {
  const h = await harness(t);
  const a = `a.example ssh-ed25519 ${OLD.toString('base64')}\n`;
  const b = `b.example ssh-ed25519 ${ed25519Blob(3).toString('base64')}\n`;
  fs.writeFileSync(h.knownHosts, a + b);
  const stale = await h.service.invoke('knownHosts.remove', {
    file: h.knownHosts,
    line: 2,
    fingerprint: sha256Fingerprint(OLD),
  });
  assert.equal(stale.ok ? '' : stale.error.code, 'INVALID_STATE');
  const elsewhere = await h.service.invoke('knownHosts.remove', {
    file: '/etc/ssh/ssh_known_hosts',
    line: 1,
    fingerprint: sha256Fingerprint(OLD),
  });
  assert.equal(elsewhere.ok ? '' : elsewhere.error.code, 'INVALID_STATE');
  assert.ok(
    (await h.service.invoke('knownHosts.remove', { file: h.knownHosts, line: 1, fingerprint: sha256Fingerprint(OLD) }))
      .ok,
  );
  assert.equal(fs.readFileSync(h.knownHosts, 'utf8'), b);
  const list = await h.service.invoke('knownHosts.list', undefined);
  assert.ok(list.ok);
  assert.deepEqual(
    list.value.entries.map((e) => [e.hosts, e.line, e.editable]),
    [['b.example', 1, true]],
  );
});
