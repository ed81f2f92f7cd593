/**
 * Where the CLI's first TCP connection goes while the CLI is still loading (bin/sluice.js → ssh/preconnect.ts): the
 * first sftp:// operand's server as the OpenSSH configuration resolves it (an alias's HostName and Port), or its first
 * jump host. Nothing when that cannot be told quickly and surely: the CLI then connects as usual.
 */
import { resolveHostSettings } from '../engine/hostSettings';
import { DEFAULT_SSH_PORT, parseRemoteUrl } from '../engine/remoteSpec';

/** The value of `-X VALUE`, `-XVALUE`, `--long VALUE` or `--long=VALUE` in raw arguments (the last one given). */
export function rawOption(args: readonly string[], short: string, long: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a === short || a === long) value = args[++i];
    else if (a.startsWith(`${long}=`)) value = a.slice(long.length + 1);
    else if (a.startsWith(short) && !a.startsWith('--') && a.length > short.length) value = a.slice(short.length);
  }
  return value;
}

/**
 * The host and port to open early for a `get`/`put` command line, or undefined.
 * @param args the arguments after the command name
 */
export function preconnectTarget(args: readonly string[]): { host: string; port: number } | undefined {
  try {
    const url = args.find((a) => a.startsWith('sftp://'));
    const spec = url ? parseRemoteUrl(url) : null;
    if (!spec) return undefined;
    const h = resolveHostSettings({
      host: spec.host,
      port: spec.port === DEFAULT_SSH_PORT ? undefined : spec.port,
      user: spec.user,
      jump: rawOption(args, '-J', '--jump'),
      configFile: rawOption(args, '-F', '--ssh-config'),
    });
    const first = h.jump[0] ?? h;
    return { host: first.host, port: first.port };
  } catch {
    return undefined; // the CLI reports what is wrong with the command line or the configuration
  }
}
