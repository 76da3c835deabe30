// What a build keeps for the next (build/kept-store.ts), in a file beside the output folder:
// `.dist.addon-gen-kept` for `dist`. Only ever a speed-up: a file that cannot be read or written
// is as if there were none.
import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { TEMP_SUFFIX } from './state.js';
import { createNew, writeWhole } from './new-file.js';
import { besideOutput } from '../shared/locations.js';

export const KEPT_FILE = '.addon-gen-kept';
/** Beside the output folder, as the state file is (state.ts, stateFileOf). */
export function keptFileOf(outDir: string): string {
  return besideOutput(outDir, KEPT_FILE);
}

/** The file kept for `outDir`, open to be read in parts, each as it is needed (see openKeptFile). */
export interface KeptFile {
  size: number;
  /** Bytes `start` to `end` (excluded); throws when the file is no longer the one opened. */
  read(start: number, end: number): Uint8Array;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The file last written for `outDir`, if there is one: a file, not a link, a pipe (O_NONBLOCK: it
 * must not hang the build) or a device. Read in parts, each opened anew, so that a build holds in
 * memory only the part it reads (figures: bench/README.md, 'One-item edits from the CLI').
 */
export async function openKeptFile(outDir: string): Promise<KeptFile | undefined> {
  const file = keptFileOf(outDir);
  let opened: BigIntStats;
  try {
    const handle = await open(file, READ_FLAGS);
    try {
      opened = await handle.stat({ bigint: true });
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  if (!opened.isFile()) return undefined;
  const read = (start: number, end: number): Uint8Array => {
    const fd = openSync(file, READ_FLAGS);
    try {
      const now = fstatSync(fd, { bigint: true });
      if (now.ino !== opened.ino || now.dev !== opened.dev || now.size !== opened.size || now.mtimeNs !== opened.mtimeNs)
        throw new Error(`${file} changed`);
      const bytes = Buffer.allocUnsafe(end - start);
      for (let done = 0; done < bytes.length;) {
        const got = readSync(fd, bytes, done, bytes.length - done, start + done);
        if (got === 0) throw new Error(`${file} ended early`);
        done += got;
      }
      return bytes;
    } finally {
      closeSync(fd);
    }
  };
  return { size: Number(opened.size), read };
}

/**
 * A kept file being written, into a temporary file beside it until `commit` puts it in place of
 * the last one. Failures are ignored: after one, nothing more is written and nothing is committed.
 */
export interface KeptFileWriter {
  /** Writes each part: text in UTF-8, or bytes (a part read from the last kept file). */
  append(parts: Iterable<string | Uint8Array>): Promise<void>;
  /** Replaces the kept file by what was appended, whole or not at all. */
  commit(): Promise<void>;
  /** Removes what was appended, unless committed: the last kept file stays as it was. */
  discard(): Promise<void>;
}

export async function startKeptFile(outDir: string): Promise<KeptFileWriter> {
  const target = keptFileOf(outDir);
  const scratch = `${target}${TEMP_SUFFIX}`;
  let handle = await createNew(scratch).catch(() => undefined);
  // The handle, once: whoever ends the writer closes it.
  const take = () => {
    const open = handle;
    handle = undefined;
    return open;
  };
  const discard = async () => {
    const open = take();
    if (!open) return;
    await open.close().catch(() => {});
    await rm(scratch, { force: true }).catch(() => {});
  };
  return {
    async append(parts) {
      if (!handle) return;
      try {
        for (const part of parts) writeWhole(handle.fd, part);
      } catch {
        await discard();
      }
    },
    async commit() {
      const open = take();
      if (!open) return;
      try {
        await open.close();
        await rename(scratch, target);
      } catch {
        await rm(scratch, { force: true }).catch(() => {});
      }
    },
    discard,
  };
}
