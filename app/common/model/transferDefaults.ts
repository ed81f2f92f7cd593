/**
 * The app's transfer defaults (Settings → Transfers, issue #23 item 22), kept as the `transfers` setting (sluice.db):
 * the pool a site without its own numbers opens, what a transfer does when its target exists, how it verifies a file,
 * and whether targets keep their source's modification time and permission bits. A site's own connections and channels
 * win; the speed limit of every transfer together is the separate `speedLimit` setting.
 */

/** Every {@link ConflictDefault}, in the order Settings lists them. */
export const CONFLICT_DEFAULTS = ['ask', 'overwrite', 'skip', 'newer', 'size', 'rename'] as const;
/** What the app does when a target exists: ask (the conflict dialog), or one rule for every file. */
export type ConflictDefault = (typeof CONFLICT_DEFAULTS)[number];

export interface TransferDefaults {
  /** SSH connections per site, 1–16; null: sized from the measured RTT. */
  connections: number | null;
  /** SFTP channels per connection, 1–8; null: sized from the measured RTT. */
  channels: number | null;
  conflict: ConflictDefault;
  /** `size` (compare sizes) or `sha256` (hash both sides before the file is committed). */
  verify: 'size' | 'sha256';
  /** The target gets the source's modification time (as `sluice` does unless `--no-times`). */
  preserveTimes: boolean;
  /** The target gets the source's permission bits exactly (`sluice -p`); else the creating side's umask applies. */
  preservePermissions: boolean;
}

/** What a new installation uses: the engine's own defaults (auto pool, ask, size, times kept, umask). */
export const DEFAULT_TRANSFERS: TransferDefaults = {
  connections: null,
  channels: null,
  conflict: 'ask',
  verify: 'size',
  preserveTimes: true,
  preservePermissions: false,
};
