// What checking each item file found, kept between builds: a file whose text is as it was,
// checked against the same settings, is neither parsed nor checked again. Kept in memory by a
// long-lived process (serve --watch), and on disk beside the output folder by the CLI's builds
// (stored, restore). Kept only for files that gave no problem and depend on nothing but their
// text and the settings: no `${NAME}` or guarded value, no local file (which may have gone since).
import { sha1, textFingerprint } from '../shared/fingerprint.js';
import { fieldOf, isCount, jsonOf } from '../shared/fields.js';
import type { SourceFile } from '../load/index.js';
import type { DocumentSpan } from '../load/parse-threads.js';
import type { TableLayout } from '../load/csv.js';
import type { ExternalTitle, Item } from '../shared/content.js';
import type { Locator } from './issues.js';

/**
 * Values of one kind from a file, in order, and where each was (its document, its path there), to
 * point a kept value's locator at the file read this time. Column by column: an object for each
 * value, kept to the end of a build, weighed on its peak memory (figures: bench/README.md,
 * 'One-item edits from the CLI').
 */
export interface Placed<T> {
  values: T[];
  documents: number[];
  paths: (string | number)[][];
}

export function placed<T>(): Placed<T> {
  return { values: [], documents: [], paths: [] };
}

/** What one file's values became: its items and titles described elsewhere, in order, and the config keys their `when`s name. */
export interface FileResult {
  items: Placed<Item>;
  externalTitles: Placed<ExternalTitle>;
  usedKeys: string[];
}

/** An item or title as stored: without what points at the file read (set again when taken). */
type Detached<T> = Omit<T, 'source' | 'where'>;
export type StoredItem = Detached<Item>;
export type StoredTitle = Detached<ExternalTitle>;

/** A file's items and titles described elsewhere, as stored. */
export interface StoredValues {
  items: StoredItem[];
  externalTitles: StoredTitle[];
}

/** The items and titles of a file's result as `stored()` made it; undefined when the bytes are not one. */
export function storedValues(bytes: Uint8Array): StoredValues | undefined {
  const value = parsedResult(bytes);
  return value && { items: value.items.values, externalTitles: value.externalTitles.values };
}

/** The bytes of a file's result as `stored()` made it. */
export function storedBytes({ result }: StoredFile): Uint8Array {
  return typeof result === 'string' ? Buffer.from(result) : result;
}

/** A file's result as stored, with what parsing left that locating its items needs. */
interface StoredResult {
  items: Placed<Detached<Item>>;
  externalTitles: Placed<Detached<ExternalTitle>>;
  usedKeys: string[];
  spans?: DocumentSpan[];
  table?: TableLayout;
}

interface Kept {
  fingerprint: string;
  kind: SourceFile['kind'];
  /** What the file became, in memory; absent until a file read from disk is taken. */
  result?: FileResult;
  /** The reading of the file that was parsed: what parsing left on it holds for the same text. */
  source?: SourceFile;
  /** Reads the stored form, for a file read from disk: written back as it is while the file is unchanged. */
  stored?: () => Uint8Array;
  /** The stored form read, once a build asks for it; null when it is not one (then the file is parsed). */
  restored?: StoredResult | null;
}

export class CheckedFiles {
  private context: string | undefined;
  private holds: (file: SourceFile) => boolean = () => true;
  /** By the file's path relative to the content folder (StoredFile.file). */
  private kept = new Map<string, Kept>();
  private next = new Map<string, Kept>();

  /**
   * Starts a build checked against `context`, everything but a file's own text that what it
   * becomes depends on (addon.yaml, the options): what was kept under another is dropped.
   * `holds` says whether a file's text still needs nothing but itself (a guarded value the
   * environment now has would make it depend on the variables).
   */
  begin(context: string, holds: (file: SourceFile) => boolean = () => true): void {
    const hash = sha1(context);
    if (hash !== this.context) this.kept.clear();
    this.context = hash;
    this.holds = holds;
    this.next = new Map();
  }

