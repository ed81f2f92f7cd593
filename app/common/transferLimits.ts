/**
 * The bounds of a transfer's concurrency and sizes, one definition for the CLI's options and the app's site form and
 * IPC schema, so that both accept the same values. Past them memory grows with no gain in speed: `--connections 1000`
 * took 11.4 GB to copy 1 MiB, 100000 ran Node out of memory (issue 24).
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** One inclusive range; `text` names it as the user types it (sizes in K, M, G). */
export interface Range {
  min: number;
  max: number;
  text: string;
}

/**
 * - `connections`: SSH connections of a pool, each with its own thread.
 * - `channels`: SFTP channels per connection (the auto-tuner uses 10).
 * - `requests`: outstanding SSH_FXP_READ/WRITE requests per channel.
 * - `window`: a channel's receive window in bytes: ssh2's own 2 MiB up to 256 MiB (a uint32, RFC 4254 §5.2).
 * - `segmentSize`: bytes above which a file is split across channels.
 * - `maxDepth`: folder levels a recursive download walks below a source (`--max-depth`).
 */
export const TRANSFER_LIMITS = {
  connections: { min: 1, max: 16, text: '1 to 16' },
  channels: { min: 1, max: 16, text: '1 to 16' },
  requests: { min: 1, max: 1024, text: '1 to 1024' },
  window: { min: 2 * MiB, max: 256 * MiB, text: '2M to 256M' },
  segmentSize: { min: 64 * KiB, max: 1024 * GiB, text: '64K to 1024G' },
  maxDepth: { min: 0, max: 1000, text: '0 to 1000' },
} as const satisfies Record<string, Range>;
