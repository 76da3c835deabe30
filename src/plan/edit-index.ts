// What a build keeps of its plan for the CLI's next one-item edit (build/edit.ts): the catalog
// lists with what they are sorted by, and the settings item files are rendered with. From it, an
// edit's files are its items' own and the catalog pages that list them, those pages spliced from
// the ones written (their other previews taken as they are there), without the other items.
import { itemSettings, type Catalog, type Content, type ExternalTitle, type Item } from '../shared/content.js';
import { MANIFEST_FILE } from '../shared/paths.js';
import { withReleaseFields } from './manifest.js';
import { renderPages, type PageTemplates } from './page.js';
import type { Extra } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';
import { catalogOrder, type SortFields } from '../validate/catalogs.js';
import { cacheHints } from '../hosts/index.js';
import { catalogPages, pagePath, PAGE_SIZE, type CatalogList } from './catalog-pages.js';
import { addItemFiles, itemRendering, type ItemFile } from './item-files.js';
import { keptPreviews } from './previews.js';
import { envelope, type Envelope } from './wire.js';
import { EARLY_PAGES_LIMIT } from './early-answers.js';

/** A catalog as an edit's pages need it: its members are in the lists. */
export type CatalogFrame = Pick<Catalog, 'id' | 'type' | 'genres' | 'sort'>;

export interface EditIndex {
  /** The settings item files and pages are rendered with, and the manifest, which decides which there are. */
  addon: Content['addon'];
  baseUrl?: string;
  manifest: Manifest;
  catalogs: CatalogFrame[];
  /** Every item in the order read (which breaks ties in a sorted catalog): its id and what catalogs sort by. */
  ids: string[];
  names: string[];
  released: (string | undefined)[];
  releaseInfo: (string | undefined)[];
  /** The items of each item file (as load names it): the first one's index, and how many. */
  files: { file: string; first: number; count: number }[];
  /** Each list a catalog's pages are written for, its members as indexes into `ids` (typed: read back in a copy, not item by item). */
  lists: { catalog: number; extra?: Extra; members: Int32Array }[];
}

/**
 * The index of a plan of `content` with these catalog lists and manifest; undefined for content
 * whose edits take the whole build: a configurable addon (each configuration is a tree), a
 * catalog with search (its queries come from names), local files, playlists (their channels merge
 * across files). Titles described elsewhere need nothing of it: they are in no catalog, and an
 * edit of one keeps its id, type and files (build/edit.ts).
 */
export function editIndexOf(content: Content, manifest: Manifest, lists: ReadonlyMap<Catalog, readonly CatalogList[]>): EditIndex | undefined {
  const { items } = content;
  if (content.config.length > 0 || content.assets.length > 0) return undefined;
  if (content.catalogs.some((catalog) => catalog.search) || items.some((item) => item.source.playlist !== undefined)) return undefined;
  const files: EditIndex['files'] = [];
  for (let at = 0; at < items.length; at++) {
    const { file } = items[at]!.source;
    const last = files.at(-1);
    if (last?.file === file) last.count++;
    else if (files.some((range) => range.file === file)) return undefined;
    else files.push({ file, first: at, count: 1 });
  }
  const indexOf = new Map<Item, number>();
  for (let at = 0; at < items.length; at++) indexOf.set(items[at]!, at);
  const indexed: EditIndex['lists'] = [];
  content.catalogs.forEach((catalog, at) => {
    for (const { extra, members } of lists.get(catalog) ?? []) {
      // A plain loop: Int32Array.from with a function took longer (bench/README.md, "An edit's own way").
      const indexes = new Int32Array(members.length);
      for (let k = 0; k < members.length; k++) indexes[k] = indexOf.get(members[k]!)!;
      indexed.push({ catalog: at, ...(extra && { extra }), members: indexes });
    }
  });
  return {
    addon: content.addon,
    ...(content.baseUrl !== undefined && { baseUrl: content.baseUrl }),
    manifest,
    catalogs: content.catalogs.map(({ id, type, genres, sort }) => ({ id, type, genres, ...(sort && { sort }) })),
    ids: items.map((item) => item.id),
    names: items.map((item) => item.name),
    released: items.map((item) => item.released),
    releaseInfo: items.map((item) => item.releaseInfo),
    files,
    lists: indexed,
  };
}

/** The items and titles described elsewhere that one content file holds, in order. */
export interface FileValues {
  items: readonly Item[];
  externalTitles: readonly ExternalTitle[];
}

/** What an edit writes: its items' files and the catalog pages that changed, by path; and the index after it. */
export interface EditedFiles {
  bodies: Map<string, string>;
  /** The catalog pages among them, each with the bytes it has as written: all other than their new bodies. */
  pagesBefore: Map<string, number>;
  index: EditIndex;
}

