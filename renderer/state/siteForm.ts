/**
 * The site form as plain strings, and its validation into a contract `SiteInput`. Pure; unit-tested.
 * Field rules mirror `siteInputSchema` in app/common/ipc/contract.ts, with messages meant for people.
 */
import { siteInputSchema } from '../../app/common/ipc/contract';
import type { AuthMethod, Site, SiteInput } from '../../app/common/model/site';
import { normalizeFolder } from '../../app/common/model/site';
import { parseJumpHosts } from '../../app/common/jumpHosts';
import { TRANSFER_LIMITS } from '../../app/common/transferLimits';
import { SITE_ALGORITHM_FIELDS, type AlgorithmFamilyName } from '../../app/common/algorithms';
import { FAMILY_LABELS, type AlgorithmChoice } from './algorithmLists';

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
  /** The algorithm lists (state/algorithmLists.ts): enabled names in order, null = the defaults. */
  ciphers: AlgorithmChoice;
  kex: AlgorithmChoice;
  macs: AlgorithmChoice;
  hostKeyAlgorithms: AlgorithmChoice;
  /** Speed limit in MiB/s ('' = none; decimals allowed). */
  speedLimit: string;
  /** Jump hosts, ProxyJump syntax ('' = as ~/.ssh/config says; `none` = connect directly). */
  jumpHost: string;
}

export type SiteFormField = keyof SiteForm;

/** The form's algorithm list fields, by family. */
export type AlgorithmField = (typeof SITE_ALGORITHM_FIELDS)[AlgorithmFamilyName];

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
    ciphers: null,
    kex: null,
    macs: null,
    hostKeyAlgorithms: null,
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
    ciphers: site.ciphers?.length ? [...site.ciphers] : null,
    kex: site.kex?.length ? [...site.kex] : null,
    macs: site.macs?.length ? [...site.macs] : null,
    hostKeyAlgorithms: site.hostKeyAlgorithms?.length ? [...site.hostKeyAlgorithms] : null,
    speedLimit: site.speedLimit === undefined ? '' : String(Math.round((site.speedLimit / 1048576) * 1000) / 1000),
    jumpHost: site.jumpHost ?? '',
  };
}

/** The form of a new site from a quick-connect site (no id: saving creates it; named as the bar named it). */
export function quickToForm(site: Site): SiteForm {
  const { id: _id, ...form } = siteToForm(site);
  return form;
}

/** The fields folded under the form's "Advanced" section. */
export const ADVANCED_FIELDS: readonly SiteFormField[] = [
  'connections',
  'channels',
  'speedLimit',
  'jumpHost',
  'ciphers',
  'kex',
  'macs',
  'hostKeyAlgorithms',
];

/** Whether a form has anything set under "Advanced" (the section then starts open). */
export function hasAdvanced(form: SiteForm): boolean {
  return ADVANCED_FIELDS.some((f) => form[f] !== null && form[f] !== '');
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

/**
 * Validates every field; on success builds the `sites.save` request (password: string = set, null = forget, undefined =
 * keep).
 */
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
  const connections = intField(
    form.connections,
    TRANSFER_LIMITS.connections.min,
    TRANSFER_LIMITS.connections.max,
    'Connections',
  );
  if (connections.error) errors.connections = connections.error;
  const channels = intField(form.channels, TRANSFER_LIMITS.channels.min, TRANSFER_LIMITS.channels.max, 'Channels');
  if (channels.error) errors.channels = channels.error;
  const speedLimit = limitField(form.speedLimit);
  if (speedLimit.error) errors.speedLimit = speedLimit.error;
  const jumpHost = form.jumpHost.trim();
  const jump = jumpHost ? parseJumpHosts(jumpHost) : null;
  if (jump && !jump.ok)
    errors.jumpHost = `Not a jump host list: ${jump.error}. Write [user@]host[:port], several separated by commas`;
  const lists: Partial<Record<AlgorithmField, string[]>> = {};
  for (const [family, field] of Object.entries(SITE_ALGORITHM_FIELDS) as Array<[AlgorithmFamilyName, AlgorithmField]>) {
    const list = form[field];
    if (list === null) continue;
    if (list.length === 0)
      errors[field] = `Enable at least one ${FAMILY_LABELS[family].one}, or reset the list to the defaults`;
    else lists[field] = list;
  }
  for (const [field, value] of [
    ['localDir', form.localDir],
    ['remoteDir', form.remoteDir],
  ] as const) {
    const v = value.trim();
    // Absolute: /x, C:\x, ~ or ~/x; a local folder may also be a UNC share (\\server\share\x).
    const unc = field === 'localDir' && /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.test(v);
    if (v && !v.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(v) && !v.startsWith('~') && !unc) {
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
    ...lists,
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
