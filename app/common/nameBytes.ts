/**
 * File names measured as file systems measure them: NAME_MAX is 255 bytes of UTF-8 on ext4, XFS and APFS (and 255
 * UTF-16 units on NTFS, which a name within 255 bytes of UTF-8 never exceeds), so that a name Sluice makes up (a
 * temporary name beside a target) stays within it however long the target's own name is.
 */

/** NAME_MAX of ext4/XFS/APFS/NTFS, in bytes of UTF-8 (the most any one path component may hold). */
export const NAME_MAX_BYTES = 255;

/** Bytes of `text` in UTF-8 (a lone surrogate counts 3, as it is encoded as U+FFFD). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** The longest start of `text` (whole code points) that fits in `maxBytes` bytes of UTF-8. */
export function fitUtf8(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = utf8Bytes(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * `.BASE${suffix}` (a hidden name beside `BASE`, e.g. suffix `.sluice-0123abcd.part`), with BASE cut at a code point so
 * that the whole name fits in {@link NAME_MAX_BYTES}: a target of 234–255 bytes still gets a temporary name its file
 * system accepts. The suffix is kept whole (it is how leftovers are recognised); a long BASE keeps its first bytes.
 * @param base the target's own name (one path component)
 * @param suffix what follows it, ASCII, shorter than 128 bytes
 */
export function hiddenSiblingName(base: string, suffix: string): string {
  const room = NAME_MAX_BYTES - 1 - utf8Bytes(suffix);
  return `.${utf8Bytes(base) <= room ? base : fitUtf8(base, room)}${suffix}`;
}
