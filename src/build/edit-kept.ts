// What a whole build keeps for the CLI's edits after it (build/edit.ts), and each edit for the
// next, as the record of edits beside the output folder holds it (write/edit-journal.ts).
import type { EditIndex } from '../plan/index.js';
import type { ContentStamps } from '../load/index.js';
import type { UnsafeNames } from '../hosts/index.js';
import { fieldOf, isCount, isListOf, isString, isStringPair } from '../shared/fields.js';
import { isRecord, type BuildRecord } from './last-build.js';

/** What a whole build keeps for the CLI's edits after it, and each edit for the next. */
export interface EditKept {
  index: EditIndex;
  /** The other inputs' hash (settingsHash) this content was built with. */
  settings: string;
  /** What items were checked against (CheckedFiles.storedContext): another addon.yaml with the same is a release. */
  checkContext: string;
  /** Each content file, in load's order: its path in the content folder, its stamp ('' when not settled), text fingerprint and bytes. */
  files: [relative: string, stamp: string, fingerprint: string, bytes: number][];
  /** The bytes of the texts the output is built from (Content.textBytes). */
  textBytes: number;
  /** The record of the output as it now is (last-build.ts). */
  record: BuildRecord;
  /** The output's paths GitHub Pages needs the Actions workflow for, which its line of the host report notes. */
  unsafeNames: UnsafeNames;
  /** The output's folders, stamped after the last edit wrote; none: the state file's stamps hold. */
  folders?: [dir: string, stamp: string][];
  /** What the files edited since the whole build became, with their text's fingerprint, as CheckedFiles.stored makes it; the kept file has the others. */
  results: (readonly [file: string, fingerprint: string, bytes: Uint8Array])[];
}

/** The bytes of a content file new since the last build or edit, which `files` had no entry for. */
export const NEW_FILE = -2;

/**
 * The content files as `stamps` lists them now, each with what `files` kept of it (one new: no
 * stamp, no fingerprint, NEW_FILE bytes), and those `files` kept that are gone; undefined when the
 * files both have come in another order.
 */
export function filesSince(files: EditKept['files'], stamps: ContentStamps): { files: EditKept['files']; gone: EditKept['files'] } | undefined {
  const now = new Set(stamps.map(([relative]) => relative));
  const before = new Map(files.map((entry) => [entry[0], entry]));
  const since = stamps.map(([relative]): EditKept['files'][number] => before.get(relative) ?? [relative, '', '', NEW_FILE]);
  const kept = files.filter(([relative]) => now.has(relative));
  const still = since.filter((entry) => entry[3] !== NEW_FILE);
  if (still.some(([relative], i) => kept[i]![0] !== relative)) return undefined;
  return { files: since, gone: files.filter(([relative]) => !now.has(relative)) };
}

/**
 * EditKept as the record of edits holds it: the index's columns of strings as one JSON text,
 * read back in one parse (an array of 51,000 strings each took v8's deserializer 10 to 20 ms), and
 * only by an edit that needs them (withIndex): a rebuild that finds nothing edited writes them back as read.
 */
export type StoredKept = Omit<EditKept, 'index'> & { index: Omit<EditIndex, StringColumn> & { columns: string } };
type StringColumn = 'ids' | 'names' | 'released' | 'releaseInfo' | 'titleIds' | 'titleTypes';

/** EditKept as the record of edits holds it. */
export function stored(kept: EditKept | StoredKept): StoredKept {
  if ('columns' in kept.index) return { ...kept, index: kept.index };
  const { ids, names, released, releaseInfo, titleIds, titleTypes, ...index } = kept.index;
  return { ...kept, index: { ...index, columns: JSON.stringify([ids, names, released, releaseInfo, titleIds, titleTypes]) } };
}

/** What a whole build or edit kept for the next edit, read back: its outline checked, as the kept file's (kept-store.ts). */
export function keptOf(value: unknown): StoredKept | undefined {
  return isStoredKept(value) ? value : undefined;
}

/** What `value` (keptOf's) kept, with the index's columns of strings read and checked; undefined when they are not as `stored` wrote them. */
export function withIndex(value: StoredKept): EditKept | undefined {
  let columns: unknown;
  try {
    columns = JSON.parse(value.index.columns);
  } catch {
    return undefined;
  }
  const optional = (list: unknown): list is (string | null)[] => isListOf(list, (entry): entry is string | null => entry === null || isString(entry));
  if (!Array.isArray(columns) || columns.length !== 6) return undefined;
  const [ids, names, released, releaseInfo, titleIds, titleTypes]: unknown[] = columns;
  const strings = (list: unknown): list is string[] => isListOf(list, isString);
  if (!strings(ids) || !strings(names) || !optional(released) || !optional(releaseInfo) || !strings(titleIds) || !strings(titleTypes))
    return undefined;
  if (names.length !== ids.length || released.length !== ids.length || releaseInfo.length !== ids.length) return undefined;
  if (titleTypes.length !== titleIds.length) return undefined;
  const { columns: _columns, ...index } = value.index;
  const absent = (list: (string | null)[]) => list.map((entry) => entry ?? undefined);
  return { ...value, index: { ...index, ids, names, released: absent(released), releaseInfo: absent(releaseInfo), titleIds, titleTypes } };
}

function isStoredKept(value: unknown): value is StoredKept {
  const [index, files, record, results, folders, names] = ['index', 'files', 'record', 'results', 'folders', 'unsafeNames'].map((name) =>
    fieldOf(value, name),
  );
  const examples = fieldOf(names, 'examples');
  const isFile = (entry: unknown) =>
    Array.isArray(entry) &&
    entry.length === 4 &&
    typeof entry[0] === 'string' &&
    typeof entry[1] === 'string' &&
    typeof entry[2] === 'string' &&
    typeof entry[3] === 'number';
  const isResult = (entry: unknown) =>
    Array.isArray(entry) && entry.length === 3 && typeof entry[0] === 'string' && typeof entry[1] === 'string' && entry[2] instanceof Uint8Array;
  const isList = (list: unknown) => isCount(fieldOf(list, 'catalog')) && fieldOf(list, 'members') instanceof Int32Array;
  const lists = fieldOf(index, 'lists');
  const offerings = fieldOf(index, 'offerings');
  const isRange = (range: unknown) =>
    typeof fieldOf(range, 'file') === 'string' && isCount(fieldOf(range, 'first')) && isCount(fieldOf(range, 'count'));
  const [ranges, titleRanges, prefixes] = ['files', 'titleFiles', 'describedPrefixes'].map((name) => fieldOf(index, name));
  return (
    typeof fieldOf(index, 'columns') === 'string' &&
    Array.isArray(ranges) &&
    ranges.every(isRange) &&
    Array.isArray(titleRanges) &&
    titleRanges.every(isRange) &&
    isListOf(prefixes, isString) &&
    offerings instanceof Map &&
    [...offerings].every(([key, count]) => typeof key === 'string' && isCount(count)) &&
    Array.isArray(fieldOf(index, 'catalogs')) &&
    Array.isArray(lists) &&
    lists.every(isList) &&
    typeof fieldOf(value, 'settings') === 'string' &&
    typeof fieldOf(value, 'checkContext') === 'string' &&
    isCount(fieldOf(value, 'textBytes')) &&
    isCount(fieldOf(names, 'count')) &&
    isListOf(examples, isString) &&
    Array.isArray(files) &&
    files.every(isFile) &&
    isRecord(record) &&
    Array.isArray(results) &&
    results.every(isResult) &&
    (folders === undefined || isListOf(folders, isStringPair))
  );
}
