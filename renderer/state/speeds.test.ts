/**
 * The one speed source (renderer/state/speeds.ts) and the graph's series (renderer/state/series.ts): the status bar,
 * the queue footer and the graph's legend read the same numbers; a finished job's last rate is no speed; a connection
 * the pool says is down loses its series; every connection series is solid, 2 px, in its own colour.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../app/common/model/job';
import { applyQueueEvents, emptyQueue, queueTotals } from '../../app/common/queue/reducer';
import { CONNECTION_COLORS, connectionStyle, RateSeries, TOTAL_STYLE } from './series';
import { liveConnections, queueSpeed, siteSpeed } from './speeds';

function job(id: string, siteId: string, state: Job['state'], rate: number): Job {
  return {
    id,
    batchId: id,
    siteId,
    direction: 'upload',
    source: `/l/${id}`,
    dest: '/r',
    name: id,
    state,
    bytesDone: 0,
    bytesTotal: 100,
    filesDone: 0,
    filesTotal: 1,
    rate,
    createdAt: 1,
    priority: 0,
  } as Job;
}

const queue = applyQueueEvents(emptyQueue, [
  {
    type: 'snapshot',
    jobs: [
      job('a', 's1', 'running', 300),
      job('b', 's1', 'running', 200),
      job('c', 's2', 'running', 50),
      job('d', 's1', 'done', 999),
    ],
  },
]);

test('queueSpeed: running jobs only, every site or one; the same number as the queue totals', () => {
  assert.equal(queueSpeed(queue), 550);
  assert.equal(queueSpeed(queue, 's1'), 500);
  assert.equal(queueSpeed(queue), queueTotals(queue).rate);
});

test("siteSpeed: the total is the queue's; connections from the latest sample, only live ones, 0 once nothing runs", () => {
  const series = RateSeries.empty().push({ t: 1000, total: 480, perConnection: { 1: 280, 2: 200 } });
  const live = liveConnections({
    connections: 2,
    channels: 1,
    links: [
      { connection: 1, up: true, channels: 1 },
      { connection: 2, up: false, channels: 0 },
    ],
  });
  assert.deepEqual(siteSpeed(queue, 's1', series), { total: 500, perConnection: { 1: 280, 2: 200 } });
  assert.deepEqual(siteSpeed(queue, 's1', series, live), { total: 500, perConnection: { 1: 280 } });
  const idle = applyQueueEvents(queue, [
    { type: 'updated', id: 'a', patch: { state: 'done' } },
    { type: 'updated', id: 'b', patch: { state: 'done' } },
  ]);
  assert.deepEqual(siteSpeed(idle, 's1', series), { total: 0, perConnection: { 1: 0, 2: 0 } });
  assert.equal(liveConnections(undefined), undefined);
});

test('series: a connection down loses its column; connection styles are solid 2 px and distinct from the total', () => {
  const s = RateSeries.empty()
    .push({ t: 1000, total: 3, perConnection: { 1: 1, 2: 2 } })
    .push({ t: 2000, total: 3, perConnection: { 1: 3 } });
  assert.deepEqual(s.toData().connectionIds, ['1', '2']);
  assert.deepEqual(s.toData(new Set(['1'])).connectionIds, ['1']);
  assert.deepEqual(s.toData(new Set(['1'])).columns, [
    [1, 2],
    [3, 3],
    [1, 3],
  ]);
  const styles = Array.from({ length: CONNECTION_COLORS.length }, (_, i) => connectionStyle(i));
  assert.ok(styles.every((st) => st.width === 2 && !('dash' in st)));
  assert.equal(new Set(styles.map((st) => st.stroke)).size, CONNECTION_COLORS.length);
  assert.ok(!styles.some((st) => st.stroke === TOTAL_STYLE.stroke));
  assert.equal(connectionStyle(CONNECTION_COLORS.length).stroke, CONNECTION_COLORS[0]);
});