  /** Whether what `file` became is kept: load then does not parse it, and validate takes it. */
  has(file: SourceFile): boolean {
    const kept = this.kept.get(file.relative);
    if (kept === undefined || kept.kind !== file.kind || kept.fingerprint !== textFingerprint(file) || !this.holds(file)) return false;
    return kept.result !== undefined || restoredResult(kept) !== null;
  }

  /** The files kept that are not among `files` (relative to the content folder): deleted or renamed since. */
  goneFrom(files: readonly SourceFile[]): string[] {
    const read = new Set(files.map((file) => file.relative));
    return [...this.kept.keys()].filter((file) => !read.has(file));
  }

  /** What `file` became, its items and titles pointing at `file` (this build's reading of it). */
  take(file: SourceFile, locatorOf: (file: SourceFile, document: number, at: (string | number)[]) => Locator): FileResult {
    const kept = this.kept.get(file.relative);
    if (!kept || !this.has(file)) throw new Error(`${file.relative} was not kept`);
    this.next.set(file.relative, kept);
    // Each value pointed at this build's reading of the file: the kept ones copied, so that they
    // stay as they were; those read back for this build alone, in place. Object.assign, not a
    // spread (see items.ts, normalizeItem).
    const pointed = <T extends Item | ExternalTitle>({ values, documents, paths }: Placed<Detached<T>>, copy: boolean) => ({
      values: values.map((value, i) => {
        const place = { source: file, where: locatorOf(file, documents[i]!, paths[i]!) };
        return copy ? Object.assign({}, value, place) : Object.assign(value, place);
      }),
      documents,
      paths,
    });
    // What parsing the same text left, which a file that is not parsed again lacks: a playlist's
    // channels (validate/channels.ts merges those of several playlists), and the positions and
    // table layout that locate its problems.
    if (kept.result) {
      const parsed = kept.source;
      file.spans ??= parsed?.spans;
      file.parsed ??= parsed?.parsed;
      file.lines ??= parsed?.lines;
      file.table ??= parsed?.table;
      file.playlist ??= parsed?.playlist;
      const { items, externalTitles, usedKeys } = kept.result;
      return { items: pointed<Item>(items, true), externalTitles: pointed<ExternalTitle>(externalTitles, true), usedKeys };
    }
    const stored = restoredResult(kept);
    if (!stored) throw new Error(`${file.relative} was not kept`);
    // Read for this build alone, and read again should another build ask.
    kept.restored = undefined;
    file.spans ??= stored.spans;
    file.table ??= stored.table;
    return {
      items: pointed<Item>(stored.items, false),
      externalTitles: pointed<ExternalTitle>(stored.externalTitles, false),
      usedKeys: stored.usedKeys,
    };
  }

  /** Keeps what `file` became for the next build. */
  keep(file: SourceFile, result: FileResult): void {
    this.next.set(file.relative, { result, fingerprint: textFingerprint(file), kind: file.kind, source: file });
  }

  /** Ends the build: what the next one can take is what this one kept or took. */
  end(): void {
    this.kept = this.next;
    this.next = new Map();
  }

  /**
   * What is kept, each file's result as bytes that `restore` takes back, with the spans or table
   * layout that locate its items: only files read from the content folder, and no playlist, whose
   * channels validate/channels.ts merges by their playlists. A file read back and taken is as it was read.
   */
  *stored(): Generator<StoredFile> {
    for (const [file, kept] of this.kept) {
      if (kept.kind !== undefined || kept.source?.playlist !== undefined) continue;
      let result: StoredFile['result'];
      try {
        result = kept.stored ? kept.stored() : JSON.stringify(storedResult(kept));
      } catch {
        continue; // the file read from changed since: the next build parses this one
      }
      yield { file, fingerprint: kept.fingerprint, result };
    }
  }

  /** The context of the last build (a hash), under which `stored()` was kept. */
  get storedContext(): string | undefined {
    return this.context;
  }

  /**
   * What `stored()` gave, kept under `context`. Its bytes are deserialized only as a file is
   * taken: they must be bytes `stored()` made with this very code.
   */
  static restore(context: string, files: Iterable<RestoredFile>): CheckedFiles {
    const checked = new CheckedFiles();
    checked.context = context;
    for (const { file, fingerprint, read } of files) checked.kept.set(file, { fingerprint, kind: undefined, stored: read });
    return checked;
  }
}

