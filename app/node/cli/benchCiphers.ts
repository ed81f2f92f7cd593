/**
 * `sluice bench-ciphers [--seconds N] [--no-save] [--json]` (issue #15): measures every AEAD cipher and CTR + MAC
 * combination on this machine through ssh2's packet path (ssh/cipherBench.ts), prints the table fastest per core
 * first, stores it as this machine's measurement (`<data folder>/cipher-speed.json`) unless `--no-save`, and says
 * which cipher and MAC orders connections now offer by default.
 */
import { Command, InvalidArgumentError } from 'commander';
import {
  combinationName,
  formatMBps,
  type CipherMeasurement,
  type CipherSpeedRow,
  type DefaultAlgorithmOrders,
} from '../../common/model/cipherSpeed';
import { ordersFromMeasurement } from '../ssh/algorithms';
import { DEFAULT_BENCH_SECONDS, runCipherBench } from '../ssh/cipherBench';
import { saveCipherSpeed } from '../stores/cipherSpeed';
import { resolveHome } from '../stores/dataDir';
import { toFatal, writeFatal } from './fatal';

/** The options of `bench-ciphers`. */
interface BenchCiphersOptions {
  seconds: number;
  save: boolean;
  json?: boolean;
}

const HELP = `
Each combination runs for --seconds in a worker thread: an in-memory ssh2
client and server, pinned to it, move SSH_MSG_CHANNEL_DATA packets of the
engine's size (32 KiB), the client encrypting and the server decrypting.
"MB/s per core" is bytes / CPU seconds of that thread (encrypting and
decrypting); "wall" is bytes / elapsed seconds. MB = 10^6 bytes. The result is
stored per machine (CPU, cores, AES flag, Node, OpenSSL, ssh2) in
<data folder>/cipher-speed.json; new connections then offer the ciphers and
MACs fastest first.
`;

function parseSeconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 60)
    throw new InvalidArgumentError('seconds per combination, more than 0 and at most 60');
  return n;
}

/** The table, fastest per core first, as aligned text lines. */
export function formatSpeedTable(rows: readonly CipherSpeedRow[]): string[] {
  const sorted = [...rows].sort((a, b) => b.perCoreMBps - a.perCoreMBps);
  const cells = sorted.map((r) => [
    combinationName(r),
    ...[r.perCoreMBps, r.encryptMBps, r.decryptMBps, r.wallMBps].map(formatMBps),
  ]);
  const head = ['cipher (+ MAC)', 'MB/s per core', 'encrypt', 'decrypt', 'wall'];
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === 0 ? v.padEnd(width[i]) : v.padStart(width[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...cells.map(line)];
}

/** The lines after the table: the default orders and where the measurement went. */
function trailer(orders: DefaultAlgorithmOrders, saved: string | null): string[] {
  return [
    `default cipher order${saved ? '' : ' (if saved)'}: ${orders.cipher.join(', ')}`,
    `default MAC order${saved ? '' : ' (if saved)'}: ${orders.hmac.join(', ')}`,
    saved ? `saved as this machine's measurement: ${saved}` : 'not saved (--no-save): the defaults stay as they were',
  ];
}

/** Runs the command. @returns the exit code */
async function benchCiphers(o: BenchCiphersOptions): Promise<number> {
  const json = o.json === true;
  try {
    const measurement: CipherMeasurement = await runCipherBench({
      seconds: o.seconds,
      onRow: (row, i, total) => {
        if (json) process.stdout.write(`${JSON.stringify({ type: 'row', ...row })}\n`);
        else
          process.stderr.write(
            `sluice: ${i}/${total} ${combinationName(row)}: ${formatMBps(row.perCoreMBps)} MB/s per core\n`,
          );
      },
    });
    const saved = o.save ? saveCipherSpeed(resolveHome(), measurement) : null;
    const orders = ordersFromMeasurement(measurement);
    if (json) {
      process.stdout.write(`${JSON.stringify({ type: 'measurement', ...measurement, defaults: orders, saved })}\n`);
    } else {
      for (const l of formatSpeedTable(measurement.rows)) process.stdout.write(`${l}\n`);
      const f = measurement.facts;
      process.stdout.write(
        `${f.cpuModel}, ${f.cores} cores, AES instructions ${f.aes === null ? 'unknown' : f.aes ? 'yes' : 'no'}; ` +
          `Node ${f.node}, OpenSSL ${f.openssl}, ssh2 ${f.ssh2}; ${measurement.cpuClock} CPU clock\n`,
      );
      for (const l of trailer(orders, saved)) process.stdout.write(`${l}\n`);
    }
    return 0;
  } catch (e) {
    return writeFatal(toFatal(e), json);
  }
}

/** Adds `sluice bench-ciphers` to the program; its exit code goes to the root program's `exitCode` option. */
export function addBenchCiphersCommand(program: Command): void {
  program
    .command('bench-ciphers')
    .description('time every cipher (and CTR + MAC pair) on this machine; the fastest become the default order')
    .option('--seconds <n>', 'seconds per combination', parseSeconds, DEFAULT_BENCH_SECONDS)
    .option('--no-save', 'print only: do not store the measurement (the default orders stay)')
    .option('--json', 'JSON lines: one per combination, then the measurement with the default orders')
    .addHelpText('after', HELP)
    .action(async (o: BenchCiphersOptions) => {
      program.setOptionValue('exitCode', await benchCiphers(o));
    });
}
