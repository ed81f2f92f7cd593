import test from 'node:test';
import assert from 'node:assert/strict';
import { dataWithin } from './sparseUpload';

test('dataWithin: a resumed sparse upload sends the data inside the missing ranges only', () => {
  // data at [100, 200) and [500, 600), the last byte 999; the journal holds [0, 150) and [550, 1000)
  const data = [
    [100, 200],
    [500, 600],
    [999, 1000],
  ] as const;
  assert.deepEqual(dataWithin([[150, 550]], data, 1000), {
    ranges: [
      [150, 200],
      [500, 550],
    ],
    holeBytes: 300,
  });
  assert.deepEqual(dataWithin([[0, 1000]], data, 1000), {
    ranges: [
      [100, 200],
      [500, 600],
      [999, 1000],
    ],
    holeBytes: 799,
  });
});

test('dataWithin: missing ranges that are all holes still send the last byte (the segment that commits the file)', () => {
  assert.deepEqual(
    dataWithin(
      [[300, 400]],
      [
        [100, 200],
        [999, 1000],
      ],
      1000,
    ),
    { ranges: [[999, 1000]], holeBytes: 99 },
  );
});
