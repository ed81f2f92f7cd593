/**
 * The site form as plain strings, and its validation into a contract `SiteInput`. Pure; unit-tested.
 * Field rules mirror `siteInputSchema` in app/common/ipc/contract.ts, with messages meant for people.
 */
import { siteInputSchema } from '../../app/common/ipc/contract';
import type { AuthMethod, Site, SiteInput } from '../../app/common/model/site';
import { normalizeFolder } from '../../app/common/model/site';
import { parseJumpHosts } from '../../app/common/jumpHosts';

/** Every field as typed. */
export interface SiteForm {
  id?: string;
  name: string;
  folder: string;
  host: string;
  port: string;
  user: string;
  authMethod: AuthMethod;
  keyPath: string;
  /** New password; '' keeps the stored one (or none). */
  password: string;
  forgetPassword: boolean;
  localDir: string;
  remoteDir: string;
  connections: string;
  channels: string;
  /** Comma- or space-separated cipher names, most preferred first. */
  ciphers: string;
  /** Speed limit in MiB/s ('' = none; decimals allowed). */
  speedLimit: string;
  /** Jump hosts, ProxyJump syntax ('' = as ~/.ssh/config says; `none` = connect directly). */
  jumpHost: string;
}

export type SiteFormField = keyof SiteForm;

/** Ciphers offered as suggestions (OpenSSH names, fastest first on AES-NI machines). */
export const KNOWN_CIPHERS = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'chacha20-poly1305@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
];

/** An empty form for a new site in `folder`. */
export function newSiteForm(folder = ''): SiteForm {
  return {
    name: '',
    folder,
    host: '',
    port: '22',
    user: '',
    authMethod: 'agent',
    keyPath: '',
    password: '',
    forgetPassword: false,
    localDir: '',
    remoteDir: '',
    connections: '',
    channels: '',
    ciphers: '',
    speedLimit: '',
    jumpHost: '',
  };
}

/** The form for editing an existing site. */
export function siteToForm(site: Site): SiteForm {
  return {
    id: site.id,
    name: site.name,
    folder: site.folder,
    host: site.host,
    port: String(site.port),
    user: site.user,
    authMethod: site.authMethod,
    keyPath: site.keyPath ?? '',
    password: '',
    forgetPassword: false,
    localDir: site.localDir ?? '',
    remoteDir: site.remoteDir ?? '',
    connections: site.connections === undefined ? '' : String(site.connections),
    channels: site.channels === undefined ? '' : String(site.channels),
    ciphers: (site.ciphers ?? []).join(', '),
    speedLimit: site.speedLimit === undefined ? '' : String(Math.round((site.speedLimit / 1048576) * 1000) / 1000),
    jumpHost: site.jumpHost ?? '',
  };
}

/** Result of validating a form: either a request for `sites.save` or per-field messages. */
export type SiteFormResult =
  | { ok: true; site: SiteInput; password: string | null | undefined }
  | { ok: false; errors: Partial<Record<SiteFormField, string>> };

function intField(raw: string, min: number, max: number, label: string): { value?: number; error?: string } {
  const t = raw.trim();
  if (t === '') return {};
  if (!/^\d+$/.test(t)) return { error: `${label} must be a whole number` };
  const n = Number(t);
  if (n < min || n > max) return { error: `${label} must be between ${min} and ${max}` };
  return { value: n };
}

/** A speed limit typed in MiB/s: '' = none; else bytes/s, at least 1 KiB/s. */
function limitField(raw: string): { value?: number; error?: string } {
  const t = raw.trim();
  if (t === '') return {};
  if (!/^\d+(\.\d+)?$/.test(t)) return { error: 'Speed limit must be a number of MiB/s, e.g. 10 or 0.5' };
  const n = Math.round(Number(t) * 1048576);
  if (n < 1024) return { error: 'Speed limit must be at least 0.001 MiB/s (leave it empty for none)' };
  return { value: n };
}

/** Validates every field; on success builds the `sites.save` request (password: string = set, null = forget, undefined = keep). */
export function validateSiteForm(form: SiteForm): SiteFormResult {
  const errors: Partial<Record<SiteFormField, string>> = {};
  const name = form.name.trim();
  if (!name) errors.name = 'Name is required';
  else if (name.length > 200) errors.name = 'Name is too long';
  const host = form.host.trim();
  if (!host) errors.host = 'Host is required';
  else if (!/^[^\s/@]+$/.test(host)) errors.host = 'Host must not contain spaces, / or @';
  const portText = form.port.trim() === '' ? '22' : form.port;
  const port = intField(portText, 1, 65535, 'Port');
  if (port.error) errors.port = port.error;
  const user = form.user.trim();
  if (!user) errors.user = 'User is required';
  const keyPath = form.keyPath.trim();
  if (form.authMethod === 'key' && !keyPath) errors.keyPath = 'Choose a private key file';
  const connections = intField(form.connections, 1, 16, 'Connections');
  if (connections.error) errors.connections = connections.error;
  const channels = intField(form.channels, 1, 8, 'Channels');
  if (channels.error) errors.channels = channels.error;
  const speedLimit = limitField(form.speedLimit);
  if (speedLimit.error) errors.speedLimit = speedLimit.error;
  const jumpHost = form.jumpHost.trim();
  const jump = jumpHost ? parseJumpHosts(jumpHost) : null;
  if (jump && !jump.ok) errors.jumpHost = `Not a jump host list: ${jump.error}. Write [user@]host[:port], several separated by commas`;
  const ciphers = form.ciphers.split(/[\s,]+/).filter(Boolean);
  const badCipher = ciphers.find((c) => !/^[a-z0-9][a-z0-9@.-]*$/i.test(c));
  if (badCipher) errors.ciphers = `"${badCipher}" is not a cipher name`;
  else if (ciphers.length > 20) errors.ciphers = 'At most 20 ciphers';
  for (const [field, value] of [['localDir', form.localDir], ['remoteDir', form.remoteDir]] as const) {
    if (value.trim() && !value.trim().startsWith('/') && !/^[A-Za-z]:[\\/]/.test(value.trim()) && !value.trim().startsWith('~')) {
      errors[field] = 'Use an absolute path';
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const site: SiteInput = {
    ...(form.id ? { id: form.id } : {}),
    name,
    folder: normalizeFolder(form.folder),
    host,
    port: port.value ?? 22,
    user,
    authMethod: form.authMethod,
    ...(form.authMethod === 'key' ? { keyPath } : {}),
    ...(form.localDir.trim() ? { localDir: form.localDir.trim() } : {}),
    ...(form.remoteDir.trim() ? { remoteDir: form.remoteDir.trim() } : {}),
    ...(connections.value !== undefined ? { connections: connections.value } : {}),
    ...(channels.value !== undefined ? { channels: channels.value } : {}),
    ...(ciphers.length ? { ciphers } : {}),
    ...(speedLimit.value !== undefined ? { speedLimit: speedLimit.value } : {}),
    ...(jumpHost ? { jumpHost } : {}),
  };
  // The contract's validator is the final word (it also guards the IPC boundary).
  const checked = siteInputSchema.safeParse(site);
  if (!checked.success) return { ok: false, errors: { name: checked.error.issues[0]?.message ?? 'Invalid site' } };
  let password: string | null | undefined;
  if (form.authMethod !== 'password' || form.forgetPassword) password = form.id ? null : undefined;
  else password = form.password === '' ? undefined : form.password;
  return { ok: true, site, password };
}
