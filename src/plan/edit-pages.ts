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
  // Only items of the edited files are fresh.
  members.forEach((i, at) => inEdited[i] === 1 && fresh.has(i) && candidates.add(Math.floor(at / PAGE_SIZE)));
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
  // Each page as written, read once: its previews and its bytes (both orders of its extras hold the same).
  const read = new Map<number, { previews: Buffer[]; bytes: number } | undefined>();
  const written = (page: number) => {
    if (!read.has(page)) {
      const { skip } = oldLayout[page]!;
      const ids: string[] = [];
      for (let at = skip; at < Math.min(skip + PAGE_SIZE, old.length); at++) ids.push(pages.ids[old[at]!]!);
      const bytes = pages.written(firstPath(oldLayout[page]!));
      const previews = bytes && pageElements(bytes, pages, ids);
      read.set(page, previews && { previews, bytes: bytes!.length });
    }
    return read.get(page);
  };
  const previewAt = (position: number) => (position < 0 ? undefined : written(Math.floor(position / PAGE_SIZE))?.previews[position % PAGE_SIZE]);
  for (const page of [...candidates].sort((a, b) => a - b)) {
    const { skip, extras } = layout[page]!;
    const listed: Buffer[] = [];
    for (let at = skip; at < Math.min(skip + PAGE_SIZE, members.length); at++) {
      const i = members[at]!;
      const preview = fresh.has(i) ? previewOf(i) : previewAt(positionOf(i));
      if (preview === undefined) return false;
      listed.push(preview);
    }
    const was = oldPageAt.get(page === 0 ? -1 : skip);
    const before = was === undefined ? undefined : written(was);
    if (was !== undefined && !before) return false;
    const same = (preview: Buffer, k: number) => preview === listed[k] || preview.equals(listed[k]!);
    if (before && before.previews.length === listed.length && before.previews.every(same)) continue;
    if (++pages.count > EDIT_PAGES_LIMIT) return false;
    // Another item at a place, or another preview: other bytes.
    const body = pageBytes(pages, listed);
    for (const order of extras) {
      const path = pagePath(catalog, order);
      bodies.set(path, body);
      if (before) pages.before.set(path, before.bytes);
      else pages.created.add(path);
    }
  }
  return true;
}

/**
 * The previews a catalog page lists, as they are written in its `bytes` (pageBody joins them with
 * `,`); undefined unless it is a page of metas (`head`, `tail`) that lists the items `ids`, in that
 * order. Cut where `},{"id":` is: between two previews it always is (each starts with its id,
 * metaPreview's first field), and a cut anywhere else makes one preview more than the page lists.
 * Views of the bytes read, neither decoded nor copied: a splice reads hundreds of pages.
 */
export function pageElements(bytes: Buffer, { head, tail }: Pick<PageSplice, 'head' | 'tail'>, ids: readonly string[]): Buffer[] | undefined {
  const end = bytes.length - tail.length;
  if (end < head.length || head.compare(bytes, 0, head.length) !== 0 || tail.compare(bytes, end) !== 0) return undefined;
  const elements: Buffer[] = [];
  for (let start = head.length; start < end;) {
    const cut = bytes.indexOf(BETWEEN, start);
    const last = cut < 0 || cut + BETWEEN.length > end;
    const id = ids[elements.length];
    // Found where it starts, or not at all (searched past it only when the page is not as the index says).
    if (id === undefined || bytes.indexOf(`{"id":${JSON.stringify(id)},`, start) !== start) return undefined;
    elements.push(bytes.subarray(start, last ? end : cut + 1));
    start = last ? end : cut + 2;
  }
  return elements.length === ids.length ? elements : undefined;
}

/** A page's bytes: its previews joined with `,` between `head` and `tail`, as pageBody joins them. */
function pageBytes({ head, tail }: Pick<PageSplice, 'head' | 'tail'>, previews: readonly Buffer[]): Buffer {
  let length = head.length + Math.max(previews.length - 1, 0) + tail.length;
  for (const preview of previews) length += preview.length;
  const body = Buffer.allocUnsafe(length);
  body.set(head);
  let at = head.length;
  for (let k = 0; k < previews.length;) {
    // Previews that follow one another on the page read are copied at once, with the comma between.
    const first = previews[k]!;
    const source = new Uint8Array(first.buffer);
    let next = k + 1;
    let end = first.byteOffset + first.length;
    while (next < previews.length && previews[next]!.buffer === first.buffer && previews[next]!.byteOffset === end + 1 && source[end] === COMMA) {
      end += 1 + previews[next]!.length;
      next++;
    }
    if (k > 0) body[at++] = COMMA;
    body.set(new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset), at);
    at += end - first.byteOffset;
    k = next;
  }
  body.set(tail, at);
  return body;
}

const COMMA = 0x2c;

/** What is between two previews on a page. */
const BETWEEN = Buffer.from('},{"id":');
