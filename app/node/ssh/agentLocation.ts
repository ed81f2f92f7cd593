/**
 * Where the agent is (ssh(1)'s SSH_AUTH_SOCK, and on Windows what PuTTY and Win32-OpenSSH users run): a Unix socket on
 * POSIX; on Windows the OpenSSH agent service's named pipe `\\.\pipe\openssh-ssh-agent` (what Windows' own ssh uses
 * when SSH_AUTH_SOCK is unset), Pageant's named pipe (`\\.\pipe\pageant.USER.HASH`, Pageant 0.75 and later), or
 * `pageant` (ssh2's PageantAgent, WM_COPYDATA through its pagent.exe, for any Pageant), or a Cygwin/MSYS socket file.
 * ssh2 speaks to all of them (lib/agent.js createAgent); this module only chooses.
 */
import * as fs from 'node:fs';
import { displayText } from '../errors';

/** The Win32-OpenSSH agent service's pipe (ssh-agent.exe, `Get-Service ssh-agent`). */
export const OPENSSH_AGENT_PIPE = '\\\\.\\pipe\\openssh-ssh-agent';
/** ssh2's name for Pageant reached through WM_COPYDATA (an SSH_AUTH_SOCK or IdentityAgent of `pageant`). */
export const PAGEANT = 'pageant';
/** `//./pipe/NAME` with either slash, as ssh2 recognises a Windows pipe. */
const WINDOWS_PIPE = /^[/\\][/\\]\.[/\\]pipe[/\\].+/;
/** Pageant 0.75+'s pipe name: `pageant.` + user name + `.` + 64 hex digits. */
const PAGEANT_PIPE = /^pageant\..+\.[0-9a-f]{64}$/;

/** What the lookup may ask of the machine (injected by tests: Windows is not needed to test Windows' rule). */
export interface AgentLookup {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Names under `\\.\pipe\` (Windows); default reads them with fs.readdirSync. */
  listPipes?: () => string[];
  /** Whether a path is a Unix socket (POSIX) or an existing file (a Cygwin socket file on Windows). */
  isSocket?: (p: string) => boolean;
}

/** True for a Windows named-pipe path. */
export function isWindowsPipe(p: string): boolean {
  return WINDOWS_PIPE.test(p);
}

function readPipes(): string[] {
  try {
    return fs.readdirSync('\\\\.\\pipe\\');
  } catch {
    return [];
  }
}

function socketOrFile(p: string, platform: NodeJS.Platform): boolean {
  try {
    const st = fs.statSync(p);
    return platform === 'win32' ? st.isFile() || st.isSocket() : st.isSocket();
  } catch {
    return false;
  }
}

/**
 * The agent to offer, or why none is: SSH_AUTH_SOCK when set (on Windows `pageant`, a pipe path, or a Cygwin socket
 * file; elsewhere a socket); else, on Windows only, the OpenSSH agent's pipe, then Pageant's pipe, then — only when
 * the agent was asked for — ssh2's Pageant route. Nothing is offered with `useAgent` false.
 * @param useAgent true: asked for (`IdentityAgent`, an agent site); false: `--no-agent`; undefined: when one is found
 * @returns `agent`: a socket path, a pipe path or `pageant`; `warning`: a human-readable note when one was asked
 *   for or named and cannot be used
 */
export function findAgent(useAgent: boolean | undefined, look: AgentLookup): { agent?: string; warning?: string } {
  if (useAgent === false) return {};
  const sock = look.env.SSH_AUTH_SOCK;
  const windows = look.platform === 'win32';
  const isSocket = look.isSocket ?? ((p: string) => socketOrFile(p, look.platform));
  if (sock) {
    if (windows && sock.toLowerCase() === PAGEANT) return { agent: PAGEANT };
    if ((windows && isWindowsPipe(sock)) || isSocket(sock)) return { agent: sock };
    const what = windows ? 'not a socket, pipe or `pageant`' : 'not a socket';
    return { warning: `Ignoring SSH_AUTH_SOCK ${displayText(sock)}: ${what}` };
  }
  if (!windows) return useAgent ? { warning: 'ssh-agent requested but SSH_AUTH_SOCK is not set' } : {};
  const pipes = (look.listPipes ?? readPipes)();
  if (pipes.includes('openssh-ssh-agent')) return { agent: OPENSSH_AGENT_PIPE };
  const pageantPipe = pipes.find((p) => PAGEANT_PIPE.test(p));
  if (pageantPipe) return { agent: `\\\\.\\pipe\\${pageantPipe}` };
  return useAgent ? { agent: PAGEANT } : {};
}
