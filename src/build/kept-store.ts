// What builds keep for the next, so that an edit's build does again little more than the edit
// asks: in memory for a long-lived caller (serve --watch), and for the CLI's builds in a file
// beside the output folder (write/kept-file.ts), which the next build into it reads back.
import { CheckedFiles, type RestoredFile } from '../validate/checked-files.js';
import { PreviewSizes } from '../plan/preview-sizes.js';
import { openKeptFile, startKeptFile, type KeptFile } from '../write/index.js';
import { generatorFingerprint } from './reuse.js';
import { fieldOf, isCount, jsonOf } from '../shared/fields.js';

export interface KeptBetweenBuilds {
  /** What each item file became: a file whose text and settings are as they were is neither parsed nor checked again. */
  checkedFiles: CheckedFiles;
  /** The size of each item's preview, which measuring the output needs. */
  previewSizes: PreviewSizes;
}

export function keptBetweenBuilds(): KeptBetweenBuilds {
  return { checkedFiles: new CheckedFiles(), previewSizes: new PreviewSizes() };
}

/** Names the layout of the file: another (an older addon-gen's) is not read. */
const FORMAT = 'addon-gen kept between builds 2';

/**
 * The file's layout, each part JSON text in UTF-8: each kept content file's result, as
 * CheckedFiles.stored() made it, one after the other; the preview sizes, in blocks of
 * PREVIEW_BLOCK; then the index (`Index`); then the index's length in 4 bytes. Results are
 * written as they are made, and read back only as a build takes them; the preview sizes are made
 * into keys a block at a time, not all at once at the end of a build, while its memory is near
 * its peak.
 */
interface Index {
  format: typeof FORMAT;
  /** addon-gen's code: the results are its objects. */
  generator: string;
  context: string;
  files: { file: string; fingerprint: string; bytes: number }[];
  /** The bytes of each block of preview sizes: `[keys, sizes]`. */
  previews: number[];
}

const PREVIEW_BLOCK = 8192;

/** What the last build into `outDir` kept; nothing unless `reuse`, or when it is not whole or another's. */
export async function keptBeside(outDir: string, reuse: boolean): Promise<KeptBetweenBuilds> {
  const file = reuse ? await openKeptFile(outDir) : undefined;
  const index = file && indexOf(file);
  if (!file || !index) return keptBetweenBuilds();
  let offset = 0;
  const files: RestoredFile[] = index.files.map(({ file: name, fingerprint, bytes }) => {
    const start = offset;
    offset += bytes;
    return { file: name, fingerprint, read: () => file.read(start, start + bytes) };
  });
  const previews: [string, number][] = [];
  try {
    for (const bytes of index.previews) {
      const block = jsonOf(file.read(offset, (offset += bytes)));
      if (!isPreviewBlock(block)) return keptBetweenBuilds();
      block[0].forEach((key, i) => previews.push([key, block[1][i]!]));
    }
  } catch {
    return keptBetweenBuilds(); // damaged, or changed since it was opened
  }
  return { checkedFiles: CheckedFiles.restore(index.context, files), previewSizes: PreviewSizes.restore(previews) };
}

/** The results the last build into `outDir` kept of `files` (as CheckedFiles.stored made them), by file; those it kept. */
export async function keptResults(outDir: string, files: ReadonlySet<string>): Promise<Map<string, { fingerprint: string; bytes: Uint8Array }>> {
  const results = new Map<string, { fingerprint: string; bytes: Uint8Array }>();
  const file = await openKeptFile(outDir);
  const index = file && indexOf(file);
  if (!file || !index) return results;
  let offset = 0;
  try {
    for (const { file: name, fingerprint, bytes } of index.files) {
      if (files.has(name)) results.set(name, { fingerprint, bytes: file.read(offset, offset + bytes) });
      offset += bytes;
    }
  } catch {
    return new Map(); // changed since it was opened
  }
  return results;
}

/**
 * What a build is keeping beside its output folder for the next: the checked files' results are
 * written as soon as validate has made them, while the build holds less than once it has planned
 * and written (figures: bench/README.md, 'Memory at a million files'); the preview sizes and the
 * index once the output is written.
 */
export interface Keeping {
  /** Adds the preview sizes, as the build's plan left them, and the index; puts the file in place of the last one. */
  finish(): Promise<void>;
  /** Removes what was written, unless finished: a build that fails leaves the last file as it was. */
  close(): Promise<void>;
}

/** Starts keeping `kept` beside `outDir`, its checked files' results first; nothing when no file was checked. */
export async function startKeeping(outDir: string, { checkedFiles, previewSizes }: KeptBetweenBuilds): Promise<Keeping | undefined> {
  const context = checkedFiles.storedContext;
  if (context === undefined) return undefined;
  const index: Index = { format: FORMAT, generator: generatorFingerprint(), context, files: [], previews: [] };
  const writer = await startKeptFile(outDir);
  await writer.append(
    (function* () {
      for (const { file, fingerprint, result } of checkedFiles.stored()) {
        index.files.push({ file, fingerprint, bytes: Buffer.byteLength(result) });
        yield result;
      }
    })(),
  );
  function* previewParts(): Generator<string | Uint8Array> {
    let block: [string[], number[]] = [[], []];
    const previewBlock = () => {
      const text = JSON.stringify(block);
      index.previews.push(Buffer.byteLength(text));
      block = [[], []];
      return text;
    };
    for (const [key, size] of previewSizes.entries()) {
      block[0].push(key);
      block[1].push(size);
      if (block[0].length === PREVIEW_BLOCK) yield previewBlock();
    }
    if (block[0].length > 0) yield previewBlock();
    const head = JSON.stringify(index);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(Buffer.byteLength(head));
    yield head;
    yield length;
  }
  return {
    async finish() {
      await writer.append(previewParts());
      await writer.commit();
    },
    close: () => writer.discard(),
  };
}

/** The index at the end of `file`, when it is one this code wrote and its results are all there before it. */
function indexOf(file: KeptFile): Index | undefined {
  try {
    const length = Buffer.from(file.read(file.size - 4, file.size)).readUInt32BE(0);
    const start = file.size - 4 - length;
    const index = jsonOf(file.read(start, file.size - 4));
    if (!isIndex(index) || index.generator !== generatorFingerprint()) return undefined;
    const parts = [...index.files.map((entry) => entry.bytes), ...index.previews];
    return parts.reduce((sum, bytes) => sum + bytes, 0) === start ? index : undefined;
  } catch {
    return undefined; // cut short, or not this layout
  }
}

/** Checked by hand: the index of a large catalog has thousands of entries. */
function isIndex(index: unknown): index is Index {
  const string = (value: unknown) => typeof value === 'string';
  const [files, previews] = [fieldOf(index, 'files'), fieldOf(index, 'previews')];
  return (
    fieldOf(index, 'format') === FORMAT &&
    string(fieldOf(index, 'generator')) &&
    string(fieldOf(index, 'context')) &&
    Array.isArray(files) &&
    files.every((f: unknown) => string(fieldOf(f, 'file')) && string(fieldOf(f, 'fingerprint')) && isCount(fieldOf(f, 'bytes'))) &&
    Array.isArray(previews) &&
    previews.every(isCount)
  );
}

function isPreviewBlock(block: unknown): block is [string[], number[]] {
  if (!Array.isArray(block) || block.length !== 2) return false;
  const [keys, sizes]: unknown[] = block;
  return (
    Array.isArray(keys) &&
    Array.isArray(sizes) &&
    keys.length === sizes.length &&
    keys.every((key) => typeof key === 'string') &&
    sizes.every(isCount)
  );
}
