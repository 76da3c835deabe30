// Files this code writes whole for itself (the state file, the kept file, the record of edits),
// beside the output folder or, when the folder above cannot be written, inside it: each made new
// under a temporary name, written, then renamed into place.
import { writeSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';

/**
 * A new file, never one that is there: a link left at a temporary name (by anyone) would
 * otherwise be followed, and its target overwritten.
 */
export async function createNew(file: string): Promise<FileHandle> {
  await rm(file, { force: true });
  return open(file, 'wx');
}

/**
 * Writes all of `part` at the file's offset. Text is written as text, and synchronously: Node
 * encodes it into memory it frees as the call returns, where a Buffer made of it would wait
 * outside the heap for a collection, and the C library kept the memory of such buffers to the end
 * of the build (figures: bench/README.md, 'Memory at a million files').
 */
export function writeWhole(fd: number, part: string | Uint8Array): void {
  let bytes: Uint8Array;
  let done = 0;
  if (typeof part === 'string') {
    done = writeSync(fd, part);
    // A short write (a full disk, say) ends in an error on the rest, as bytes.
    if (done === Buffer.byteLength(part)) return;
    bytes = Buffer.from(part);
  } else {
    bytes = part;
  }
  while (done < bytes.byteLength) done += writeSync(fd, bytes, done);
}
