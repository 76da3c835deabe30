// The items of an edit's index (plan/edit-index.ts) after it, and each catalog list's members: the
// order read with the edited files' items in place of those they had, items added or removed with
// them, and each list's members placed where validate's stable sort puts them.
import type { ExternalTitle, Item } from '../shared/content.js';
import { ALL_GENRES } from '../shared/genres.js';
import { catalogOrder, type SortFields } from '../validate/catalogs.js';
import type { CatalogFrame, EditIndex, FileRange } from './edit-index.js';

/** The index's items after an edit, by their indexes after it, and where each was before. */
export interface Reindexed {
  /** The index with the items in their order after the edit; its lists are those before. */
  index: EditIndex;
  /** Every item of the edited files, at its index after the edit. */
  now: Map<number, Item>;
  /**
   * 1 at the index after the edit of each item of `now`: a pass over every member of every list
   * (a quarter of a million in the large benchmark) looks there before it looks anything up.
   */
  inEdited: Uint8Array;
  /** The indexes after the edit of the items it added. */
  added: Set<number>;
  /** The indexes before the edit of the items it removed. */
  removed: number[];
  /** Each index before the edit, after it; -1 for an item removed. */
  toNew: Int32Array;
  /** Each index after the edit, before it; -1 for an item added. */
  toOld: Int32Array;
}

/**
 * The index with the items of each edited file (`items`, in their order) in place of those it had;
 * undefined when a file whose items the index has no place for holds some (it held none), when a
 * file holds one id twice, or when items both before and after are in another order (a move,
 * which the whole build takes).
 */
export function reindexed(index: EditIndex, edited: readonly { file: string; items: readonly Item[] }[]): Reindexed | undefined {
  const byFile = new Map(edited.map(({ file, items }) => [file, items]));
  for (const { file, items } of edited) if (items.length > 0 && !index.files.some((range) => range.file === file)) return undefined;
  const after: Pick<EditIndex, 'ids' | 'names' | 'released' | 'releaseInfo' | 'files'> = {
    ids: [],
    names: [],
    released: [],
    releaseInfo: [],
    files: [],
  };
  const now = new Map<number, Item>();
  const added = new Set<number>();
  const removed: number[] = [];
  const toNew = new Int32Array(index.ids.length).fill(-1);
  const toOld: number[] = [];
  const push = (fields: SortFields & { id: string }, was: number) => {
    if (was >= 0) toNew[was] = after.ids.length;
    toOld.push(was);
    after.ids.push(fields.id);
    after.names.push(fields.name);
    after.released.push(fields.released);
    after.releaseInfo.push(fields.releaseInfo);
  };
  for (const range of index.files) {
    const first = after.ids.length;
    const items = byFile.get(range.file);
    if (!items) {
      for (let k = range.first; k < range.first + range.count; k++) push({ id: index.ids[k]!, ...sortFieldsOf(index, k) }, k);
    } else {
      const oldAt = new Map(index.ids.slice(range.first, range.first + range.count).map((id, k) => [id, range.first + k]));
      if (!inOrder([...oldAt.keys()], items)) return undefined;
      const ids = new Set(items.map((item) => item.id));
      for (const [id, at] of oldAt) if (!ids.has(id)) removed.push(at);
      for (const item of items) {
        const was = oldAt.get(item.id) ?? -1;
        if (was < 0) added.add(after.ids.length);
        now.set(after.ids.length, item);
        push(item, was);
      }
    }
    after.files.push({ file: range.file, first, count: after.ids.length - first });
  }
  const inEdited = new Uint8Array(after.ids.length);
  for (const i of now.keys()) inEdited[i] = 1;
  return { index: { ...index, ...after }, now, inEdited, added, removed, toNew, toOld: Int32Array.from(toOld) };
}

/**
 * Whether a file's values, its ids `before` and its values `now`, each hold an id once, and those
 * both hold come in the same order (one moved takes the whole build: the order read breaks ties).
 */
function inOrder(before: readonly string[], now: readonly { id: string }[]): boolean {
  const [had, has] = [new Set(before), new Set(now.map((value) => value.id))];
  if (had.size !== before.length || has.size !== now.length) return false;
  const kept = now.filter((value) => had.has(value.id));
  return before.filter((id) => has.has(id)).every((id, k) => kept[k]!.id === id);
}

/** The titles described elsewhere after an edit: their ids, types and files' ranges, and those it added. */
export interface Retitled extends Pick<EditIndex, 'titleIds' | 'titleTypes' | 'titleFiles'> {
  added: ExternalTitle[];
}

/**
 * The index's titles with those of each edited file (`externalTitles`, in their order) in place of
 * those it had; undefined as reindexed is for items.
 */
