/**
 * TEST ONLY: a stand-in for a user's editor saving a file, run as its own process (`node standInEditor.js MODE TEXT
 * FILE`), the way Settings' editor command or a test starts it:
 * - `inplace`: truncates and rewrites FILE through the same inode (nano, most GUI editors' default);
 * - `rename`: writes a temporary file beside FILE, fsyncs it and renames it over FILE (vim with backupcopy=no, IDEs'
 *   "safe write"): FILE's inode is replaced;
 * - `backup`: renames FILE to `FILE~`, writes a new FILE, removes the backup (vim's default on Unix).
 * TEXT `@PATH` saves that file's content. Exits 0 once the save is complete, 2 on bad arguments.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

function saveInPlace(file: string, text: string): void {
  const fd = fs.openSync(file, 'r+');
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, text, 0);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

function saveByRename(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.swp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
}

function saveWithBackup(file: string, text: string): void {
  const backup = `${file}~`;
  fs.renameSync(file, backup);
  fs.writeFileSync(file, text);
  fs.unlinkSync(backup);
}

const [mode, textArg, file] = process.argv.slice(2);
/** `@PATH`: the text is that file's content (a save too large for a command line). */
const text = textArg?.startsWith('@') ? fs.readFileSync(textArg.slice(1), 'utf8') : textArg;
const save = { inplace: saveInPlace, rename: saveByRename, backup: saveWithBackup }[mode ?? ''];
if (!save || text === undefined || !file) {
  process.stderr.write('usage: standInEditor inplace|rename|backup TEXT FILE\n');
  process.exit(2);
}
save(file, text);
