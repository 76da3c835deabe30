// The largest files write counts and an edit keeps (write/largest-files.ts): which is the largest,
// and when what is kept cannot tell.
import { describe, expect, it } from 'vitest';
import { addLargest, largestFilesAfter, largestIn, type LargestFiles } from '../src/write/index.js';
import { LARGEST_KEPT } from '../src/write/largest-files.js';

/** Files `f0` … of the sizes given, counted in that order, as write counts the plan's. */
function counted(sizes: readonly number[]): LargestFiles {
  const largest: LargestFiles = { files: [], below: 0 };
  sizes.forEach((bytes, place) => addLargest(largest, `f${place}`, bytes, place));
  return largest;
}

describe('the largest files', () => {
  it('keep the largest, and bound the others by the largest left out', () => {
    // 100 files of 1,000 to 1,099 bytes, in a shuffled order.
    const sizes = Array.from({ length: 100 }, (_, k) => 1000 + ((k * 37) % 100));
    const largest = counted(sizes);
    expect(largest.files).toHaveLength(LARGEST_KEPT);
    expect(largest.files.map(([, bytes]) => bytes)).toEqual(Array.from({ length: LARGEST_KEPT }, (_, k) => 1099 - k));
    expect(largest.below).toBe(1099 - LARGEST_KEPT);
    expect(largestIn(largest)).toEqual({ path: `f${sizes.indexOf(1099)}`, bytes: 1099 });
  });

  it('name the first in the plan of files as large, and none when one of them has no place', () => {
    expect(largestIn(counted([5, 9, 3, 9]))).toEqual({ path: 'f1', bytes: 9 });
    const after = largestFilesAfter(counted([5, 9, 3, 7]), [['new', 9]], []);
    expect(after.files.find(([path]) => path === 'new')).toEqual(['new', 9, -1]);
    expect(largestIn(after)).toBeUndefined();
    expect(largestIn(largestFilesAfter(after, [['new', 8]], []))).toEqual({ path: 'f1', bytes: 9 });
  });

  it('tell no largest when the files kept are no larger than the bound', () => {
    const sizes = Array.from({ length: LARGEST_KEPT + 1 }, (_, k) => 100 + k);
    // The file of 100 bytes is left out: the bound. Every kept file shrunk to 100: any could be the largest.
    const largest = counted(sizes);
    expect(largest.below).toBe(100);
    const shrunk = largestFilesAfter(
      largest,
      largest.files.map(([path]) => [path, 100]),
      [],
    );
    expect(largestIn(shrunk)).toBeUndefined();
    // One of them 101 bytes again: larger than any left out.
    expect(largestIn(largestFilesAfter(shrunk, [['f7', 101]], []))).toEqual({ path: 'f7', bytes: 101 });
  });

  it('leave out a file no larger than the bound, take in one larger, and drop those removed', () => {
    const largest = counted(Array.from({ length: LARGEST_KEPT + 10 }, (_, k) => 100 + k));
    const below = largest.below;
    const after = largestFilesAfter(
      largest,
      [
        ['f0', below],
        ['f1', below + 1000],
      ],
      [`f${LARGEST_KEPT + 9}`],
    );
    expect(after.files.some(([path]) => path === 'f0')).toBe(false);
    expect(after.files.some(([path]) => path === `f${LARGEST_KEPT + 9}`)).toBe(false);
    // f1 was left out: its place is not known, but it is the largest alone.
    expect(after.files[0]).toEqual(['f1', below + 1000, -1]);
    expect(largestIn(after)).toEqual({ path: 'f1', bytes: below + 1000 });
    expect(after.files).toHaveLength(LARGEST_KEPT);
  });
});