/**
 * The files an edit renders: every file of the items and titles described elsewhere of `edited`
 * (each content file's items, in order, with the ids the index has for it), and the catalog pages
 * whose bytes change. `written` gives a file's text as the output holds it: an item's meta, to
 * tell whether its preview and place changed, and the pages, for the previews of the items the
 * edit left, which are not rendered again. Undefined when the index does not hold those files'
 * items, or a page is not as the index says it was written, or more than EARLY_PAGES_LIMIT pages
 * change. The caller checks that each item lists where the index says (sameListings: the same
 * type, genres and catalogs) and has the files it had, and each title too (build/edit.ts,
 * sameOutline).
 */
export function editedFiles(
  index: EditIndex,
  edited: readonly ({ file: string } & FileValues)[],
  written: (path: string) => string | undefined,
): EditedFiles | undefined {
  const now = new Map<number, Item>();
  for (const { file, items } of edited) {
    // A file of titles described elsewhere alone holds no item.
    const range = index.files.find((entry) => entry.file === file) ?? { first: 0, count: 0 };
    if (range.count !== items.length) return undefined;
    for (let k = 0; k < items.length; k++) {
      if (index.ids[range.first + k] !== items[k]!.id) return undefined;
      now.set(range.first + k, items[k]!);
    }
  }
  const items = [...now.values()];
  // The edited members of each catalog, for their genre links.
  const catalogs = index.catalogs.map((catalog, at) => ({
    ...catalog,
    items: Array.from(catalogMembers(index, at))
      .filter((i) => now.has(i))
      .map((i) => now.get(i)!),
  }));
  const externalTitles = edited.flatMap((file) => file.externalTitles);
  const content = { addon: index.addon, baseUrl: index.baseUrl, catalogs, items, externalTitles };
  const rendering = itemRendering(content, items);
  const bodies = new Map<string, string>();
  const files: ItemFile[] = [];
  addItemFiles(files, content, index.manifest, rendering, undefined);
  // An item whose meta is as written lists as it did: its preview is its meta but for the
  // videos and trailers, and what catalogs sort by is in both.
  const metaAsWritten = new Set<Item>();
  for (const file of files) {
    const body = file.body();
    bodies.set(file.path, body);
    if (file.resource === 'meta' && 'name' in file.origin && written(file.path) === body) metaAsWritten.add(file.origin);
  }
  for (const [at, item] of now) if (metaAsWritten.has(item)) now.delete(at);

  const after = { ...index, names: index.names.slice(), released: index.released.slice(), releaseInfo: index.releaseInfo.slice() };
  for (const [at, item] of now) [after.names[at], after.released[at], after.releaseInfo[at]] = [item.name, item.released, item.releaseInfo];
  const previews = keptPreviews(rendering.linksOf);
  const pages = { ids: index.ids, metas: envelope('metas', cacheHints(content, 'catalog')), written, count: 0, before: new Map<string, number>() };
  after.lists = [];
  for (const list of index.lists) {
    const catalog = index.catalogs[list.catalog]!;
    const members = placedAgain(list.members, now, catalog.sort, index, after);
    const fresh = (i: number) => previews.previewOf(now.get(i)!);
    if (!splicePages(bodies, catalog, list, members, now, fresh, pages)) return undefined;
    after.lists.push(members === list.members ? list : { ...list, members });
  }
  return { bodies, pagesBefore: pages.before, index: after };
}

/**
 * `edited` with the files a release renders again (build/edit.ts): the manifest, with the fields
 * only it shows (itemSettings) as `addon` has them, and the pages made from it; its index with both.
 */
export function withRelease(edited: EditedFiles, addon: Content['addon'], templates: PageTemplates): EditedFiles {
  const manifest = withReleaseFields(addon, itemSettings(edited.index.manifest));
  const bodies = new Map(edited.bodies);
  bodies.set(MANIFEST_FILE, JSON.stringify(manifest));
  for (const page of renderPages(templates, manifest, edited.index.baseUrl)) bodies.set(page.path, page.body);
  return { ...edited, bodies, index: { ...edited.index, addon, manifest } };
}

/** The members of the catalog at `at`: its first list is all of them (catalogLists). */
export function catalogMembers(index: EditIndex, at: number): Int32Array {
  return index.lists.find((list) => list.catalog === at)?.members ?? new Int32Array();
}

/** The sort fields of the item at `at`, as an index holds them. */
function sortFieldsOf(index: EditIndex, at: number): SortFields {
  return { name: index.names[at]!, released: index.released[at], releaseInfo: index.releaseInfo[at] };
}

/**
 * A list's members after the edit (`now`, by index): in a sorted catalog, an edited item whose
 * sort key changed is taken out and put back where the order puts it now, ties by the order read
 * (the index), as validate's stable sort leaves them. Itself when no member moved.
 */
function placedAgain(members: Int32Array, now: ReadonlyMap<number, Item>, sort: Catalog['sort'], before: EditIndex, after: EditIndex): Int32Array {
  if (!sort) return members;
  const { keyOf, compare } = catalogOrder(sort);
  const moved = members.filter((i) => now.has(i) && compare(keyOf(sortFieldsOf(before, i)), keyOf(sortFieldsOf(after, i))) !== 0);
  if (moved.length === 0) return members;
  const key = (i: number) => keyOf(sortFieldsOf(after, i));
  const taken = new Set(moved);
  const placed = Array.from(members).filter((i) => !taken.has(i));
  for (const item of moved) {
    const itemKey = key(item);
    let [low, high] = [0, placed.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = placed[middle]!;
      if ((compare(key(other), itemKey) || other - item) < 0) low = middle + 1;
      else high = middle;
    }
    placed.splice(low, 0, item);
  }
  return Int32Array.from(placed);
}

