/**
 * Option groups shared by every command that connects (get, put, queue, the file commands): how to log in, which
 * algorithms to offer, and how to reach and keep the server (keepalives, timeouts, jump hosts, ssh_config).
 */
import type { Command } from 'commander';
import { POOL_DEFAULTS } from '../ssh/poolDefaults';
import { collect, nonNegativeInt, positiveInt } from './optionParsers';

const JUMP_HELP =
  'jump hosts, like ssh -J: [user@]host[:port] (or an ssh_config alias), several separated by commas, visited in ' +
  "order; overrides ProxyJump of the ssh config; none: connect directly. Each jump host's host key is checked like the target's";
const SSH_CONFIG_HELP =
  'OpenSSH client configuration file to read instead of ~/.ssh/config and /etc/ssh/ssh_config, like sftp -F ' +
  '(none: read none); Host aliases, HostName, Port, User, IdentityFile, ProxyJump, … apply (see the README)';

/** `-i`, `--no-agent`, `--batch`, `--accept-new`: keys, the agent and host-key prompts. */
export function addLoginOptions(cmd: Command): Command {
  return cmd
    .option('-i, --identity <file>', 'private key file (repeatable)', collect)
    .option('--no-agent', 'do not use ssh-agent')
    .option('--batch', 'never prompt (unknown host keys are refused unless --accept-new)')
    .option('--accept-new', 'accept and save unknown host keys (changed keys are still refused)');
}

/** `--cipher`, `--kex`, `--mac`, `--host-key-algorithms`: preference lists (RFC 4253 §7.1 negotiation). */
export function addAlgorithmOptions(cmd: Command): Command {
  return cmd
    .option('--cipher <list>', 'cipher preference, comma separated', collect)
    .option('--kex <list>', 'key exchange preference, comma separated', collect)
    .option('--mac <list>', 'MAC preference, comma separated', collect)
    .option('--host-key-algorithms <list>', 'host key algorithm preference, comma separated', collect);
}

/** Keepalives, the connect timeout, jump hosts (ssh -J) and the ssh_config file (ssh_config(5)). */
export function addReachOptions(cmd: Command): Command {
  return cmd
    .option(
      '--keepalive <ms>',
      `keepalive interval in ms, 0 = off (default: ssh_config ServerAliveInterval, else ${POOL_DEFAULTS.keepaliveIntervalMs})`,
      nonNegativeInt,
    )
    .option(
      '--keepalive-count <n>',
      `missed keepalives before the connection is dropped (default: ServerAliveCountMax, else ${POOL_DEFAULTS.keepaliveCountMax})`,
      positiveInt,
    )
    .option(
      '--connect-timeout <ms>',
      `connect + authentication timeout in ms (default: ConnectTimeout, else ${POOL_DEFAULTS.readyTimeoutMs})`,
      positiveInt,
    )
    .option('-J, --jump <hosts>', JUMP_HELP)
    .option('-F, --ssh-config <file>', SSH_CONFIG_HELP);
}
