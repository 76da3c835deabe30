// The catalog pages an edit writes (edit-index.ts, editedFiles), spliced from the pages written:
// each page read is cut into its previews, and a page whose previews change is joined again from
// them and the edited items' new ones, as bytes, without the other items.
import type { Extra } from '../shared/paths.js';
import { catalogPages, pagePath, PAGE_SIZE } from './catalog-pages.js';
import type { CatalogFrame, EditIndex } from './edit-index.js';
import type { Reindexed } from './edit-members.js';

/** More catalog pages than this to splice, and the whole build is not much further off. */
export const EDIT_PAGES_LIMIT = 5_000;

/** What splicing pages needs beside one list, and what it finds: the pages written before and made or removed. */
export interface PageSplice {
  ids: readonly string[];
  /** What a page of metas holds before its first preview and after its last (its Envelope), as bytes. */
  head: Buffer;
  tail: Buffer;
  written: (path: string) => Buffer | undefined;
  count: number;
  before: Map<string, number>;
  created: Set<string>;
  removed: Set<string>;
}

/**
 * Adds to `bodies` the pages of a list whose bytes change (`members` after the edit): a page that
 * lists other items than it did, or an edited item whose preview changed (`fresh`), or one past
 * the last there was (`created`); and to `removed` those past the last there is. The other
 * previews are taken from the pages as written. False when a page read is not as the index says,
 * or pages are too many.
 */
export function splicePages(
  bodies: Map<string, string | Buffer>,
  catalog: CatalogFrame,
  list: EditIndex['lists'][number],
  members: Int32Array,
  { toOld, inEdited }: Reindexed,
  fresh: ReadonlySet<number>,
  previewOf: (i: number) => Buffer,
  pages: PageSplice,
): boolean {
  const old = list.members;
  const layout = catalogPages(members.length, list.extra);
  // The pages that may change: those of edited members, and those from the first member that
  // moved to the last (to the end, when the list is longer or shorter).
  const candidates = new Set<number>();
  // Only items of the edited files are fresh: their byte is looked at before the set.
  const isFresh = (i: number) => inEdited[i] === 1 && fresh.has(i);
  members.forEach((i, at) => isFresh(i) && candidates.add(Math.floor(at / PAGE_SIZE)));
  if (members !== old) {
    let low = 0;
    while (low < members.length && low < old.length && toOld[members[low]!] === old[low]) low++;
    let high = members.length - 1;
    if (members.length === old.length) while (high >= low && toOld[members[high]!] === old[high]) high--;
    const last = members.length === old.length ? Math.floor(high / PAGE_SIZE) : layout.length - 1;
    if (low <= high || members.length !== old.length) for (let page = Math.floor(low / PAGE_SIZE); page <= last; page++) candidates.add(page);
  }
  if (candidates.size === 0) return true;
  // The pages after the first by their `skip`, as written and now: those no longer there go.
  const oldLayout = catalogPages(old.length, list.extra);
  const oldPageAt = new Map(oldLayout.map((page, k) => [k === 0 ? -1 : page.skip, k]));
  const skips = new Set(layout.map((page, k) => (k === 0 ? -1 : page.skip)));
  oldLayout.forEach((page, k) => {
    if (k > 0 && !skips.has(page.skip)) for (const order of page.extras) pages.removed.add(pagePath(catalog, order));
  });
  const firstPath = (page: { extras: Extra[][] }) => pagePath(catalog, page.extras[0]!);
  // Where each member was, by its index before: an array of the index's length, not a map of every member.
  let oldAt: Int32Array | undefined;
  const positionOf = (i: number) => {
    if (!oldAt) {
      oldAt = new Int32Array(pages.ids.length).fill(-1);
      for (let p = 0; p < old.length; p++) oldAt[old[p]!] = p;
    }
    return toOld[i]! < 0 ? -1 : oldAt[toOld[i]!]!;
  };
  // Each page as written, read once: where its previews are, and its bytes (both orders of its extras hold the same).
  const read = new Map<number, PageRead | undefined>();
  const written = (page: number) => {
    if (!read.has(page)) {
      const { skip } = oldLayout[page]!;
      const ids: string[] = [];
      for (let at = skip; at < Math.min(skip + PAGE_SIZE, old.length); at++) ids.push(pages.ids[old[at]!]!);
      const bytes = pages.written(firstPath(oldLayout[page]!));
      read.set(page, bytes && pageElements(bytes, pages, ids));
    }
    return read.get(page);
  };
  for (const page of [...candidates].sort((a, b) => a - b)) {
    const { skip, extras } = layout[page]!;
    // The previews this page lists: each on a page read (its place there), or fresh (-1).
    const sources: (PageRead | Buffer)[] = [];
    const places: number[] = [];
    for (let at = skip; at < Math.min(skip + PAGE_SIZE, members.length); at++) {
      const i = members[at]!;
      if (isFresh(i)) {
        sources.push(previewOf(i));
        places.push(-1);
        continue;
      }
      const position = positionOf(i);
      const from = position < 0 ? undefined : written(Math.floor(position / PAGE_SIZE));
      if (from === undefined) return false;
      sources.push(from);
      places.push(position % PAGE_SIZE);
    }
    const was = oldPageAt.get(page === 0 ? -1 : skip);
    const before = was === undefined ? undefined : written(was);
    if (was !== undefined && !before) return false;
    if (before && sameListing(before, sources, places)) continue;
    if (++pages.count > EDIT_PAGES_LIMIT) return false;
    // Another item at a place, or another preview: other bytes.
    const body = pageBytes(pages, sources, places);
    for (const order of extras) {
      const path = pagePath(catalog, order);
      bodies.set(path, body);
      if (before) pages.before.set(path, before.bytes.length);
      else pages.created.add(path);
    }
  }
  return true;
}

