// What a build keeps for the next (build/kept-store.ts), in a file beside the output folder:
// `.dist.addon-gen-kept` for `dist`. Only ever a speed-up: a file that cannot be read or written
// is as if there were none.
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createNew, TEMP_SUFFIX } from './state.js';

export const KEPT_FILE = '.addon-gen-kept';
/** Bytes gathered before a write: a large catalog has thousands of small parts. */
const WRITE_BYTES = 1 << 20;

/** Beside the output folder, as the state file is (state.ts, stateFileOf). */
export function keptFileOf(outDir: string): string {
  const root = path.resolve(outDir);
  return path.join(path.dirname(root), `.${path.basename(root)}${KEPT_FILE}`);
}

/** The bytes last written for `outDir`, if there are any: a file, not a link to one (or to a device). */
export async function readKeptFile(outDir: string): Promise<Buffer | undefined> {
  try {
    const handle = await open(keptFileOf(outDir), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Replaces what is kept for `outDir` by `parts`, whole or not at all; a failure is ignored. */
export async function writeKeptFile(outDir: string, parts: Iterable<Uint8Array>): Promise<void> {
  const target = keptFileOf(outDir);
  const scratch = `${target}${TEMP_SUFFIX}`;
  try {
    const handle = await createNew(scratch);
    try {
      let batch: Uint8Array[] = [];
      let bytes = 0;
      const flush = async () => {
        // appendFile, unlike write, writes all of its bytes.
        await handle.appendFile(Buffer.concat(batch, bytes));
        [batch, bytes] = [[], 0];
      };
      for (const part of parts) {
        batch.push(part);
        bytes += part.byteLength;
        if (bytes >= WRITE_BYTES) await flush();
      }
      await flush();
    } finally {
      await handle.close();
    }
    await rename(scratch, target);
  } catch {
    await rm(scratch, { force: true }).catch(() => {});
  }
}
