/**
 * One entry point over the import parsers: a format and what was read (a file's text, or the files of PuTTY's
 * sessions folder) to candidate sites and notes. Pure: reading the source is source.ts.
 */
import type { ImportFormat } from '../../common/model/siteImport';
import { SluiceError } from '../errors';
import type { ParseOptions, ParsedSites } from './candidates';
import { parseFileZilla } from './filezilla';
import { parseOpenSshConfig } from './openssh';
import { parsePuttySessionFile, parsePuttySessions, puttySessionsFromReg } from './putty';
import { isRegFile } from './settingsFiles';
import { parseSluiceExport } from './sluiceJson';
import { parseWinScp } from './winscp';

/** What was read: one text, or (PuTTY on Unix) one text per session file, named by its file name. */
export type SourceData = { text: string } | { files: Array<{ name: string; text: string }> };

/**
 * Parses a source in the given format.
 * @returns candidates and notes; for `sluice`, also the export's folders (`folders`, empty ones included)
 * @throws SluiceError INVALID_REQUEST when the data is not in that format (a folder given for a one-file format, a
 *   PuTTY text that is not a registry export, malformed XML or JSON)
 */
export function parseSource(
  format: ImportFormat,
  data: SourceData,
  opts: ParseOptions,
): ParsedSites & { folders?: string[] } {
  if ('files' in data) {
    if (format !== 'putty') throw new SluiceError('INVALID_REQUEST', `A ${format} source is one file, not a folder`);
    return parsePuttySessions(
      data.files.map((f) => parsePuttySessionFile(f.name, f.text)),
      opts,
    );
  }
  const { text } = data;
  switch (format) {
    case 'openssh':
      return parseOpenSshConfig(text, opts);
    case 'filezilla':
      return parseFileZilla(text, opts);
    case 'winscp':
      return parseWinScp(text, opts);
    case 'sluice':
      return parseSluiceExport(text, opts);
    case 'putty':
      if (!isRegFile(text)) {
        throw new SluiceError(
          'INVALID_REQUEST',
          'PuTTY sessions are read from the sessions folder (~/.putty/sessions) or from a registry export (.reg)',
        );
      }
      return parsePuttySessions(puttySessionsFromReg(text), opts);
  }
}