/**
 * A catalog page as written: its bytes, and where each of its previews starts. Preview `k` is
 * `bytes[starts[k], starts[k + 1] - 1)`: the last entry is one past the end of the last preview,
 * as if a comma followed it. Offsets, not a view of each preview: a splice may read every page
 * of a list (bench/README.md, 'Previews as places on the pages read').
 */
export interface PageRead {
  bytes: Buffer;
  starts: Int32Array;
}

/**
 * Where the previews a catalog page lists are in its `bytes` (pageBody joins them with `,`);
 * undefined unless it is a page of metas (`head`, `tail`) that lists the items `ids`, in that
 * order. Cut where `},{"id":` is: between two previews it always is (each starts with its id,
 * metaPreview's first field), and a cut anywhere else makes one preview more than the page lists.
 */
export function pageElements(bytes: Buffer, { head, tail }: Pick<PageSplice, 'head' | 'tail'>, ids: readonly string[]): PageRead | undefined {
  const end = bytes.length - tail.length;
  if (end < head.length || head.compare(bytes, 0, head.length) !== 0 || tail.compare(bytes, end) !== 0) return undefined;
  const starts = new Int32Array(ids.length + 1);
  let count = 0;
  for (let start = head.length; start < end; count++) {
    const id = ids[count];
    if (id === undefined || !startsWithId(bytes, start, id)) return undefined;
    starts[count] = start;
    const cut = bytes.indexOf(BETWEEN, start);
    start = cut < 0 || cut + BETWEEN.length > end ? end : cut + 2;
  }
  if (count !== ids.length) return undefined;
  starts[count] = end + 1;
  return { bytes, starts };
}

/** Whether the preview at `start` of `bytes` begins `{"id":<id as JSON>,`. */
function startsWithId(bytes: Buffer, start: number, id: string): boolean {
  const at = start + ID_OPEN.length;
  // The id's JSON takes at least a byte per UTF-16 unit, then its closing quote and a comma.
  if (bytes.length < at + id.length + 2) return false;
  // Byte by byte: Buffer's compare is a call into C++, and this runs for every preview read.
  for (let k = 0; k < ID_OPEN.length; k++) if (bytes[start + k] !== ID_OPEN[k]) return false;
  for (let k = 0; k < id.length; k++) {
    const code = id.charCodeAt(k);
    // JSON.stringify writes these otherwise than as their one byte: compare its text.
    if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
      const expected = Buffer.from(`${JSON.stringify(id)},`);
      return bytes.length >= at - 1 + expected.length && expected.compare(bytes, at - 1, at - 1 + expected.length) === 0;
    }
    if (bytes[at + k] !== code) return false;
  }
  return bytes[at + id.length] === QUOTE && bytes[at + id.length + 1] === COMMA;
}

/** Whether `page` lists the previews `sources` and `places` name (splicePages), the same bytes in the same order. */
function sameListing(page: PageRead, sources: readonly (PageRead | Buffer)[], places: readonly number[]): boolean {
  const { bytes, starts } = page;
  if (starts.length - 1 !== sources.length) return false;
  return sources.every((source, k) => {
    if (source === page && places[k] === k) return true;
    const [from, start, end] = previewRange(source, places[k]!);
    return from.compare(bytes, starts[k]!, starts[k + 1]! - 1, start, end) === 0;
  });
}

/** The bytes a listed preview is in, and where: a fresh preview's own, or its place on a page read. */
function previewRange(source: PageRead | Buffer, place: number): [Buffer, number, number] {
  return Buffer.isBuffer(source) ? [source, 0, source.length] : [source.bytes, source.starts[place]!, source.starts[place + 1]! - 1];
}

/** A page's bytes: its previews joined with `,` between `head` and `tail`, as pageBody joins them. */
function pageBytes({ head, tail }: Pick<PageSplice, 'head' | 'tail'>, sources: readonly (PageRead | Buffer)[], places: readonly number[]): Buffer {
  // Previews that follow one another on a page read are one range, with the comma between.
  const runs: [Buffer, number, number][] = [];
  let length = head.length + tail.length;
  for (let k = 0; k < sources.length;) {
    const source = sources[k]!;
    let next = k + 1;
    while (!Buffer.isBuffer(source) && next < sources.length && sources[next] === source && places[next] === places[next - 1]! + 1) next++;
    const [from, start] = previewRange(source, places[k]!);
    const [, , end] = previewRange(source, places[next - 1]!);
    runs.push([from, start, end]);
    length += end - start + (k > 0 ? 1 : 0);
    k = next;
  }
  const body = Buffer.allocUnsafe(length);
  let at = head.copy(body, 0);
  runs.forEach(([from, start, end], k) => {
    if (k > 0) body[at++] = COMMA;
    at += from.copy(body, at, start, end);
  });
  tail.copy(body, at);
  return body;
}

const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What is between two previews on a page, and what each begins with. */
const BETWEEN = Buffer.from('},{"id":');
const ID_OPEN = Buffer.from('{"id":"');
