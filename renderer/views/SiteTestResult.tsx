/**
 * What the site form's "Test connection" found (`sites.test`, app/common/model/siteTest.ts): the server's version, the
 * negotiated algorithms, the round trip and the login folder; or the step that failed with the server's message.
 */
import type { SiteTestReport } from '../../app/common/model/siteTest';
import { displayText } from '../../app/common/displayText';

/**
 * The server's software from its identification line, escaped (`SSH-2.0-OpenSSH_9.2p1 Debian` -> `OpenSSH_9.2p1
 * Debian`).
 */
export function serverSoftwareText(ident: string): string {
  return displayText(ident.replace(/^SSH-[\d.]+-/, '') || ident);
}

/** A test under way, its report, or a failure of the request itself. */
export type SiteTestState =
  { kind: 'running' } | { kind: 'done'; report: SiteTestReport } | { kind: 'error'; message: string };

/** The result panel under the form (a live region: screen readers hear the outcome). */
export function SiteTestResult({ state }: { state: SiteTestState }) {
  if (state.kind === 'running')
    return (
      <p className="site-test" role="status" aria-label="Test result">
        Testing the connection…
      </p>
    );
  if (state.kind === 'error')
    return (
      <p className="site-test error-text" role="alert" aria-label="Test result">
        Test failed: {state.message}
      </p>
    );
  const r = state.report;
  if (!r.ok && r.code === 'ABORTED')
    return (
      <p className="site-test" role="status" aria-label="Test result">
        Test cancelled
      </p>
    );
  if (!r.ok) {
    return (
      <div className="site-test failed" role="alert" aria-label="Test result">
        <strong>Test failed at {r.step}</strong> ({r.code})<p className="error-text">{r.message}</p>
      </div>
    );
  }
  return (
    <div className="site-test ok" role="status" aria-label="Test result">
      <strong>Connection works</strong>{' '}
      <span className="note">
        ({r.elapsedMs} ms, logged in with {r.authMethod})
      </span>
      <dl>
        <dt>Server</dt>
        <dd>{serverSoftwareText(r.serverVersion)}</dd>
        <dt>Cipher</dt>
        <dd>{r.cipher}</dd>
        <dt>MAC</dt>
        <dd>{r.mac}</dd>
        <dt>Key exchange</dt>
        <dd>{r.kex}</dd>
        <dt>Host key</dt>
        <dd>{r.serverHostKey}</dd>
        <dt>Round trip</dt>
        <dd>{r.rttMs === undefined ? 'not measured' : `${r.rttMs} ms`}</dd>
        <dt>Home folder</dt>
        <dd>{r.home ?? 'not reported'}</dd>
      </dl>
    </div>
  );
}
