/**
 * OpenSSH client configuration (`~/.ssh/config`, ssh_config(5)) to candidate sites: one per concrete `Host` name (no
 * `*`, `?` or `!` pattern), with what ssh would use for it — `HostName` (its `%h` and `%%` tokens expanded), `Port`,
 * `User` and the first `IdentityFile`, including values from later `Host *` sections and `Match` blocks (first
 * obtained value wins, as ssh_config(5) says), computed by the `ssh-config` package. `Match exec` is never run.
 * Jump hosts and proxy commands are not imported (noted).
 */
import SSHConfig from 'ssh-config';
import { CandidateList, portOf, type ParseOptions, type ParsedSites } from './candidates';

/** The values of a directive as a list of words (`Host a b` -> `[a, b]`). */
function words(value: string | Array<{ val: string }>): string[] {
  return typeof value === 'string' ? value.split(/\s+/).filter((w) => w.length > 0) : value.map((v) => v.val);
}

/** ssh_config(5) TOKENS in HostName and IdentityFile: %h, %d, %u, %r, %%; others are left as they are. */
function expandTokens(text: string, t: { h: string; d: string; u: string; r: string }): string {
  return text.replace(/%([hdur%])/g, (_, c: string) => (c === '%' ? '%' : t[c as 'h' | 'd' | 'u' | 'r']));
}

/** The first value of a computed parameter (IdentityFile is always a list). */
function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** What a computed Host does that a Sluice site cannot keep. */
function droppedNotes(c: Record<string, string | string[]>): string[] {
  const notes: string[] = [];
  const jump = first(c.proxyjump);
  if (jump && jump.toLowerCase() !== 'none') notes.push(`not imported: ProxyJump ${jump}`);
  const command = first(c.proxycommand);
  if (command && command.toLowerCase() !== 'none') notes.push(`not imported: ProxyCommand ${command}`);
  const ids = Array.isArray(c.identityfile) ? c.identityfile.filter((f) => f.toLowerCase() !== 'none') : [];
  if (ids.length > 1) notes.push(`not imported: IdentityFile ${ids.slice(1).join(', ')} (a site keeps one key file)`);
  return notes;
}

/**
 * Parses OpenSSH client configuration text.
 * @param text the file's text (ssh_config(5))
 * @param opts `defaultUser`: the local user name, used (with a note) where no `User` applies
 * @returns one candidate per concrete Host name, named after it; notes for patterns, `Include` (not followed) and
 *   `Match exec` (not run)
 */
export function parseOpenSshConfig(text: string, opts: ParseOptions): ParsedSites {
  const list = new CandidateList(opts);
  const config = SSHConfig.parse(text);
  const names: string[] = [];
  for (const line of config) {
    if (!('param' in line)) continue;
    const param = line.param.toLowerCase();
    if (param === 'include')
      list.note(`Include ${words(line.value).join(' ')} was not followed: import that file on its own`);
    if (param === 'match' && words(line.value).some((w) => w.toLowerCase() === 'exec'))
      list.note('Match exec blocks were not evaluated (no command is run)');
    if (param !== 'host') continue;
    for (const name of words(line.value)) {
      if (/[*?!]/.test(name)) list.skip(`Host ${name}`, 'a pattern, not a host');
      else if (!names.includes(name)) names.push(name);
    }
  }
  for (const alias of names) {
    const c = config.compute(alias, { ignoreCase: true, matchExec: false });
    const user = first(c.user);
    const tokens = { h: alias, d: '~', u: opts.defaultUser, r: user ?? opts.defaultUser };
    const host = expandTokens(first(c.hostname) ?? alias, tokens);
    tokens.h = host;
    const key = first(c.identityfile);
    const notes = droppedNotes(c);
    const portText = first(c.port);
    const port = portOf(portText);
    if (portText !== undefined && port === undefined) {
      list.skip(`Host ${alias}`, `Port ${portText} is not a port number`);
      continue;
    }
    list.add(
      `Host ${alias}`,
      {
        name: alias,
        host,
        port,
        user,
        keyPath: key && key.toLowerCase() !== 'none' ? expandTokens(key, tokens) : undefined,
      },
      notes,
    );
  }
  return list.result();
}
