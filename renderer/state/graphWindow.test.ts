/**
 * The window's layout (app/common/model/layout.ts fitLayout) and the graph's time window
 * (renderer/state/graphWindow.ts): saved sizes fitted into a smaller window without losing the panes; a short upload
 * fills the graph instead of being a spike in a fixed minute; a long one is shown from its start; an idle graph says
 * so.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LAYOUT, fitLayout } from '../../app/common/model/layout';
import { graphWindow, IDLE_AFTER_S, MIN_SPAN_S } from './graphWindow';
import type { RateSample } from './series';

test('fitLayout: the saved sizes where they fit; in a small window the panes and the queue keep their minimum', () => {
  assert.deepEqual(fitLayout(DEFAULT_LAYOUT, { width: 1130, height: 760 }), DEFAULT_LAYOUT);
  const big = { ...DEFAULT_LAYOUT, bottomHeight: 600, sideWidth: 900, graphShare: 2 };
  const fitted = fitLayout(big, { width: 750, height: 520 });
  assert.equal(fitted.bottomHeight, 520 - 200 - 6, 'the panes keep 200 px');
  assert.equal(fitted.sideWidth, 750 - 320 - 6, 'the queue keeps 320 px');
  assert.equal(fitted.graphShare, 0.9);
  assert.equal(fitLayout({ ...DEFAULT_LAYOUT, bottomHeight: 10 }, { width: 1000, height: 800 }).bottomHeight, 110);
  assert.deepEqual(fitLayout(big, { width: 0, height: 0 }), { ...big, graphShare: 0.9 }, 'unknown size: unchanged');
});

const at = (t: number, total: number): RateSample => ({ t: t * 1000, total, perConnection: {} });

test('graphWindow: a half-second upload fills a good part of the width, not 1/120 of a fixed minute', () => {
  // Zero samples every 250 ms, a burst from 100.0 to 100.5 s, then zeros again.
  const samples = [99, 99.25, 99.5, 99.75]
    .map((t) => at(t, 0))
    .concat([100, 100.25, 100.5].map((t) => at(t, 90e6)))
    .concat([100.75, 101, 101.25].map((t) => at(t, 0)));
  const w = graphWindow(samples, 104);
  assert.equal(w.idle, false);
  assert.ok(w.to - w.from >= MIN_SPAN_S && w.to - w.from < 6, `span ${w.to - w.from}`);
  assert.ok(w.from <= 99.75 && w.to >= 100.5, 'the rise and the last moving sample are in view');
  assert.ok(w.activeShare >= 0.15, `share ${w.activeShare}`);
  // The old fixed minute: 0.75 s of 60.
  assert.ok(w.activeShare > 10 * (0.75 / 60));
});

test('graphWindow: while bytes move the window ends now and starts with the burst; a long pause starts a new burst', () => {
  const run = Array.from({ length: 200 }, (_, i) => at(1000 + i * 0.5, 5e6));
  const w = graphWindow(run, 1100);
  assert.ok(Math.abs(w.to - 1100) < 1e-9, 'ends now');
  assert.ok(w.from < 1000 && w.from > 990, `from the burst's start (${w.from})`);
  const twoBursts = [
    at(500, 1e6),
    at(501, 1e6),
    ...Array.from({ length: 30 }, (_, i) => at(502 + i, 0)),
    at(540, 1e6),
    at(541, 1e6),
  ];
  assert.ok(graphWindow(twoBursts, 541).from > 530, 'the earlier burst, 39 s before, is not part of this one');
});

test('graphWindow: idle when nothing moved in the last minute (or ever)', () => {
  assert.equal(graphWindow([], 10).idle, true);
  assert.equal(graphWindow([at(10, 0), at(20, 0)], 30).idle, true);
  assert.equal(graphWindow([at(10, 5)], 10 + IDLE_AFTER_S - 1).idle, false);
  assert.equal(graphWindow([at(10, 5)], 10 + IDLE_AFTER_S + 1).idle, true);
});
