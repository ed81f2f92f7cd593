import test from 'node:test';
import assert from 'node:assert/strict';
import type { BottleneckVerdict } from '../../common/stats/bottleneck';
import type { EngineEvent } from '../transfer/types';
import { LimitLines, makeOutput } from './output';

function progress(verdict?: BottleneckVerdict): EngineEvent {
  return {
    type: 'progress',
    jobId: 'j',
    t: 0,
    bytesDone: 0,
    bytesTotal: 1,
    filesDone: 0,
    filesTotal: 1,
    rate: 0,
    scanning: false,
    connections: [],
    files: [],
    ...(verdict ? { bottleneck: { verdict, detail: `${verdict} because` } } : {}),
  };
}

test('-v "limited by" lines: one per change of verdict, none for the first unknown', () => {
  const l = new LimitLines();
  assert.equal(l.lineFor(progress()), undefined);
  assert.equal(l.lineFor(progress('unknown')), undefined);
  assert.equal(l.lineFor(progress('server')), 'sluice: limited by: the server (server because)');
  assert.equal(l.lineFor(progress('server')), undefined);
  assert.equal(l.lineFor(progress('link')), 'sluice: limited by: the network link (link because)');
  assert.equal(l.lineFor(progress('unknown')), 'sluice: limited by: nothing measured (unknown because)');
  assert.equal(l.lineFor({ type: 'log', level: 'info', message: 'x' }), undefined);
});

test('the lines go to stderr with -v only; --json carries the verdict in the progress event', () => {
  const write = (into: string[]) => ({
    write: (s: string) => {
      into.push(s);
      return true;
    },
    isTTY: false,
  });
  const quiet: string[] = [];
  makeOutput({ progress: false }, 'down', { stdout: write([]), stderr: write(quiet) } as never).event(
    progress('window'),
  );
  assert.deepEqual(quiet, []);
  const verbose: string[] = [];
  makeOutput({ progress: false, verbose: true }, 'down', { stdout: write([]), stderr: write(verbose) } as never).event(
    progress('window'),
  );
  assert.deepEqual(verbose, ['sluice: limited by: the SSH channel window (window because)\n']);
  const json: string[] = [];
  makeOutput({ progress: false, json: true }, 'down', { stdout: write(json), stderr: write([]) } as never).event(
    progress('local-disk'),
  );
  assert.deepEqual(JSON.parse(json[0]).bottleneck, { verdict: 'local-disk', detail: 'local-disk because' });
});
