/**
 * The bar over the panes (#27): the Compare toggle (Ctrl+O / ⌘O), "Differences only", the legend with each status's
 * glyph, words and count (never colour alone), Synchronize… (Ctrl+S / ⌘S) and Keep up to date….
 */
import { COMPARE_TEXT, type CompareStatus } from '../../app/common/folderCompare';
import type { FolderCompareState } from './useFolderCompare';

export interface CompareBarProps {
  compare: FolderCompareState;
  mac: boolean;
  /** Opens the Synchronize… dialog; absent while there is no connected site. */
  onSynchronize?: () => void;
  /** Opens Keep remote up to date…; absent while there is no connected site. */
  onKeepUp?: () => void;
}

/** A status's glyph, coloured by its class; the words are the accessible name and the tooltip. */
export function CompareGlyph({ status, text }: { status: CompareStatus; text?: string }) {
  const t = text ?? COMPARE_TEXT[status].text;
  return (
    <span className={`cmp-mark cmp-${status}`} role="img" aria-label={t} title={t}>
      {COMPARE_TEXT[status].glyph}
    </span>
  );
}

/** The legend's lines: statuses as the local pane counts them, and what only the remote pane has. */
function legendLines(c: NonNullable<FolderCompareState['result']>): Array<[CompareStatus, string, number]> {
  const l = c.leftCounts;
  const lines: Array<[CompareStatus, string, number]> = [
    ['only-here', 'only in Local', l['only-here']],
    ['only-here', 'only in Remote', c.rightCounts['only-here']],
    ['newer-here', 'newer in Local', l['newer-here']],
    ['newer-there', 'newer in Remote', l['newer-there']],
    ['same-size-different-time', 'same size, different time', l['same-size-different-time']],
    ['size-differs', 'size differs, same time', l['size-differs']],
    ['kind-differs', 'file against folder', l['kind-differs']],
    ['same', 'same', l.same],
  ];
  // The rarer two only when there are any.
  return lines.filter(([status, , n]) => n > 0 || (status !== 'size-differs' && status !== 'kind-differs'));
}

/** The Compare and Synchronize bar. */
export function CompareBar({ compare, mac, onSynchronize, onKeepUp }: CompareBarProps) {
  const mod = mac ? '⌘' : 'Ctrl+';
  const c = compare.result;
  return (
    <div className="compare-bar" role="toolbar" aria-label="Compare and synchronize">
      <button
        type="button"
        aria-pressed={compare.on}
        title={`Mark each pane's files against the other pane's folder (${mod}O)`}
        onClick={compare.toggle}
      >
        Compare
      </button>
      <label>
        <input
          type="checkbox"
          checked={compare.differencesOnly}
          disabled={!compare.on}
          onChange={(e) => compare.setDifferencesOnly(e.target.checked)}
        />{' '}
        Differences only
      </label>
      <button
        type="button"
        disabled={!onSynchronize}
        title={`Make one side's folder like the other's (${mod}S)`}
        onClick={onSynchronize}
      >
        Synchronize…
      </button>
      <button
        type="button"
        disabled={!onKeepUp}
        title="Upload each change of the local folder to the remote one as it happens"
        onClick={onKeepUp}
      >
        Keep up to date…
      </button>
      {compare.on && !c && (
        <span className="muted" role="status">
          {compare.ready ? 'Comparing…' : 'Compare needs a folder in both panes: connect to a site.'}
        </span>
      )}
      {c && (
        <ul className="compare-legend" aria-label="Compare legend">
          {legendLines(c).map(([status, text, n]) => (
            <li key={text} data-status={status}>
              <CompareGlyph status={status} text={text} /> {text}: {n}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
