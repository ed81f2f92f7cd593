/**
 * The CLI's option parsers (commander argParsers): whole numbers, sizes and rates read as rsync reads them, the
 * conflict rule and the verify level. Each throws commander's InvalidArgumentError with the accepted form.
 */
import { InvalidArgumentError } from 'commander';
import { TRANSFER_LIMITS, type Range } from '../../common/transferLimits';
import { CONFLICT_RULES, type ConflictRule } from '../transfer/types';
import { parseByteAmount } from './units';

/** `--first`, `--keepalive-count`, …: a whole number ≥ 1. @throws InvalidArgumentError otherwise */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

/**
 * A parser of a whole number within `range` (`--connections`, `--channels`, `--requests`).
 * @returns the parser; it throws InvalidArgumentError naming the range for anything else
 */
export function intIn(range: Range): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < range.min || n > range.max)
      throw new InvalidArgumentError(`must be a whole number from ${range.text}`);
    return n;
  };
}

/** `--keepalive`: a whole number ≥ 0. @throws InvalidArgumentError otherwise */
export function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number ≥ 0');
  return n;
}

/**
 * A size within `range`, read as rsync reads sizes (units.ts parseByteAmount): K, M, G and KiB, MiB, GiB are powers
 * of 1024, KB, MB, GB powers of 1000.
 * @throws InvalidArgumentError for other text, or naming the range
 */
function sizeIn(v: string, range: Range): number {
  const n = parseByteAmount(v);
  if (n === undefined)
    throw new InvalidArgumentError('expected a size such as 16M (16 MiB), 512K, 16MB (16,000,000 bytes) or 1048576');
  if (n < range.min || n > range.max) throw new InvalidArgumentError(`must be from ${range.text}`);
  return n;
}

/**
 * `--segment-size`: sizes such as 16M, 512K, 1G, 16MiB or plain bytes; units are binary (K = 1024).
 * @returns bytes
 * @throws InvalidArgumentError for other text or a size outside {@link TRANSFER_LIMITS}.segmentSize (64K to 1024G)
 */
export function parseSize(v: string): number {
  return sizeIn(v, TRANSFER_LIMITS.segmentSize);
}

/**
 * `--limit`: a rate such as 10M, 512K, 1.5M, 10MiB/s, 10MB/s or plain bytes per second, units as {@link parseSize}
 * (10M = 10 MiB/s, 10MB = 10,000,000 bytes/s); 0 means no limit. For `get`, `put` and `sluice queue run`.
 * @returns bytes per second (whole), 0 for none
 * @throws InvalidArgumentError for other text, or a limit under 1 KiB/s other than 0
 */
export function parseRate(v: string): number {
  const n = parseByteAmount(v, { perSecond: true });
  if (n === undefined)
    throw new InvalidArgumentError(
      'expected a rate such as 10M (10 MiB/s), 10MB (10,000,000 bytes/s), 512K, 1.5M or 0 (no limit)',
    );
  // 0.4 rounds to 0 bytes/s: only a written zero means "no limit".
  const writtenZero = /^0*(\.0*)?\s*[a-z/]*$/i.test(v.trim());
  if ((n === 0 && !writtenZero) || (n !== 0 && n < 1024))
    throw new InvalidArgumentError('must be 0 (no limit) or at least 1K (1 KiB/s)');
  return n;
}

/**
 * `--window`: a size within {@link TRANSFER_LIMITS}.window, 2 MiB (ssh2's own window) to 256 MiB.
 * @returns bytes
 * @throws InvalidArgumentError for other text or outside that range
 */
export function parseWindow(v: string): number {
  return sizeIn(v, TRANSFER_LIMITS.window);
}

/** `--conflict`: one of {@link CONFLICT_RULES}. @throws InvalidArgumentError otherwise */
export function parseConflict(v: string): ConflictRule {
  const rule = CONFLICT_RULES.find((r) => r === v);
  if (!rule) throw new InvalidArgumentError(CONFLICT_RULES.join(', '));
  return rule;
}

/** `--verify`: size or sha256. @throws InvalidArgumentError otherwise */
export function parseVerify(v: string): 'size' | 'sha256' {
  if (v !== 'size' && v !== 'sha256') throw new InvalidArgumentError('size or sha256');
  return v;
}

/** A repeatable option's values, in order. */
export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}
