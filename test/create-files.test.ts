// The write threads compare a file rendered again with what is there (src/write/create-files.ts):
// on real files, in threads and on the calling thread, a file is left alone only when it holds
// exactly the new bytes, whatever was read before it, large or small.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFileCreator } from '../src/write/create-files.js';
import { tempDir } from './support/content.js';

const MiB = 1 << 20;

/** Bytes of `size`, all `fill` but the last, which is `last`. */
function bytesOf(size: number, fill: number, last = fill): Buffer {
  const bytes = Buffer.alloc(size, fill);
  if (size > 0) bytes[size - 1] = last;
  return bytes;
}

describe('files compared before they are written', () => {
  for (const threads of [0, 2]) {
    it(`are left alone only when they hold the very bytes (${threads === 0 ? 'on the calling thread' : 'in two threads'})`, async () => {
      const dir = await tempDir();
      // What is there, what is written now, and whether it must be written.
      const cases: [name: string, there: Buffer, now: Buffer, written: boolean][] = [
        ['large, the same', bytesOf(MiB + 10, 1), bytesOf(MiB + 10, 1), false],
        ['small after it, the same', Buffer.from('{"a":1}'), Buffer.from('{"a":1}'), false],
        ['small, one byte differs', Buffer.from('{"a":1}'), Buffer.from('{"a":2}'), true],
        ['large, the last byte differs', bytesOf(MiB + 10, 1), bytesOf(MiB + 10, 1, 2), true],
        ['just under a megabyte, the same', bytesOf(MiB - 1, 3), bytesOf(MiB - 1, 3), false],
        ['just under a megabyte, the last byte differs', bytesOf(MiB - 1, 3), bytesOf(MiB - 1, 3, 4), true],
        ['bytes like those just read, not those there', bytesOf(100, 5), bytesOf(100, 3), true],
        ['a prefix of what was read before', bytesOf(100, 3), bytesOf(100, 3), false],
        ['empty', Buffer.alloc(0), Buffer.alloc(0), false],
        ['longer than the size recorded', Buffer.from('{"a":10}'), Buffer.from('{"a":1}'), true],
      ];
      for (const [name, there] of cases) await writeFile(path.join(dir, `${name}.json`), there);
      const creator = startFileCreator(threads, '.tmp-test', async () => {});
      try {
        // One file a batch, in order, so that each thread reads its files after the ones before.
        for (const [name, , now, written] of cases) {
          const batch = creator.batch(false);
          // The size the last build recorded: that of the new bytes, so that the file is compared.
          batch.add(path.join(dir, `${name}.json`), now, false, now.length);
          expect((await batch.send()).written, name).toEqual([written]);
          // Compared as bytes: a deep equality of a megabyte takes seconds.
          expect((await readFile(path.join(dir, `${name}.json`))).equals(now), name).toBe(true);
        }
        // Compared whatever the sizes say (after an interrupted build), all in one batch.
        const batch = creator.batch(true);
        for (const [name, , now] of cases) batch.add(path.join(dir, `${name}.json`), now, false);
        expect((await batch.send()).written).toEqual(cases.map(() => false));
      } finally {
        await creator.close();
      }
      for (const [name, , now] of cases) expect((await stat(path.join(dir, `${name}.json`))).size, name).toBe(now.length);
    });
  }
});
