/**
 * The one place the optional native/ addon (`native/build/Release/sluice_native.node`, Node-API, built by
 * scripts/build-native.js at `npm install`) is loaded. Every caller has a JavaScript fallback for `undefined`:
 * the addon is missing (no compiler at install time), failed to load (built for another platform or ABI), or the
 * user turned it off with `SLUICE_NATIVE=0` (read at every call, so tests and a worker thread see the same switch).
 * A call that fails for another reason than the one it reports (ENOSPC of a preallocation) falls back too: every
 * caller catches it (on Windows a handle lookup can fail where Linux never does). `SLUICE_NATIVE_FAULT=a,b` makes the
 * named functions (tcpInfo, preallocate, dataRanges) throw EBADF, so the suite tests those fallbacks on any platform.
 */
import path from 'node:path';

/** `struct tcp_info` fields as the addon names them (Linux names; macOS and Windows map theirs onto these). */
export interface RawTcpInfo {
  /** Smoothed RTT and its variance, µs. */
  rtt: number;
  rttvar: number;
  min_rtt?: number;
  /** Congestion window, segments; sender MSS, bytes. */
  snd_cwnd: number;
  snd_mss: number;
  total_retrans: number;
  /** bytes/s. */
  delivery_rate?: number;
  /** µs. */
  busy_time?: number;
  rwnd_limited?: number;
  sndbuf_limited?: number;
  bytes_acked?: number;
  bytes_received?: number;
}

/** The addon's functions (native/src/*.cc). */
export interface NativeAddon {
  /** The compiled-for platform: `linux`, `darwin`, `win32` or `other`. */
  readonly platform: string;
  /** TCP_INFO of a connected socket's descriptor. @throws Error with `code` (ENOTSOCK, EBADF…) */
  tcpInfo(fd: number): RawTcpInfo;
  /**
   * Reserves `bytes` for the file without changing its size (fallocate FALLOC_FL_KEEP_SIZE / F_PREALLOCATE).
   * @returns false when the file system cannot preallocate
   * @throws Error with `code` ENOSPC / EDQUOT / EFBIG when the space is not there
   */
  preallocate(fd: number, bytes: number): boolean;
  /**
   * The file's data ranges [start, end) up to `size` (SEEK_DATA/SEEK_HOLE), or null when the file system cannot say.
   */
  dataRanges(fd: number, size: number): Array<[number, number]> | null;
  /**
   * Marks the file sparse (Windows FSCTL_SET_SPARSE; false elsewhere and where the file system cannot): absent from
   * an addon built before it. @throws Error with `code` EBADF when the handle cannot be looked up
   */
  setSparse?(fd: number): boolean;
  /** Whether the file manager hides the entry (Windows hidden/system, macOS UF_HIDDEN; false on Linux). */
  isHidden?(path: string): boolean;
}

/** The repository (or packed app) root: three folders above this file, four when it runs compiled from dist/. */
function packageRoot(): string {
  const up3 = path.resolve(__dirname, '..', '..', '..');
  return path.basename(up3) === 'dist' ? path.dirname(up3) : up3;
}

/** Where scripts/build-native.js puts the addon (electron-builder unpacks it from the asar at the same path). */
export const NATIVE_ADDON_PATH = path.join(packageRoot(), 'native', 'build', 'Release', 'sluice_native.node');

let loaded: { addon?: NativeAddon; error?: string } | undefined;

/** Loads the addon once; inside a packed Electron app the `.node` file is read from app.asar.unpacked. */
function load(): { addon?: NativeAddon; error?: string } {
  const file = NATIVE_ADDON_PATH.replace(`${path.sep}app.asar${path.sep}`, `${path.sep}app.asar.unpacked${path.sep}`);
  try {
    return { addon: require(file) as NativeAddon };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const FAULTABLE = ['tcpInfo', 'preallocate', 'dataRanges', 'setSparse', 'isHidden'] as const;

/** The addon with the functions `SLUICE_NATIVE_FAULT` names throwing EBADF, as a failed handle lookup would. */
function withFaults(addon: NativeAddon, names: string[]): NativeAddon {
  const out: NativeAddon = Object.create(addon) as NativeAddon;
  for (const name of FAULTABLE.filter((n) => names.includes(n))) {
    Object.defineProperty(out, name, {
      value: () => {
        const e = new Error(`EBADF: bad file descriptor, ${name} (SLUICE_NATIVE_FAULT)`);
        throw Object.assign(e, { code: 'EBADF', syscall: name });
      },
    });
  }
  return out;
}

/** The addon, or undefined when it is missing, failed to load, or `SLUICE_NATIVE=0`. Never throws. */
export function nativeAddon(): NativeAddon | undefined {
  if (process.env.SLUICE_NATIVE === '0') return undefined;
  loaded ??= load();
  const faults = process.env.SLUICE_NATIVE_FAULT;
  return loaded.addon && faults
    ? withFaults(
        loaded.addon,
        faults.split(',').map((s) => s.trim()),
      )
    : loaded.addon;
}

/** Why the addon is not in use (for `-v` output and tests), or undefined when it is. */
export function nativeUnavailableReason(): string | undefined {
  if (process.env.SLUICE_NATIVE === '0') return 'turned off by SLUICE_NATIVE=0';
  loaded ??= load();
  return loaded.addon ? undefined : `not loaded: ${loaded.error ?? 'unknown'}`;
}
