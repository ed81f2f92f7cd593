/**
 * The benchmark matrix: which cases run (sizes, link, direction) and which client configurations run in each.
 * Targets are those of issue #3 (figures measured on a 2-core machine of this kind, see shared/FIELD.md).
 * Sluice's defaults size the pool from the measured RTT (1 connection on loopback, 4 × 2 channels at ≥ 5 ms), so the
 * 50 ms cases add an explicit `--connections 1` row for the one-connection figure.
 */
import {
  installed,
  lftpClient,
  opensshClient,
  rcloneClient,
  sluiceClient,
  withPerf,
  type ClientVariant,
} from './clients';

export type Link = 'loopback' | 'rtt50';
/** Which prepared source a case copies. */
export type DataSet = 'big' | 'mid' | 'tree' | 'one';

/** A target Sluice's best row should reach, with the rule that checks it. */
export interface Target {
  text: string;
  /** `sluice` and `sftp` are the medians in the case's unit (MB/s or seconds). */
  met(sluice: number, sftp: number | undefined): boolean | undefined;
}

export interface BenchCase {
  /** e.g. `big-down-loopback`; `--only` matches `<case id>/<client id>`. */
  id: string;
  title: string;
  link: Link;
  direction: 'up' | 'down';
  data: DataSet;
  /** Throughput cases report MB/s (10^6 bytes/s); the others seconds. */
  unit: 'MB/s' | 's';
  bytes: number;
  files: number;
  timeoutMs: number;
  target?: Target;
  clients: ClientVariant[];
}

/** Sizes of one run mode. */
export interface Sizes {
  big: number;
  mid: number;
  files: number;
  fileSize: number;
}

export const FULL_SIZES: Sizes = { big: 1024 ** 3, mid: 128 * 1024 ** 2, files: 1000, fileSize: 4096 };
export const QUICK_SIZES: Sizes = { big: 256 * 1024 ** 2, mid: 32 * 1024 ** 2, files: 200, fileSize: 4096 };

function sizeLabel(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3} GiB` : `${bytes / 1024 ** 2} MiB`;
}

const atLeast = (factor: number): Target => ({
  text: `≥ ${factor}× sftp`,
  met: (s, sftp) => (sftp === undefined ? undefined : s >= factor * sftp),
});

/** Peers available on this machine: OpenSSH always (the bench needs it), lftp and rclone when installed. */
function peers(opts: { tuned: boolean }): ClientVariant[] {
  const out = [opensshClient('sftp', [])];
  if (opts.tuned) out.push(opensshClient('sftp-R256', ['-R', '256', '-B', '261120']));
  if (installed('lftp')) out.push(lftpClient());
  if (installed('rclone')) out.push(rcloneClient());
  return out;
}

/**
 * Builds the case list.
 * @param cpuProfDir when set, Sluice runs under `node --cpu-prof`, writing into the folder it returns for
 *   `<case id>/<client id>`
 * @param perfDir when set, Sluice's default row and plain `sftp` run under `perf record` (bench/perf.ts), writing
 *   into the folder it returns for `<case id>/<client id>`
 */
export function buildCases(
  sizes: Sizes,
  cpuProfDir?: (caseAndClient: string) => string,
  perfDir?: (caseAndClient: string) => string,
): BenchCase[] {
  const sluice = (caseId: string, configs: Array<[string, string[]]>): ClientVariant[] =>
    configs.map(([id, extra]) => sluiceClient(id, extra, cpuProfDir?.(`${caseId}/${id}`)));
  const cases: BenchCase[] = [];
  for (const link of ['loopback', 'rtt50'] as const) {
    const id = `connect-${link}`;
    cases.push({
      id,
      title: `connect + auth + get 1 byte, ${link === 'loopback' ? 'loopback' : '50 ms RTT'}`,
      link,
      direction: 'down',
      data: 'one',
      unit: 's',
      bytes: 1,
      files: 1,
      timeoutMs: 30_000,
      clients: [
        ...sluice(id, [
          ['sluice', []],
          ['sluice-c1', ['--connections', '1']],
        ]),
        ...peers({ tuned: false }),
      ],
    });
  }
  for (const direction of ['down', 'up'] as const) {
    const id = `big-${direction}-loopback`;
    cases.push({
      id,
      title: `${sizeLabel(sizes.big)} ${direction === 'down' ? 'download' : 'upload'}, loopback`,
      link: 'loopback',
      direction,
      data: 'big',
      unit: 'MB/s',
      bytes: sizes.big,
      files: 1,
      timeoutMs: 30_000 + sizes.big / 10e3,
      target: atLeast(1.1),
      clients: [
        ...sluice(id, [
          ['sluice', []],
          ['sluice-c2', ['--connections', '2']],
          ['sluice-ch2', ['--channels', '2']],
          ['sluice-c2-ch2', ['--connections', '2', '--channels', '2']],
        ]),
        ...peers({ tuned: true }),
      ],
    });
  }
  for (const direction of ['down', 'up'] as const) {
    const id = `mid-${direction}-rtt50`;
    cases.push({
      id,
      title: `${sizeLabel(sizes.mid)} ${direction === 'down' ? 'download' : 'upload'}, 50 ms RTT`,
      link: 'rtt50',
      direction,
      data: 'mid',
      unit: 'MB/s',
      bytes: sizes.mid,
      files: 1,
      timeoutMs: 30_000 + sizes.mid / 2e3,
      target: atLeast(5),
      clients: [
        ...sluice(id, [
          ['sluice', []],
          ['sluice-c1', ['--connections', '1']],
          ['sluice-c2-ch8', ['--connections', '2', '--channels', '8']],
          ['sluice-ch16', ['--connections', '1', '--channels', '16']],
        ]),
        ...peers({ tuned: true }),
      ],
    });
  }
  for (const direction of ['up', 'down'] as const) {
    const id = `tree-${direction}-rtt50`;
    cases.push({
      id,
      title: `${sizes.files} × ${sizes.fileSize / 1024} KiB files ${direction === 'down' ? 'download' : 'upload'}, 50 ms RTT`,
      link: 'rtt50',
      direction,
      data: 'tree',
      unit: 's',
      bytes: sizes.files * sizes.fileSize,
      files: sizes.files,
      timeoutMs: 60_000 + sizes.files * 400,
      target: { text: `≤ ${Math.round((5 * sizes.files) / 1000)} s`, met: (s) => s <= (5 * sizes.files) / 1000 },
      clients: [
        ...sluice(id, [
          ['sluice', []],
          ['sluice-c1', ['--connections', '1']],
          ['sluice-c2-ch4', ['--connections', '2', '--channels', '4']],
        ]),
        ...peers({ tuned: false }),
      ],
    });
  }
  if (perfDir) {
    for (const c of cases)
      c.clients = c.clients.map((cl) =>
        cl.id === 'sluice' || cl.id === 'sftp' ? withPerf(cl, perfDir(`${c.id}/${cl.id}`)) : cl,
      );
  }
  return cases;
}
