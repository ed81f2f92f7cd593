/**
 * Settings → Transfers' speed limit field (renderer/state/transferForm.ts): MiB/s as typed <-> the speedLimit setting.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { limitText, parseLimitMiB } from './transferForm';

test('speed limit: empty or 0 is none; MiB/s with decimals; too small or not a number is refused', () => {
  assert.deepEqual(parseLimitMiB(''), { ok: true, bytesPerSecond: 0 });
  assert.deepEqual(parseLimitMiB(' 0 '), { ok: true, bytesPerSecond: 0 });
  assert.deepEqual(parseLimitMiB('50'), { ok: true, bytesPerSecond: 50 * 1048576 });
  assert.deepEqual(parseLimitMiB('0.5'), { ok: true, bytesPerSecond: 524288 });
  assert.equal(parseLimitMiB('0.0001').ok, false);
  assert.equal(parseLimitMiB('10MB').ok, false);
  assert.equal(limitText(0), '');
  assert.equal(limitText(50 * 1048576), '50');
  assert.equal(limitText(524288), '0.5');
});
