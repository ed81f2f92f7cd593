/**
 * The app's side of issue #15's cipher measurement: `algorithms.measurement` (this machine's stored measurement, the
 * default orders it gives, the machine's facts) and `algorithms.measure` (runs ssh/cipherBench.ts in its worker and
 * stores the result in `<home>/cipher-speed.json`; new connections then offer the measured order).
 */
import type { AlgorithmsMeasurementView } from '../../common/model/cipherSpeed';
import { defaultAlgorithmOrders } from '../ssh/algorithms';
import { measureAndStore } from '../ssh/cipherBench';
import { machineFacts } from '../ssh/machineFacts';
import { readCipherSpeed } from '../stores/cipherSpeed';

/** Seconds per combination when the app measures (21 combinations: about 5 s). */
export const APP_MEASURE_SECONDS = 0.25;

/** The stored measurement of one data folder, and one measurement run at a time. */
export class CipherMeasurements {
  private running: Promise<AlgorithmsMeasurementView> | null = null;
  private readonly stop = new AbortController();

  /**
   * @param home the data folder (the service's)
   * @param log notes for the log: a corrupt or foreign file, a finished run
   */
  constructor(
    private readonly home: string,
    private readonly log: (level: 'info' | 'warn', message: string) => void,
  ) {}

  /** What is stored for this machine now (a corrupt file or another machine's: no measurement, with a note). */
  view(): AlgorithmsMeasurementView {
    const facts = machineFacts();
    const { measurement, note } = readCipherSpeed(this.home, facts);
    return {
      measurement: measurement ?? null,
      ...(note ? { note } : {}),
      defaults: defaultAlgorithmOrders(this.home),
      facts,
    };
  }

  /**
   * Measures and stores; a request while a run is under way gets that run's answer.
   * @param seconds per combination; default {@link APP_MEASURE_SECONDS}
   * @throws SluiceError INTERNAL (the worker failed), LOCAL_IO (the file could not be written), ABORTED (closed
   * meanwhile)
   */
  measure(seconds = APP_MEASURE_SECONDS): Promise<AlgorithmsMeasurementView> {
    this.running ??= (async () => {
      try {
        const { measurement, file } = await measureAndStore(this.home, { seconds, signal: this.stop.signal });
        const view = this.view();
        this.log(
          'info',
          `Cipher speed measured (${measurement.rows.length} combinations, saved to ${file}): default ciphers now ${view.defaults.cipher.join(', ')}`,
        );
        return view;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops a measurement under way (its worker is terminated; nothing is stored). */
  close(): void {
    this.stop.abort();
  }
}
