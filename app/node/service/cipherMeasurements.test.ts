/**
 * The service's `algorithms.measurement` and `algorithms.measure` (issue #15): a corrupt cipher-speed.json is a note,
 * not a failure; a measurement is stored in the service's data folder and the default order follows it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceService } from '../service';
import { MemorySecretStore } from '../stores/sites';
import { rankCiphers } from '../../common/model/cipherRank';
import { cipherOrderFor, detectAes } from '../ssh/algorithms';

test('algorithms.measurement reads a corrupt file as no measurement with a note; algorithms.measure stores one the defaults follow', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-service-ciphers-'));
  const service = new SluiceService({
    home,
    secrets: new MemorySecretStore(),
    knownHostsPath: path.join(home, 'known_hosts'),
    env: { HOME: home },
  });
  try {
    fs.writeFileSync(path.join(home, 'cipher-speed.json'), '{"version": 1, "measurements": 7}');
    const before = await service.invoke('algorithms.measurement', undefined);
    assert.ok(before.ok, JSON.stringify(before));
    assert.equal(before.value.measurement, null);
    assert.match(before.value.note ?? '', /cipher-speed\.json is not a cipher measurement/);
    assert.equal(before.value.defaults.source, 'aes-rule');
    assert.deepEqual(before.value.defaults.cipher, cipherOrderFor(detectAes().aes));

    const refused = await service.invoke('algorithms.measure', { seconds: 60 });
    assert.ok(!refused.ok && refused.error.code === 'INVALID_REQUEST', JSON.stringify(refused));

    const measured = await service.invoke('algorithms.measure', { seconds: 0.02 });
    assert.ok(measured.ok, JSON.stringify(measured));
    const m = measured.value.measurement;
    assert.ok(m && m.rows.length >= 21, 'every combination measured');
    assert.equal(measured.value.note, undefined);
    assert.equal(measured.value.defaults.source, 'measurement');
    assert.deepEqual(measured.value.defaults.cipher.slice(0, 3), rankCiphers(m.rows).slice(0, 3));
    const again = await service.invoke('algorithms.measurement', undefined);
    assert.ok(again.ok);
    assert.equal(again.value.measurement?.measuredAt, m.measuredAt, "stored in the service's data folder");
  } finally {
    await service.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('closing the service stops a measurement under way: it fails ABORTED and stores nothing', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-service-ciphers-'));
  const service = new SluiceService({
    home,
    secrets: new MemorySecretStore(),
    knownHostsPath: path.join(home, 'known_hosts'),
    env: { HOME: home },
  });
  try {
    const running = service.invoke('algorithms.measure', { seconds: 5 });
    const started = Date.now();
    await service.close();
    const r = await running;
    assert.ok(!r.ok && r.error.code === 'ABORTED', JSON.stringify(r));
    assert.ok(Date.now() - started < 20_000, 'not the whole 100 s run');
    assert.ok(!fs.existsSync(path.join(home, 'cipher-speed.json')));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
