import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client, type SFTPWrapper } from 'ssh2';
import { startSshd, type SshServer } from '../../../e2e/fixtures/sshd';
import { startScriptedServer } from '../../../e2e/fixtures/scriptedServer';
import { parsableEd25519Pair } from '../../../e2e/fixtures/tmp';

interface Traced {
  client: Client;
  sftp: SFTPWrapper;
  trace: string[];
}

/**
 * Connects ssh2 straight to `srv` with or without the patch's `pipelineOpenSSH`, offering `keys` in turn
 * (default: the fixture's client key), opens SFTP, and returns the debug trace.
 */
async function connectTraced(
  srv: SshServer,
  pipelineOpenSSH: boolean,
  keys: Array<string | Buffer> = [fs.readFileSync(srv.clientKeyPath)],
): Promise<Traced> {
  const client = new Client();
  const trace: string[] = [];
  const left = [...keys];
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    client.once('error', reject);
    client.connect({
      host: '127.0.0.1',
      port: srv.port,
      username: srv.user,
      hostVerifier: () => true,
      debug: (m: string) => trace.push(m),
      pipelineOpenSSH,
      authHandler: (_methods: unknown, _partial: unknown, next: (a: unknown) => void) => {
        const key = left.shift();
        next(key ? { type: 'publickey', username: srv.user, key } : false);
      },
    } as never);
  });
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((e, s) => (e ? reject(e) : resolve(s))));
  return { client, sftp, trace };
}

/** Index of the first trace line matching `re`, or -1. */
const at = (trace: string[], re: RegExp): number => trace.findIndex((l) => re.test(l));

const USERAUTH_SENT = /Outbound: Sending USERAUTH_REQUEST \(publickey\)$/;
const PK_QUERY = /USERAUTH_REQUEST \(publickey -- check\)/;
const SERVICE_ACCEPT = /Received SERVICE_ACCEPT/;
const LIMITS_SENT = /SFTP: Outbound: (Sending|Buffered) limits@openssh\.com/;
const SUBSYSTEM_OK = /Inbound: CHANNEL_SUCCESS \(r:0\)/;
const VERSION = /SFTP: Inbound: Received VERSION/;

function stat(sftp: SFTPWrapper, p: string): Promise<{ size: number }> {
  return new Promise((resolve, reject) => sftp.stat(p, (e, a) => (e ? reject(e) : resolve(a))));
}

test('patched ssh2 pipelines the OpenSSH handshake: auth behind SERVICE_REQUEST, signed at once, SSH_FXP_INIT + limits behind the subsystem request', async () => {
  const srv = await startSshd();
  try {
    fs.writeFileSync(`${srv.root}/f`, 'seven b');
    const fast = await connectTraced(srv, true);
    const classic = await connectTraced(srv, false);
    try {
      // 1 round trip saved: the USERAUTH_REQUEST went out before SERVICE_ACCEPT came back.
      assert.ok(
        at(fast.trace, USERAUTH_SENT) >= 0 && at(fast.trace, USERAUTH_SENT) < at(fast.trace, SERVICE_ACCEPT),
        fast.trace.join('\n'),
      );
      // 1 more: no publickey query (RFC 4252 §7), the first request carries the signature.
      assert.equal(at(fast.trace, PK_QUERY), -1);
      // 2 more: limits@openssh.com (sent after SSH_FXP_INIT) left before the subsystem's CHANNEL_SUCCESS and VERSION.
      assert.ok(
        at(fast.trace, LIMITS_SENT) >= 0 && at(fast.trace, LIMITS_SENT) < at(fast.trace, SUBSYSTEM_OK),
        fast.trace.join('\n'),
      );
      assert.ok(at(fast.trace, LIMITS_SENT) < at(fast.trace, VERSION));

      // Without the option ssh2 keeps its one-step-at-a-time order.
      assert.ok(at(classic.trace, PK_QUERY) > at(classic.trace, SERVICE_ACCEPT));
      assert.ok(at(classic.trace, LIMITS_SENT) > at(classic.trace, VERSION));

      // Same limits either way, and the channel works.
      const limitsOf = (s: SFTPWrapper) => {
        const o = s as unknown as { _maxReadLen: number; _maxWriteLen: number; _maxOutPktLen: number };
        return [o._maxReadLen, o._maxWriteLen, o._maxOutPktLen];
      };
      assert.deepEqual(limitsOf(fast.sftp), limitsOf(classic.sftp));
      // The patch's SSH_MSG_IGNORE (promptAck.ts sends it during set-up) is accepted by sshd.
      (fast.client as unknown as { _protocol: { ignore(): void } })._protocol.ignore();
      assert.equal((await stat(fast.sftp, `${srv.root}/f`)).size, 7);
    } finally {
      fast.client.end();
      classic.client.end();
    }
  } finally {
    await srv.stop();
  }
});

test('a wrong key first, signed at once, is refused and the next key still logs in', async () => {
  const srv = await startSshd();
  try {
    const wrong = parsableEd25519Pair().private;
    const { client, trace } = await connectTraced(srv, true, [wrong, fs.readFileSync(srv.clientKeyPath)]);
    client.end();
    assert.equal(trace.filter((l) => USERAUTH_SENT.test(l)).length, 2, trace.join('\n'));
    assert.equal(at(trace, PK_QUERY), -1);
  } finally {
    await srv.stop();
  }
});

test('a server that is not OpenSSH gets the one-step-at-a-time handshake even with the option', async () => {
  const srv = await startScriptedServer();
  try {
    const t = await connectTraced(srv, true);
    try {
      assert.ok(at(t.trace, PK_QUERY) > at(t.trace, SERVICE_ACCEPT), t.trace.join('\n'));
      assert.ok(at(t.trace, LIMITS_SENT) > at(t.trace, VERSION));
    } finally {
      t.client.end();
    }
  } finally {
    await srv.stop();
  }
});