export function retitled(index: EditIndex, edited: readonly { file: string; externalTitles: readonly ExternalTitle[] }[]): Retitled | undefined {
  const byFile = new Map(edited.map(({ file, externalTitles }) => [file, externalTitles]));
  for (const { file, externalTitles } of edited) {
    if (externalTitles.length > 0 && !index.titleFiles.some((range) => range.file === file)) return undefined;
  }
  const after: Retitled = { titleIds: [], titleTypes: [], titleFiles: [], added: [] };
  for (const range of index.titleFiles) {
    const first = after.titleIds.length;
    const before = index.titleIds.slice(range.first, range.first + range.count);
    const titles = byFile.get(range.file);
    if (!titles) {
      // One at a time: a spread of a file's 100,000 titles would overflow the stack.
      for (let k = range.first; k < range.first + range.count; k++) {
        after.titleIds.push(index.titleIds[k]!);
        after.titleTypes.push(index.titleTypes[k]!);
      }
    } else {
      if (!inOrder(before, titles)) return undefined;
      const had = new Set(before);
      for (const title of titles) {
        if (!had.has(title.id)) after.added.push(title);
        after.titleIds.push(title.id);
        after.titleTypes.push(title.type);
      }
    }
    after.titleFiles.push({ file: range.file, first, count: after.titleIds.length - first });
  }
  return after;
}

/** The sort fields of the item at `at`, as an index holds them. */
export function sortFieldsOf(index: Pick<EditIndex, 'names' | 'released' | 'releaseInfo'>, at: number): SortFields {
  return { name: index.names[at]!, released: index.released[at], releaseInfo: index.releaseInfo[at] };
}

/** Whether `item` is in the list of `catalog` asked for with `extra` (catalogLists: the catalog, or one genre of it), as validate makes its members. */
export function listsItem(
  catalog: CatalogFrame,
  extra: EditIndex['lists'][number]['extra'],
  item: Pick<Item, 'type' | 'catalogs' | 'genres'>,
): boolean {
  if (item.type !== catalog.type || !(item.catalogs ? item.catalogs.includes(catalog.id) : catalog.listsAll === true)) return false;
  return extra === undefined || extra[1] === ALL_GENRES || (item.genres ?? []).includes(extra[1]);
}

/**
 * A list's members after the edit (`reindexed`), as indexes after it: those before without the
 * items removed, and in a sorted catalog each edited item whose sort key changed taken out and put
 * back where the order puts it now, as is each item added that the list has; ties by the order read
 * (the index), as validate's stable sort leaves them. The list's own members when nothing moved,
 * and no item was added or removed.
 */
export function placedMembers(list: EditIndex['lists'][number], catalog: CatalogFrame, before: EditIndex, edit: Reindexed): Int32Array {
  const { now, inEdited, added, toNew, toOld, index: after } = edit;
  const same = added.size === 0 && edit.removed.length === 0;
  // Plain loops over typed arrays: every member of every list passes here for each edit
  // (bench/README.md, 'Previews as places on the pages read').
  let kept = list.members;
  if (!same) {
    kept = new Int32Array(list.members.length);
    let count = 0;
    for (let k = 0; k < list.members.length; k++) {
      const mapped = toNew[list.members[k]!]!;
      if (mapped >= 0) kept[count++] = mapped;
    }
    kept = kept.slice(0, count);
  }
  // Without a sort, the order read: every key the same.
  const { keyOf, compare } = catalog.sort ? catalogOrder(catalog.sort) : { keyOf: () => 0, compare: () => 0 };
  const moved = (i: number) =>
    catalog.sort !== undefined &&
    inEdited[i] === 1 &&
    !added.has(i) &&
    compare(keyOf(sortFieldsOf(before, toOld[i]!)), keyOf(sortFieldsOf(after, i))) !== 0;
  const placing: number[] = [];
  for (let k = 0; k < kept.length; k++) if (moved(kept[k]!)) placing.push(kept[k]!);
  for (const i of added) if (listsItem(catalog, list.extra, now.get(i)!)) placing.push(i);
  if (placing.length === 0) return kept;
  const key = (i: number) => keyOf(sortFieldsOf(after, i));
  const taken = new Set(placing);
  // Only items of the edited files are placed again.
  const placed = new Int32Array(kept.length + placing.length);
  let count = 0;
  for (let k = 0; k < kept.length; k++) if (inEdited[kept[k]!] !== 1 || !taken.has(kept[k]!)) placed[count++] = kept[k]!;
  for (const item of placing) {
    const itemKey = key(item);
    let [low, high] = [0, count];
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = placed[middle]!;
      if ((compare(key(other), itemKey) || other - item) < 0) low = middle + 1;
      else high = middle;
    }
    placed.copyWithin(low + 1, low, count++);
    placed[low] = item;
  }
  return placed.slice(0, count);
}

/**
 * The index with a range of no items and no titles for each content file `added` since (named as
 * FileRange.file), where `order` (every content file, in load's order) puts it: items an edit finds
 * in it then go there in the order read.
 */
export function withNewFiles(index: EditIndex, order: readonly string[], added: ReadonlySet<string>): EditIndex {
  if (added.size === 0) return index;
  const place = (ranges: readonly FileRange[]) => {
    const byFile = new Map(ranges.map((range) => [range.file, range]));
    const placed: FileRange[] = [];
    let next = 0;
    for (const file of order) {
      const range = byFile.get(file) ?? (added.has(file) ? { file, first: next, count: 0 } : undefined);
      if (!range) continue;
      placed.push(range);
      next = range.first + range.count;
    }
    return placed;
  };
  return { ...index, files: place(index.files), titleFiles: place(index.titleFiles) };
}

/** The members of the catalog at `at`: its first list is all of them (catalogLists). */
export function catalogMembers(index: EditIndex, at: number): Int32Array {
  return index.lists.find((list) => list.catalog === at)?.members ?? new Int32Array();
}
