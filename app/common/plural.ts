/**
 * `"1 file"`, `"2 files"`: a count followed by its noun, singular only for 1. One rule for the CLI and the app.
 * @param pluralForm the noun for other counts (default: `singular` + `s`)
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
