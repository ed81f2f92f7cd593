/**
 * The door to ssh2's insides: the installed ssh2 carries the patch's methods, and an unpatched SFTP class is named
 * with the fix instead of failing later with a TypeError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSsh2Patched } from './ssh2x';
import { SluiceError } from './errors';

test('the installed ssh2 is the patched one', () => {
  assert.doesNotThrow(() => assertSsh2Patched());
});

test('an unpatched ssh2 is refused with the missing methods and the command that applies the patch', () => {
  const unpatched = {
    sluiceReadInto() {
      /* one method of four */
    },
  };
  assert.throws(
    () => assertSsh2Patched(unpatched),
    (e: unknown) => {
      assert.ok(e instanceof SluiceError);
      assert.match(e.message, /ssh2 is not patched \(missing sluiceWriteBuffer, sluiceSendWrite, sluiceExtended\)/);
      assert.match(e.message, /npx patch-package/);
      return true;
    },
  );
});
