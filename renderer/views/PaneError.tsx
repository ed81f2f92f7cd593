/** A pane's listing error. */
/** Why the folder could not be listed: under the header, or in place of the grid before any listing. */
export function PaneError({ title, listed, error }: { title: string; listed: boolean; error: string }) {
  return (
    <p className={listed ? 'pane-error error-text' : 'empty error-text'} role="alert" aria-label={`${title} error`}>
      {error}
    </p>
  );
}
