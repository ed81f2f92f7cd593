/**
 * The site form's algorithm lists (issue #15): per family (ciphers, key exchanges, MACs, host-key algorithms) the names
 * the engine supports as rows to enable, disable and reorder. A site's list is its enabled names in order; `null` means
 * the defaults (the engine's order, which never includes a weak name: app/common/algorithms.ts). Pure; unit-tested.
 */
import type { AlgorithmCatalog, AlgorithmFamilyCatalog, AlgorithmFamilyName } from '../../app/common/algorithms';

/** One row of a family's editor. */
export interface AlgorithmRow {
  name: string;
  enabled: boolean;
  /** Why the name is weak (shown next to it), when it is. */
  weak?: string;
  /** A saved name this engine does not support (the connect would refuse it). */
  unsupported?: boolean;
  /** A saved second spelling of a listed name (the catalog's aliases): the name it stands for. */
  aliasOf?: string;
}

/** A family's chosen list: its enabled names in order, or null for the defaults. */
export type AlgorithmChoice = string[] | null;

/** How each family is named in the form. */
export const FAMILY_LABELS: Readonly<Record<AlgorithmFamilyName, { title: string; one: string }>> = {
  cipher: { title: 'Ciphers', one: 'cipher' },
  kex: { title: 'Key exchange', one: 'key exchange method' },
  hmac: { title: 'MACs', one: 'MAC' },
  serverHostKey: { title: 'Host-key algorithms', one: 'host-key algorithm' },
};

/** The names a choice enables: its own list, or the family's defaults. */
export function enabledNames(family: AlgorithmFamilyCatalog, choice: AlgorithmChoice): string[] {
  return choice ?? family.defaults;
}

/**
 * The rows of a family: the enabled names first, in their order, then every other supported name (off), in the
 * engine's order. A saved name the engine does not know is kept (enabled, marked unsupported) so the user sees it; a
 * saved second spelling of a name (aes128-gcm for aes128-gcm@openssh.com) is kept and says which name it stands for.
 */
export function rowsOf(family: AlgorithmFamilyCatalog, choice: AlgorithmChoice): AlgorithmRow[] {
  const enabled = enabledNames(family, choice);
  const row = (name: string, on: boolean): AlgorithmRow => ({
    name,
    enabled: on,
    ...(family.weak[name] !== undefined ? { weak: family.weak[name] } : {}),
    ...(family.aliases?.[name] !== undefined
      ? { aliasOf: family.aliases[name] }
      : family.supported.includes(name)
        ? {}
        : { unsupported: true }),
  });
  return [
    ...enabled.map((n) => row(n, true)),
    ...family.supported.filter((n) => !enabled.includes(n)).map((n) => row(n, false)),
  ];
}

/** A list equal to the defaults is stored as none (null), so the site follows a later change of the default order. */
function normalized(family: AlgorithmFamilyCatalog, names: string[]): AlgorithmChoice {
  const same = names.length === family.defaults.length && names.every((n, i) => n === family.defaults[i]);
  return same ? null : names;
}

/** Turns `name` on (appended after the enabled ones: least preferred) or off. */
export function toggle(
  family: AlgorithmFamilyCatalog,
  choice: AlgorithmChoice,
  name: string,
  on: boolean,
): AlgorithmChoice {
  const enabled = enabledNames(family, choice).filter((n) => n !== name);
  return normalized(family, on ? [...enabled, name] : enabled);
}

/**
 * Moves an enabled `name` one place up (-1: more preferred) or down (+1); unchanged at either end or when it is off.
 */
export function move(
  family: AlgorithmFamilyCatalog,
  choice: AlgorithmChoice,
  name: string,
  delta: -1 | 1,
): AlgorithmChoice {
  const enabled = [...enabledNames(family, choice)];
  const i = enabled.indexOf(name);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= enabled.length) return choice;
  [enabled[i], enabled[j]] = [enabled[j], enabled[i]];
  return normalized(family, enabled);
}

/** One line for a family's summary: `default order (6 on)` or `custom: 2 on, 1 weak`. */
export function choiceSummary(family: AlgorithmFamilyCatalog, choice: AlgorithmChoice): string {
  const enabled = enabledNames(family, choice);
  if (choice === null) return `default order (${enabled.length} on)`;
  const weak = enabled.filter((n) => family.weak[n] !== undefined).length;
  return `custom: ${enabled.length} on${weak ? `, ${weak} weak` : ''}`;
}

/** The families whose choice enables nothing (the form refuses to save them). */
export function emptyFamilies(choices: Readonly<Record<AlgorithmFamilyName, AlgorithmChoice>>): AlgorithmFamilyName[] {
  return (Object.keys(choices) as AlgorithmFamilyName[]).filter((f) => choices[f] !== null && choices[f]!.length === 0);
}

/** The catalog's family, or an empty one while it loads. */
export function familyOf(catalog: AlgorithmCatalog | null, family: AlgorithmFamilyName): AlgorithmFamilyCatalog {
  return catalog?.[family] ?? { supported: [], defaults: [], weak: {} };
}