/**
 * Adds to `bodies` the pages of a list whose bytes change: a page that lists other items than
 * it did, or an edited item whose preview changed. Its other previews are taken from the pages
 * as written. False when a page read is not as the index says, or pages are too many.
 */
function splicePages(
  bodies: Map<string, string>,
  catalog: CatalogFrame,
  list: EditIndex['lists'][number],
  members: Int32Array,
  now: ReadonlyMap<number, Item>,
  fresh: (i: number) => string,
  pages: { ids: readonly string[]; metas: Envelope; written: (path: string) => string | undefined; count: number; before: Map<string, number> },
): boolean {
  const old = list.members;
  // The pages that may change: those from the first member that moved to the last, and those of edited members.
  const candidates = new Set<number>();
  members.forEach((i, at) => now.has(i) && candidates.add(Math.floor(at / PAGE_SIZE)));
  if (members !== old) {
    let [low, high] = [0, members.length - 1];
    while (low <= high && members[low] === old[low]) low++;
    while (high >= low && members[high] === old[high]) high--;
    for (let page = Math.floor(low / PAGE_SIZE); low <= high && page <= Math.floor(high / PAGE_SIZE); page++) candidates.add(page);
  }
  if (candidates.size === 0) return true;
  const layout = catalogPages(old.length, list.extra);
  // Where each member was, by item index: an array of the index's length, not a map of every member.
  let oldAt: Int32Array | undefined;
  const positionOf = (i: number, at: number) => {
    if (members === old) return at;
    if (!oldAt) {
      oldAt = new Int32Array(pages.ids.length);
      for (let p = 0; p < old.length; p++) oldAt[old[p]!] = p;
    }
    return oldAt[i]!;
  };
  // Each page as written, read once: its previews and its bytes (both orders of its extras hold the same).
  const read = new Map<number, { previews: string[]; bytes: number } | undefined>();
  const written = (page: number) => {
    if (!read.has(page)) {
      const { skip, extras } = layout[page]!;
      const ids = Array.from(old.subarray(skip, skip + PAGE_SIZE), (i) => pages.ids[i]!);
      const text = pages.written(pagePath(catalog, extras[0]!));
      const previews = pageElements(text, pages.metas, ids);
      read.set(page, previews && { previews, bytes: Buffer.byteLength(text!) });
    }
    return read.get(page);
  };
  const previewAt = (position: number) => written(Math.floor(position / PAGE_SIZE))?.previews[position % PAGE_SIZE];
  for (const page of [...candidates].sort((a, b) => a - b)) {
    const { skip, extras } = layout[page]!;
    const listed: string[] = [];
    let changed = false;
    for (let at = skip; at < Math.min(skip + PAGE_SIZE, members.length); at++) {
      const i = members[at]!;
      const was = previewAt(positionOf(i, at));
      if (was === undefined) return false;
      const preview = now.has(i) ? fresh(i) : was;
      if (i !== old[at] || preview !== was) changed = true;
      listed.push(preview);
    }
    if (!changed) continue;
    const before = written(page);
    if (!before || ++pages.count > EARLY_PAGES_LIMIT) return false;
    // Another item at a place, or another preview: other bytes.
    const body = `${pages.metas.open}[${listed.join(',')}]${pages.metas.close}`;
    for (const order of extras) {
      bodies.set(pagePath(catalog, order), body);
      pages.before.set(pagePath(catalog, order), before.bytes);
    }
  }
  return true;
}

/**
 * The previews a catalog page lists, as they are written in it (pageBody joins them with `,`);
 * undefined unless it is a page of `metas` that lists the items `ids`, in that order. Cut where
 * `},{"id":` is: between two previews it always is (each starts with its id, metaPreview's first
 * field), and a cut anywhere else makes one preview more than the page lists.
 */
export function pageElements(text: string | undefined, metas: Envelope, ids: readonly string[]): string[] | undefined {
  const [head, tail] = [`${metas.open}[`, `]${metas.close}`];
  if (text === undefined || !text.startsWith(head) || !text.endsWith(tail)) return undefined;
  const body = text.slice(head.length, text.length - tail.length);
  const parts = body === '' ? [] : body.split(BETWEEN);
  if (parts.length !== ids.length) return undefined;
  const elements = parts.map((part, k) => (k > 0 ? '{"id":' : '') + part + (k < parts.length - 1 ? '}' : ''));
  return elements.every((element, k) => element.startsWith(`{"id":${JSON.stringify(ids[k])},`)) ? elements : undefined;
}

/** What is between two previews on a page. */
const BETWEEN = '},{"id":';
