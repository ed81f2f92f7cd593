/**
 * A connection never made is not a lost one (#29.8): a refused port fails the connect with CONNECTION_REFUSED, a name
 * that does not resolve with HOST_NOT_FOUND (both in app/common/errors.ts's table), through the real engine.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { isTransient } from '../../common/retry';
import { setupSshd } from './sshdService';

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test(
  'a refused port and an unknown host name get their own codes, not CONNECTION_LOST',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setupSshd(t);
    const connectTo = async (host: string, port: number) => {
      const saved = await c.service.invoke('sites.save', {
        site: { name: `${host}:${port}`, folder: '', host, port, user: 'u', authMethod: 'agent' },
      });
      assert.ok(saved.ok, JSON.stringify(saved));
      const r = await c.service.invoke('session.connect', { siteId: saved.value.id });
      assert.ok(!r.ok, 'the connect fails');
      return r.error;
    };
    const port = await closedPort();
    assert.deepEqual(await connectTo('127.0.0.1', port), {
      code: 'CONNECTION_REFUSED',
      message: `connection refused by 127.0.0.1:${port}`,
    });
    const notFound = await connectTo('no-such-host.invalid', 22);
    assert.equal(notFound.code, 'HOST_NOT_FOUND');
    assert.match(notFound.message, /^host not found: no-such-host\.invalid \(the name does not resolve/);
    assert.equal(isTransient('CONNECTION_REFUSED'), true, 'a server restarting refuses for a while: reconnects go on');
    assert.equal(isTransient('HOST_NOT_FOUND'), false);
  },
);
