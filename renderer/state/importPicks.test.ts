/** The import dialog's choices (renderer/state/importPicks.ts): duplicates unticked, toggles, passwords counted. */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { ImportCandidateView, ImportPreview } from '../../app/common/model/siteImport';
import { defaultPicks, pickedPasswords, rowNotes, serverOf, toggled } from './importPicks';

const candidate = (index: number, extra: Partial<ImportCandidateView> = {}): ImportCandidateView => ({
  index,
  origin: `o${index}`,
  hasPassword: false,
  notes: [],
  site: { name: `s${index}`, folder: '', host: `h${index}.example`, port: 22, user: 'u', authMethod: 'agent' },
  ...extra,
});
const preview: ImportPreview = {
  format: 'filezilla',
  source: '/x.xml',
  digest: '0'.repeat(64),
  notes: [],
  candidates: [
    candidate(0, { hasPassword: true }),
    candidate(1, {
      duplicateOf: { id: 'a', name: 'A', folder: '', reason: 'u@h1.example:22 is already the saved site "A"' },
      notes: ['not imported: x'],
    }),
    candidate(2, {
      hasPassword: true,
      site: { name: 's2', folder: 'F', host: 'h2.example', port: 2222, user: 'bob', authMethod: 'password' },
    }),
  ],
};

test('a preview ticks every candidate but the duplicates; toggles add and remove', () => {
  const picks = defaultPicks(preview);
  assert.deepEqual([...picks].sort(), [0, 2]);
  assert.deepEqual([...toggled(picks, 1, true)].sort(), [0, 1, 2]);
  assert.deepEqual([...toggled(picks, 0, false)], [2]);
  assert.deepEqual([...picks].sort(), [0, 2], 'toggling returns a new set');
});

test('the passwords of the ticked candidates are counted; rows say server, duplicate first', () => {
  assert.equal(pickedPasswords(preview, new Set([0, 2])), 2);
  assert.equal(pickedPasswords(preview, new Set([1, 2])), 1);
  assert.equal(serverOf(preview.candidates[0]), 'u@h0.example');
  assert.equal(serverOf(preview.candidates[2]), 'bob@h2.example:2222');
  assert.deepEqual(rowNotes(preview.candidates[1]), [
    'duplicate: u@h1.example:22 is already the saved site "A"',
    'not imported: x',
  ]);
});
