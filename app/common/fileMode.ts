/**
 * Unix permission bits as people read and write them: `ls -l`'s mode string (`drwxr-xr-x`, POSIX ls §STDOUT) and
 * chmod(1)'s MODE operand, octal (`755`) or symbolic (`u+x,go-w`, `a=rX`, `g=u`), POSIX chmod §Extended Description.
 */

const S_IFMT = 0o170000;
/** The type letters of `ls -l` by S_IFMT value (OpenSSH's sftp prints the same through strmode(3)). */
const TYPE_LETTERS: Readonly<Record<number, string>> = {
  0o140000: 's',
  0o120000: 'l',
  0o100000: '-',
  0o060000: 'b',
  0o040000: 'd',
  0o020000: 'c',
  0o010000: 'p',
};

/** The letter for a type as the engine names it, when the S_IFMT bits are not known. */
const KIND_LETTERS: Readonly<Record<string, string>> = { file: '-', dir: 'd', symlink: 'l', other: '?' };

/**
 * `ls -l`'s ten-character mode string, e.g. `drwxr-xr-x`, `-rwsr-x--T`, `lrwxrwxrwx`.
 * @param mode the permission bits (0o7777; higher bits are read as the type when `format` is absent)
 * @param kind the type when the S_IFMT bits are unknown: file, dir, symlink, other
 * @param format the S_IFMT bits, when known (a socket, FIFO or device among `other`)
 */
export function modeString(mode: number, kind: string, format?: number): string {
  const fmt = format || mode & S_IFMT;
  const type = TYPE_LETTERS[fmt] ?? KIND_LETTERS[kind] ?? '?';
  const triple = (shift: number, special: number, lower: string, upper: string): string => {
    const bits = (mode >> shift) & 7;
    const x = bits & 1;
    const exec = mode & special ? (x ? lower : upper) : x ? 'x' : '-';
    return `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${exec}`;
  };
  return type + triple(6, 0o4000, 's', 'S') + triple(3, 0o2000, 's', 'S') + triple(0, 0o1000, 't', 'T');
}

/** The permission bits as four octal digits, e.g. `0755`. */
export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** A parsed MODE: the new permission bits from the current ones and whether the file is a folder (for `X`). */
export type ModeChange = (current: number, isDir: boolean) => number;

const WHO_BITS: Readonly<Record<string, number>> = { u: 0o4700, g: 0o2070, o: 0o1007, a: 0o7777 };

/** The bits a permission letter stands for, for every class (masked by the clause's `who` later). */
function permBits(p: string, current: number, isDir: boolean): number {
  switch (p) {
    case 'r':
      return 0o444;
    case 'w':
      return 0o222;
    case 'x':
      return 0o111;
    case 'X':
      return isDir || (current & 0o111) !== 0 ? 0o111 : 0;
    case 's':
      return 0o6000;
    case 't':
      return 0o1000;
    default: {
      // u, g, o: copy that class's current rwx to every class
      const shift = p === 'u' ? 6 : p === 'g' ? 3 : 0;
      const rwx = (current >> shift) & 7;
      return rwx * 0o111;
    }
  }
}

/** One symbolic clause such as `u+x`, `go-w`, `a=rX`, `=r`, `g=u` applied to `current`. */
function applyClause(clause: string, current: number, isDir: boolean): number {
  const m = /^([ugoa]*)((?:[-+=][rwxXst]*|[-+=][ugo])+)$/.exec(clause);
  if (!m) throw new Error(clause);
  // No `who`: like `a`, except that the umask would apply; a remote file has no umask we know of, so `a`.
  const who = [...(m[1] || 'a')].reduce((acc, c) => acc | WHO_BITS[c], 0);
  let mode = current;
  for (const action of m[2].match(/[-+=][rwxXstugo]*/g) ?? []) {
    const op = action[0];
    const bits = [...action.slice(1)].reduce((acc, p) => acc | permBits(p, mode, isDir), 0) & who;
    if (op === '+') mode |= bits;
    else if (op === '-') mode &= ~bits;
    // `=` clears the class's rwx (and its set-id bit for u and g, sticky for o) before setting
    else mode = (mode & ~who) | bits;
  }
  return mode & 0o7777;
}

/**
 * Parses chmod's MODE: octal digits (`644`, `0755`, `4755`: the bits as given) or comma-separated symbolic clauses
 * `[ugoa]*[-+=][rwxXst]*` (or `[-+=][ugo]`, copying a class), `X` meaning x for folders and for files that already
 * have an x bit.
 * @returns the change, or undefined for text that is neither
 */
export function parseModeChange(text: string): ModeChange | undefined {
  if (/^[0-7]{1,4}$/.test(text)) {
    const bits = parseInt(text, 8);
    return () => bits;
  }
  const clauses = text.split(',');
  if (!clauses.every((c) => /^[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+$/.test(c))) return undefined;
  return (current, isDir) => clauses.reduce((mode, c) => applyClause(c, mode, isDir), current & 0o7777);
}