/** A kept file's result, as `restore` takes it: its bytes read when asked for. */
export interface RestoredFile {
  /** As StoredFile.file. */
  file: string;
  fingerprint: string;
  read: () => Uint8Array;
}

/** A kept file's result, stored (see CheckedFiles.stored). */
export interface StoredFile {
  /**
   * The file's path relative to the content folder: the same however the folder is named (a
   * relative or an absolute path), as in the record of the last build.
   */
  file: string;
  fingerprint: string;
  /**
   * Its result as JSON text, or that text's bytes as the file kept by the last build holds them.
   * JSON, not v8.serialize: the serializer's buffers lie outside the heap until a collection
   * frees them, and the C library kept the memory they had taken to the end of the build
   * (figures: bench/README.md, 'Memory at a million files').
   */
  result: string | Uint8Array;
}

/**
 * What a file read from disk was stored as, read once; null when it cannot be read as one (then
 * the file is parsed again). Made by stored() of this very code (see restore), so its values are
 * what validate made: their outline is checked, so that a damaged file cannot stop a build.
 */
function restoredResult(kept: Kept): StoredResult | null {
  if (kept.restored !== undefined) return kept.restored;
  try {
    kept.restored = (kept.stored && parsedResult(kept.stored())) ?? null;
  } catch {
    kept.restored = null; // the file read from changed since
  }
  return kept.restored;
}

/**
 * A result's bytes, as `stored()` made them, read back; undefined when they are not one. JSON has
 * no `undefined`: a key that held it is left out, as optional, and a table's unknown column
 * (TableLayout.columns) comes back null.
 */
function parsedResult(bytes: Uint8Array): StoredResult | undefined {
  let value: unknown;
  try {
    value = jsonOf(bytes);
  } catch {
    return undefined;
  }
  if (!isStoredResult(value)) return undefined;
  if (value.table) value.table.columns = value.table.columns.map((column) => column ?? undefined);
  return value;
}

function isStoredResult(value: unknown): value is StoredResult {
  const isPath = (at: unknown) => Array.isArray(at) && at.every((part) => typeof part === 'string' || isCount(part));
  const isPlaced = (placed: unknown) => {
    const [values, documents, paths] = ['values', 'documents', 'paths'].map((name) => fieldOf(placed, name));
    return (
      Array.isArray(values) &&
      values.every((value) => typeof fieldOf(value, 'id') === 'string' && typeof fieldOf(value, 'type') === 'string') &&
      Array.isArray(documents) &&
      documents.length === values.length &&
      documents.every(isCount) &&
      Array.isArray(paths) &&
      paths.length === values.length &&
      paths.every(isPath)
    );
  };
  const [items, titles, keys, spans, table] = ['items', 'externalTitles', 'usedKeys', 'spans', 'table'].map((name) => fieldOf(value, name));
  return (
    isPlaced(items) &&
    isPlaced(titles) &&
    Array.isArray(keys) &&
    keys.every((key) => typeof key === 'string') &&
    (spans === undefined || (Array.isArray(spans) && spans.every((span) => isCount(fieldOf(span, 'start')) && isCount(fieldOf(span, 'end'))))) &&
    (table === undefined || (Array.isArray(fieldOf(table, 'columns')) && Array.isArray(fieldOf(table, 'items'))))
  );
}

/** A kept file's result as stored: the values without their file, which take() sets again. */
function storedResult(kept: Kept): StoredResult {
  const { items, externalTitles, usedKeys } = kept.result!;
  const { spans, table } = kept.source ?? {};
  return { items: detached(items), externalTitles: detached(externalTitles), usedKeys, spans, table };
}

function detached<T extends Item | ExternalTitle>({ values, documents, paths }: Placed<T>): Placed<Detached<T>> {
  const detach = (value: T): Detached<T> => {
    const { source: _source, where: _where, ...rest } = value;
    // Only a playlist's channels have other playlists (validate/channels.ts), and playlists are not stored.
    if ('alsoFrom' in rest) delete rest.alsoFrom;
    return rest;
  };
  return { values: values.map(detach), documents, paths };
}
