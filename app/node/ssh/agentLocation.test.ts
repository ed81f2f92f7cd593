/**
 * Where the agent is, with the platform injected: on Windows SSH_AUTH_SOCK may be `pageant`, a pipe or a Cygwin socket
 * file, and when it is unset the OpenSSH agent's pipe, then Pageant's pipe, is used (#24 item 12); on POSIX only a
 * socket. And ssh2's client class for each (PageantAgent, CygwinAgent, OpenSSHAgent over a stream).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CygwinAgent, OpenSSHAgent, PageantAgent } from 'ssh2';
import { OPENSSH_AGENT_PIPE, PAGEANT, findAgent, type AgentLookup } from './agentLocation';
import { agentClassFor } from './agentFilter';
import { gatherAuth } from './auth';

const PAGEANT_PIPE = `pageant.alice.${'ab'.repeat(32)}`;
const win = (env: NodeJS.ProcessEnv, pipes: string[] = [], files: string[] = []): AgentLookup => ({
  platform: 'win32',
  env,
  listPipes: () => pipes,
  isSocket: (p) => files.includes(p),
});

test("Windows without SSH_AUTH_SOCK: the OpenSSH agent's pipe, else Pageant's, else none unless asked", () => {
  const both = ['other', 'openssh-ssh-agent', PAGEANT_PIPE];
  assert.deepEqual(findAgent(undefined, win({}, both)), { agent: OPENSSH_AGENT_PIPE });
  assert.equal(OPENSSH_AGENT_PIPE, '\\\\.\\pipe\\openssh-ssh-agent');
  assert.deepEqual(findAgent(undefined, win({}, ['other', PAGEANT_PIPE])), { agent: `\\\\.\\pipe\\${PAGEANT_PIPE}` });
  assert.deepEqual(findAgent(undefined, win({}, ['pageant.alice.short'])), {}, "not Pageant's pipe name");
  assert.deepEqual(findAgent(true, win({}, [])), { agent: PAGEANT }, 'asked for: Pageant through WM_COPYDATA');
  assert.deepEqual(findAgent(false, win({}, ['openssh-ssh-agent'])), {}, '--no-agent');
});

test('Windows with SSH_AUTH_SOCK: pageant, a pipe, a Cygwin socket file; anything else is named in a warning', () => {
  assert.deepEqual(findAgent(undefined, win({ SSH_AUTH_SOCK: 'Pageant' }, ['openssh-ssh-agent'])), { agent: PAGEANT });
  assert.deepEqual(findAgent(undefined, win({ SSH_AUTH_SOCK: '//./pipe/my-agent' })), { agent: '//./pipe/my-agent' });
  const cygwin = 'C:\\cygwin64\\tmp\\ssh-x\\agent.1';
  assert.deepEqual(findAgent(undefined, win({ SSH_AUTH_SOCK: cygwin }, [], [cygwin])), { agent: cygwin });
  assert.deepEqual(findAgent(undefined, win({ SSH_AUTH_SOCK: 'C:\\nope' }, ['openssh-ssh-agent'])), {
    warning: 'Ignoring SSH_AUTH_SOCK C:\\nope: not a socket, pipe or `pageant`',
  });
});

test('POSIX: SSH_AUTH_SOCK when it is a socket, never a pipe search', () => {
  const linux = (env: NodeJS.ProcessEnv): AgentLookup => ({
    platform: 'linux',
    env,
    listPipes: () => assert.fail('no pipes on POSIX'),
    isSocket: (p) => p === '/run/agent.sock',
  });
  assert.deepEqual(findAgent(undefined, linux({ SSH_AUTH_SOCK: '/run/agent.sock' })), { agent: '/run/agent.sock' });
  assert.deepEqual(findAgent(undefined, linux({})), {});
  assert.deepEqual(findAgent(true, linux({})), { warning: 'ssh-agent requested but SSH_AUTH_SOCK is not set' });
  assert.deepEqual(findAgent(undefined, linux({ SSH_AUTH_SOCK: 'pageant' })), {
    warning: 'Ignoring SSH_AUTH_SOCK pageant: not a socket',
  });
});

test("ssh2's client per agent path, as its createAgent chooses", () => {
  assert.equal(agentClassFor(PAGEANT, 'win32'), PageantAgent);
  assert.equal(agentClassFor(OPENSSH_AGENT_PIPE, 'win32'), OpenSSHAgent);
  assert.equal(agentClassFor('C:\\cygwin64\\tmp\\agent', 'win32'), CygwinAgent);
  assert.equal(agentClassFor('/run/agent.sock', 'linux'), OpenSSHAgent);
  assert.equal(agentClassFor('pageant', 'linux'), OpenSSHAgent, 'no Pageant outside Windows');
});

test("gatherAuth offers the OpenSSH agent's pipe on Windows (platform injected)", async () => {
  const env = { SSH_AUTH_SOCK: OPENSSH_AGENT_PIPE };
  const m = await gatherAuth({ platform: 'win32', env, home: '/nonexistent', username: 'u' });
  assert.equal(m.agent, OPENSSH_AGENT_PIPE);
});
