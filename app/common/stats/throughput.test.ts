import test from 'node:test';
import assert from 'node:assert/strict';
import { ThroughputEstimator } from './throughput';

test('rate is bytes over the window span, not the last chunk', () => {
  let t = 0;
  const est = new ThroughputEstimator(1000, () => t);
  assert.equal(est.rate(), 0);
  est.record(0);
  t = 500;
  est.record(5_000_000);
  t = 1000;
  est.record(6_000_000);
  assert.equal(Math.round(est.rate()), 6_000_000);
  t = 2000;
  est.record(6_000_000);
  // Window now spans 1000..2000 with no progress.
  assert.equal(est.rate(), 0);
});
