/**
 * Settings → Transfers as the service uses them (issue #23 item 22): the stored `transfers` setting over the defaults,
 * and what a queue run gives the engine from it.
 */
import { DEFAULT_TRANSFERS, type TransferDefaults } from '../../common/model/transferDefaults';
import type { SitesStore } from '../stores/sites';
import type { ConflictFiles, ConflictPolicy, ConflictRule, TransferRequest } from '../transfer/types';

/** The stored transfer defaults (a field never saved: its default). */
export function transferDefaults(store: Pick<SitesStore, 'getSetting'>): TransferDefaults {
  return { ...DEFAULT_TRANSFERS, ...store.getSetting<Partial<TransferDefaults>>('transfers') };
}

/**
 * The part of a queue run's TransferRequest the defaults decide: its conflict policy (`ask`: the dialog, through
 * `ask`; else the rule for every file), verification, and the times and permission bits kept.
 */
export function runOptions(
  d: TransferDefaults,
  ask: (target: string, files: ConflictFiles) => Promise<ConflictRule>,
): Pick<TransferRequest, 'conflict' | 'verify' | 'preserveTimes' | 'preservePermissions'> {
  const conflict: ConflictPolicy = d.conflict === 'ask' ? ask : d.conflict;
  return { conflict, verify: d.verify, preserveTimes: d.preserveTimes, preservePermissions: d.preservePermissions };
}
