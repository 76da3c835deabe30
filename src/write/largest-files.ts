// The output's largest files, as write counts them: the record names the largest (the hosts' limits
// are on it), and an edit that makes it smaller or removes it names the next from these
// (build/edit-record.ts) rather than from the size of every file in the state file.

/** The largest files of the output, largest first, and a bound on the others: none is larger than `below` bytes. */
export interface LargestFiles {
  /** Each with its size and its place in the plan's order, which breaks ties; -1 where that is not known. */
  files: [path: string, bytes: number, place: number][];
  below: number;
}

/** How many files LargestFiles holds: enough that the pages an edit makes smaller leave some it has not changed. */
export const LARGEST_KEPT = 64;

/** Adds a file to `largest` when it is among the largest; one it pushes out raises the bound. */
export function addLargest(largest: LargestFiles, path: string, bytes: number, place: number): void {
  const { files } = largest;
  if (files.length === LARGEST_KEPT) {
    const smallest = files[files.length - 1]![1];
    if (bytes <= smallest) {
      if (bytes > largest.below) largest.below = bytes;
      return;
    }
    files.pop();
    if (smallest > largest.below) largest.below = smallest;
  }
  let at = files.length;
  while (at > 0 && files[at - 1]![1] < bytes) at--;
  files.splice(at, 0, [path, bytes, place]);
}

/**
 * The largest file, as write names it: of those as large, the first in the plan's order.
 * Undefined when another file may be as large (one of `below` bytes), or of files as large one
 * has no known place.
 */
export function largestIn({ files, below }: LargestFiles): { path: string; bytes: number } | undefined {
  const top = files[0];
  if (!top || top[1] <= below) return undefined;
  const ties = files.filter(([, bytes]) => bytes === top[1]);
  if (ties.length > 1 && ties.some(([, , place]) => place < 0)) return undefined;
  const [path, bytes] = ties.reduce((first, file) => (file[2] < first[2] ? file : first));
  return { path, bytes };
}

/** `largest` once the files of `sizes` have those sizes (one it did not hold: its place unknown) and those `removed` are gone. */
export function largestFilesAfter(largest: LargestFiles, sizes: Iterable<[path: string, bytes: number]>, removed: Iterable<string>): LargestFiles {
  const now = new Map(largest.files.map(([path, bytes, place]) => [path, { bytes, place }]));
  for (const file of removed) now.delete(file);
  for (const [path, bytes] of sizes) {
    const held = now.get(path);
    if (held) held.bytes = bytes;
    // One no larger than the bound may stay out: the bound holds for it.
    else if (bytes > largest.below) now.set(path, { bytes, place: -1 });
  }
  const after: LargestFiles = { files: [], below: largest.below };
  for (const [path, { bytes, place }] of now) addLargest(after, path, bytes, place);
  return after;
}
