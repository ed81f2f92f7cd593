import test from 'node:test';
import assert from 'node:assert/strict';
import { BRIDGE_METHOD_NAMES, EVENT_NAMES, INVOKE_CHANNELS, invokeSchemas, methodName } from './contract';

test('method names derive from channel names', () => {
  assert.equal(methodName('sites.list'), 'sitesList');
  assert.equal(methodName('hostKey.answer'), 'hostKeyAnswer');
  assert.equal(methodName('queue.clearFinished'), 'queueClearFinished');
  assert.equal(new Set(BRIDGE_METHOD_NAMES).size, INVOKE_CHANNELS.length, 'method names are unique');
  assert.ok(EVENT_NAMES.includes('queue.delta'));
});

test('validators accept good payloads and reject malformed ones', () => {
  assert.ok(invokeSchemas['sites.list'].safeParse(undefined).success);
  assert.ok(!invokeSchemas['sites.list'].safeParse({ x: 1 }).success);
  const site = { name: 'n', folder: '', host: 'h.example', port: 22, user: 'u', authMethod: 'agent' };
  assert.ok(invokeSchemas['sites.save'].safeParse({ site }).success);
  assert.ok(!invokeSchemas['sites.save'].safeParse({ site: { ...site, port: 0 } }).success);
  assert.ok(!invokeSchemas['sites.save'].safeParse({ site: { ...site, host: 'a b' } }).success);
  assert.ok(
    !invokeSchemas['sites.save'].safeParse({ site: { ...site, secret: 'x' } }).success,
    'unknown keys rejected',
  );
  assert.ok(
    invokeSchemas['queue.enqueue'].safeParse({ siteId: 's', direction: 'upload', sources: ['/a'], dest: '/b' }).success,
  );
  assert.ok(
    !invokeSchemas['queue.enqueue'].safeParse({ siteId: 's', direction: 'sideways', sources: ['/a'], dest: '/b' })
      .success,
  );
  assert.ok(
    !invokeSchemas['queue.enqueue'].safeParse({ siteId: 's', direction: 'upload', sources: [], dest: '/b' }).success,
  );
  assert.ok(!invokeSchemas['hostKey.answer'].safeParse({ promptId: 'p', answer: 'yes' }).success);
});

test('queue validators: job intents take a job or a batch; bulk intents an optional site; moves a place', () => {
  assert.ok(invokeSchemas['queue.pause'].safeParse({ jobId: 'j' }).success);
  assert.ok(invokeSchemas['queue.pause'].safeParse({ batchId: 'b' }).success);
  assert.ok(!invokeSchemas['queue.pause'].safeParse({ jobId: 'j', batchId: 'b' }).success, 'one or the other');
  assert.ok(!invokeSchemas['queue.retry'].safeParse({}).success);
  assert.ok(invokeSchemas['queue.pauseAll'].safeParse({}).success);
  assert.ok(invokeSchemas['queue.resumeAll'].safeParse({ siteId: 's' }).success);
  assert.ok(!invokeSchemas['queue.retryFailed'].safeParse(undefined).success);
  assert.ok(invokeSchemas['queue.move'].safeParse({ batchId: 'b', to: 'top' }).success);
  assert.ok(invokeSchemas['queue.move'].safeParse({ batchId: 'b', to: { before: 'c' } }).success);
  assert.ok(!invokeSchemas['queue.move'].safeParse({ batchId: 'b', to: 'middle' }).success);
  assert.ok(invokeSchemas['queue.files'].safeParse({ batchId: 'b', limit: 100 }).success);
  assert.ok(!invokeSchemas['queue.files'].safeParse({ batchId: 'b', limit: 0 }).success);
});
