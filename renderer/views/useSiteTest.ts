/**
 * The site form's "Test connection" (`sites.test`): one test at a time, cancellable (`sites.testCancel`: the service
 * reports ABORTED at once and closes the test's dialogs), and cancelled when the form closes.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { SiteInput } from '../../app/common/model/site';
import { useBridge } from '../state/react';
import type { SiteTestState } from './SiteTestResult';

export interface SiteTest {
  state: SiteTestState | null;
  /** Starts a test of `site` (with the form's password, when it has one). */
  start(site: SiteInput, password: string | undefined): Promise<void>;
  /** Cancels the running test, if any. */
  cancel(): void;
  /** Forgets a finished test's result (the settings it was made with changed). */
  clearResult(): void;
}

let testsStarted = 0;

/** An id the service tells this test by (crypto.randomUUID needs a secure context; this does not). */
function newTestId(): string {
  testsStarted += 1;
  return `test-${testsStarted}-${Math.random().toString(36).slice(2, 10)}`;
}

export function useSiteTest(): SiteTest {
  const bridge = useBridge();
  const [state, setState] = useState<SiteTestState | null>(null);
  const running = useRef<string | null>(null);

  const cancel = useCallback(() => {
    const testId = running.current;
    if (testId) void bridge.sitesTestCancel({ testId });
  }, [bridge]);

  const start = useCallback(
    async (site: SiteInput, password: string | undefined) => {
      const testId = newTestId();
      running.current = testId;
      setState({ kind: 'running' });
      const r = await bridge.sitesTest(password === undefined ? { site, testId } : { site, password, testId });
      if (running.current !== testId) return;
      running.current = null;
      setState(r.ok ? { kind: 'done', report: r.value } : { kind: 'error', message: r.error.message });
    },
    [bridge],
  );

  const clearResult = useCallback(() => setState((t) => (t?.kind === 'running' ? t : null)), []);

  // A test still running when the form closes would go on asking about host keys and passwords for nothing.
  useEffect(() => cancel, [cancel]);

  return { state, start, cancel, clearResult };
}
