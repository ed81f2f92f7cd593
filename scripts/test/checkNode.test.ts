/**
 * scripts/check-node.js: the one supported Node range (package.json "engines") that .ci/run checks before `npm ci`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, checkNode } from './scriptsApi';

const RANGE = '^20.19.0 || >=22.12.0';

test("package.json states the range; the Node running the tests (CI's) is inside it", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, RANGE);
  assert.equal(checkNode().satisfies(process.versions.node, RANGE), true);
  const res = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'check-node.js')], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`Node ${process.versions.node.replace(/\./g, '\\.')} is inside`));
});

test('the range: 20.19+ and 22.12+ in, 18, 20.18, 21 and 22.11 out, with one paragraph naming both', () => {
  const { satisfies, verdict } = checkNode();
  for (const v of ['20.19.0', '20.20.2', '22.12.0', '24.1.0']) assert.equal(satisfies(v, RANGE), true, v);
  for (const v of ['18.20.0', '20.18.3', '21.7.0', '22.11.0']) assert.equal(satisfies(v, RANGE), false, v);
  assert.equal(verdict('20.20.2', RANGE), null);
  assert.equal(
    verdict('20.18.3', RANGE),
    'sluice: Node 20.18.3 is outside the supported range ^20.19.0 || >=22.12.0 (package.json "engines").\n' +
      '  Install a Node inside it (e.g. the current 20.x or 22.x LTS), then run this again.\n',
  );
  assert.throws(() => satisfies('20.20.2', '~20.1'), /cannot read "~20.1" in the Node range/);
});

test('.ci/run checks the Node before installing anything', () => {
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
  const check = ci.indexOf('node scripts/check-node.js');
  assert.ok(check > 0 && check < ci.indexOf('apt-get') && check < ci.indexOf('npm ci'), 'check-node runs first');
});
