// The files an edit touched, answered by serve --watch before the rest of the rebuild is planned
// and written: the edited items' meta, streams and subtitles, then the catalog pages that list
// them, show within the time it takes to check the edited files.
import type { Catalog, Content, ExternalTitle, FileOrigin, Item } from '../shared/content.js';
import type { CheckedItems } from '../validate/index.js';
import { catalogOrder } from '../validate/catalogs.js';
import { cacheHints } from '../hosts/index.js';
import { catalogLists, catalogPages, pageBody, pagePath, PAGE_SIZE, type CatalogList } from './catalog-pages.js';
import { addItemFiles, itemRendering, type ItemFile } from './item-files.js';
import { buildManifest } from './manifest.js';
import { keptPreviews, type Previews } from './previews.js';
import { envelope } from './wire.js';
import { listsItem } from './edit-members.js';
import { autoGenres } from '../shared/genres.js';

/** More owners than this and the rebuild is not much further off than their files would be. */
export const EARLY_OWNERS_LIMIT = 1_000;
/** More catalog pages than this to render again, and they follow with the rebuild. */
export const EARLY_PAGES_LIMIT = 1_000;

/** A built tree: the content it was planned from and its manifest's text. */
export interface BuiltTree {
  content: Content;
  manifest: string;
  /** The settings it was checked with (CheckedItems.settings); unknown, no provisional content is made. */
  settings?: string;
  /**
   * The previews its build rendered (plan's `keepPreviews`): an edit's pages take those of the
   * items it left as they were. All of them after a first build; after a rebuild, those of the
   * pages it rendered again, since write renders no page whose inputs are as they were.
   */
  previews?: Pick<Previews, 'previewOf' | 'has'>;
}

/** What a rebuild answers before it ends: the edited items' files, and the catalog pages when asked for. */
export interface EarlyAnswers {
  /** The item files' bodies, by path; null for a file of an item or title removed, which the rebuild removes. */
  files: Map<string, string | null>;
  /** The catalog pages that changed, by path; undefined when they wait for the rebuild (see changedPages). */
  pages(): Map<string, string> | undefined;
}

/**
 * The bodies, by path, that the plan of `after` gives the item files of the items and titles from
 * the content files `edited`, and the catalog pages that changed (see changedPages); undefined
 * when that is not all an edit changed, or not known to be:
 *   - a configurable addon: each configuration is a tree of its own;
 *   - other settings in addon.yaml, or another base URL;
 *   - another manifest (a genre the catalogs now offer or no longer do): its resources decide
 *     which item files there are;
 *   - other paths than `before` had for those files (an id moved, a video's id), but the files of
 *     items and titles added or removed, or more than EARLY_OWNERS_LIMIT items and titles.
 * With items or titles added or removed, the catalog pages wait for the rebuild: the pages after
 * each move.
 * Rendered as the plan renders them (item-files.ts, catalog-pages.ts), from the same content: the
 * same bytes.
 */
export function earlyAnswers(before: BuiltTree, after: Content, edited: ReadonlySet<string>): EarlyAnswers | undefined {
  const was = before.content;
  if (was.config.length > 0 || after.config.length > 0) return undefined;
  // The settings give the bodies' cache hints, and the served tree's headers theirs.
  if (was.baseUrl !== after.baseUrl || JSON.stringify(was.addon) !== JSON.stringify(after.addon)) return undefined;
  const manifest = buildManifest(after);
  if (JSON.stringify(manifest) !== before.manifest) return undefined;
  const filesOf = (content: Content) => {
    const touched = (origin: FileOrigin) => edited.has(origin.source.file);
    const items = content.items.filter(touched);
    const externalTitles = content.externalTitles.filter(touched);
    if (items.length + externalTitles.length > EARLY_OWNERS_LIMIT) return undefined;
    const files: ItemFile[] = [];
    addItemFiles(files, { ...content, items, externalTitles }, manifest, itemRendering(content, items), undefined);
    return files;
  };
  const [old, now] = [filesOf(was), filesOf(after)];
  if (!old || !now) return undefined;
  const ids = (files: readonly ItemFile[]) => new Set(files.map((file) => file.origin.id));
  const [oldIds, nowIds] = [ids(old), ids(now)];
  // The files of the owners both have (an item renamed, say): the same paths.
  const oldAt = new Map(old.filter((file) => nowIds.has(file.origin.id)).map((file) => [file.path, file]));
  const kept = now.filter((file) => oldIds.has(file.origin.id));
  if (kept.length !== oldAt.size || kept.some((file) => !oldAt.has(file.path))) return undefined;
  const files = new Map<string, string | null>(now.map((file) => [file.path, file.body()]));
  for (const file of old) if (!nowIds.has(file.origin.id) && !files.has(file.path)) files.set(file.path, null);
  if (kept.length < now.length || oldAt.size < old.length) return { files, pages: () => undefined };
  // The items whose previews may have changed: those whose meta did. A preview is its meta but
  // for the videos and trailers.
  const changed = new Set<Item>();
  for (const { path, resource, origin } of now) {
    if (resource === 'meta' && 'name' in origin && files.get(path) !== oldAt.get(path)!.body()) changed.add(origin);
  }
  return { files, pages: () => changedPages(was, after, changed, before.previews) };
}

/**
 * The catalog pages of `now` that list an item of `changed`, or other items than the same page of
 * `was` listed, as the plan renders them (catalog-pages.ts); undefined when pages differ in more
 * than that, or are many (EARLY_PAGES_LIMIT):
 *   - a list longer or shorter: its pages are others (the last, empty one is at `skip=<length>`);
 *   - a catalog with search: its queries' lists come from names an edit may change.
 * Given the settings and the manifest `was` had, the other items' previews are as they were: each
 * is rendered from its item, the catalogs that list it and the genres they offer.
 */
function changedPages(was: Content, now: Content, changed: ReadonlySet<Item>, served: BuiltTree['previews']): Map<string, string> | undefined {
  if (was.catalogs.length !== now.catalogs.length || now.catalogs.some((catalog) => catalog.search)) return undefined;
  const pages: { catalog: Catalog; listed: Item[]; paths: string[] }[] = [];
  for (let c = 0; c < now.catalogs.length; c++) {
    const catalog = now.catalogs[c]!;
    const [before, after] = [listsOf(was.catalogs[c]!), listsOf(catalog)];
    if (before.length !== after.length) return undefined;
    for (let l = 0; l < after.length; l++) {
      const [old, { members, extra }] = [before[l]!.members, after[l]!];
      if (old.length !== members.length || before[l]!.extra?.join('\0') !== extra?.join('\0')) return undefined;
      // A list that provisionalContent left as it was.
      if (members === old) continue;
      // The same object is the same item (a file not edited, in the content made from it).
      const differs = (i: number) => members[i] !== old[i] && (members[i]!.id !== old[i]!.id || changed.has(members[i]!));
      for (const { skip, extras } of catalogPages(members.length, extra)) {
        const end = Math.min(skip + PAGE_SIZE, members.length);
        let i = skip;
        while (i < end && !differs(i)) i++;
        if (i === end) continue;
        pages.push({ catalog, listed: members.slice(skip, end), paths: extras.map((order) => pagePath(catalog, order)) });
        if (pages.length > EARLY_PAGES_LIMIT) return undefined;
      }
    }
  }
  // An item of the served content, which the edit left as it was, has the preview it had there;
  // the others' are rendered.
  const kept = (item: Item) => served?.has(item) === true;
  const rendered = [...new Set(pages.flatMap(({ listed }) => listed.filter((item) => !kept(item))))];
  const fresh = keptPreviews(itemRendering(now, rendered).linksOf);
  const previewOf = (item: Item) => (kept(item) ? served!.previewOf(item) : fresh.previewOf(item));
  const metas = envelope('metas', cacheHints(now, 'catalog'));
  const bodies = new Map<string, string>();
  for (const { listed, paths } of pages) {
    const body = pageBody(metas, listed, previewOf);
    for (const path of paths) bodies.set(path, body);
  }
  return bodies;
}

/**
 * The content `before` was built from, with the items and titles of the content files `edited`
 * as a rebuild has checked them, each on its own, before it checks across them (`checked`): what
 * earlyAnswers renders the edited items' files and catalog pages from, half a second sooner on a
 * large catalog than from the checked content. Undefined unless everything else those files
 * depend on is known to be as it was:
 *   - the same settings: addon.yaml and the base URL;
 *   - the same files, with the same items and titles in the same order, but for those an edited
 *     file adds, whose ids no other has, and those it removes. A file not edited is as the served
 *     build read it (serve keeps what each became). The catalogs list an item added, but not yet
 *     in their order, and no longer one removed: the catalog pages wait for the rebuild (earlyAnswers);
 *   - each edited item with its id, type, genres and catalogs: then the catalogs list the same
 *     items and offer the same genres, so its genre links and the manifest are as they were. A
 *     new name may move it in a sorted catalog: it is placed again by the catalog's order. With
 *     an item added or removed, a catalog with `genres: auto` offers those its items carry now
 *     (a genre new or gone is another manifest: earlyAnswers answers nothing);
 *   - no channel of a playlist: those of several playlists are merged after this point.
 * The rebuild's check across items comes after; serve makes the item files again from the
 * checked content then, and drops every early answer if the rebuild fails.
 */
export function provisionalContent(before: BuiltTree, checked: CheckedItems, edited: ReadonlySet<string>): Content | undefined {
  const was = before.content;
  if (before.settings === undefined || before.settings !== checked.settings) return undefined;
  const itemsNow = new Map<Item, Item>();
  const items = aligned(was.items, checked.items, edited, itemsNow, sameListings);
  const titlesNow = new Map<ExternalTitle, ExternalTitle>();
  const externalTitles = aligned(was.externalTitles, checked.externalTitles, edited, titlesNow, (old, now) => old.type === now.type);
  if (!items || !externalTitles) return undefined;
  const added = [...items.added, ...externalTitles.added];
  if (added.length > 0 && !newIds(was, added)) return undefined;
  const removed = new Set(items.removed);
  // The order the items were read in breaks ties in a sorted catalog: found when there is one.
  // Every item placed is one of them: those removed are left out before.
  let readAt: Map<Item, number> | undefined;
  const order = (item: Item) => (readAt ??= new Map(items.values.map((value, i) => [value, i]))).get(item)!;
  const catalogs = was.catalogs.map((catalog) => {
    // An item added is listed, for its genre links, at the end, and one removed no longer: the
    // pages of either wait for the rebuild.
    const joining = items.added.filter((item) => listsItem(catalog, undefined, item));
    const leaving = removed.size > 0 && catalog.items.some((item) => removed.has(item));
    const listed = listedNow(leaving ? catalog.items.filter((item) => !removed.has(item)) : catalog.items, itemsNow, catalog.sort, order);
    const members = joining.length > 0 ? [...listed, ...joining] : listed;
    if (joining.length > 0 || leaving) return { ...catalog, items: members, ...(catalog.autoGenres && { genres: autoGenres(members) }) };
    const now = { ...catalog, items: members };
    if (catalog.search) return now;
    // Each list the served tree's pages were written for, with the edited items in place: a
    // catalog and each of its genres list the same items as before (listsOf, changedPages).
    const lists = listsOf(catalog).map((list) => ({
      ...list,
      members: list.members === catalog.items ? now.items : listedNow(list.members, itemsNow, catalog.sort, order),
    }));
    listsKept.set(now, lists);
    return now;
  });
  return { ...was, items: items.values, externalTitles: externalTitles.values, catalogs };
}

/**
 * Each catalog's lists (catalogLists), kept for as long as the catalog is: those of the served
 * tree are made once, not at each edit, and an edit's are made from them (provisionalContent).
 */
const listsKept = new WeakMap<Catalog, readonly CatalogList[]>();

function listsOf(catalog: Catalog): readonly CatalogList[] {
  let lists = listsKept.get(catalog);
  if (!lists) listsKept.set(catalog, (lists = catalogLists(catalog)));
  return lists;
}

/** Lists the catalogs of a tree just served, before an edit asks (listsOf): serve does it right after the swap. */
export function listCatalogs(tree: BuiltTree): void {
  for (const catalog of tree.content.catalogs) if (!catalog.search) listsOf(catalog);
}

/**
 * A list of a catalog (`members`) with each edited item in place of the one it replaces (`edits`,
 * old to new), itself when it lists none. In a sorted catalog, one whose sort key changed is
 * taken out and put back where the catalog's order puts it now: the others are in that order
 * already. Ties go by the order the items were read in (`order`), as validate's stable sort
 * leaves them.
 */
function listedNow<List extends readonly Item[]>(
  members: List,
  edits: ReadonlyMap<Item, Item>,
  sort: Catalog['sort'],
  order: (item: Item) => number,
): List | Item[] {
  const places = placesIn(members, edits);
  if (places.length === 0) return members;
  const now = members.slice();
  for (const [at, value] of places) now[at] = value;
  const orderOf = sort && catalogOrder(sort);
  const moved = orderOf ? places.filter(([at, value]) => orderOf.compare(orderOf.keyOf(members[at]!), orderOf.keyOf(value)) !== 0) : [];
  if (!orderOf || moved.length === 0) return now;
  const { keyOf, compare } = orderOf;
  const before = (a: Item, b: Item) => (compare(keyOf(a), keyOf(b)) || order(a) - order(b)) < 0;
  const taken = new Set(moved.map(([at]) => at));
  const placed = now.filter((_, i) => !taken.has(i));
  for (const [, item] of moved) {
    let [low, high] = [0, placed.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(placed[middle]!, item)) low = middle + 1;
      else high = middle;
    }
    placed.splice(low, 0, item);
  }
  return placed;
}

/** Up to this many edited items are found in a list by indexOf; more, by one pass over the list. */
const FOUND_BY_INDEX = 64;

/**
 * Where the edited items (`edits`, old to new) are in `members`, and what replaces each. indexOf
 * compares references and reads no member; a pass that looks each member up in `edits` reads
 * every one, which on a large catalog costs as much as some hundred indexOf.
 */
function placesIn(members: readonly Item[], edits: ReadonlyMap<Item, Item>): [at: number, value: Item][] {
  const places: [number, Item][] = [];
  if (edits.size <= FOUND_BY_INDEX) {
    for (const [old, value] of edits) {
      const at = members.indexOf(old);
      if (at >= 0) places.push([at, value]);
    }
    return places;
  }
  for (let at = 0; at < members.length; at++) {
    const value = edits.get(members[at]!);
    if (value) places.push([at, value]);
  }
  return places;
}

/**
 * `was` with the values of the edited files taken from `now`, each put in `replaced` by the one it
 * replaces, and the values those files added and removed; undefined unless both have the same
 * files (an edited one may be gone or new), the values they both have in the same order, and
 * `same` holds for each value of an edited file that both have.
 */
function aligned<T extends Item | ExternalTitle>(
  was: readonly T[],
  now: readonly T[],
  edited: ReadonlySet<string>,
  replaced: Map<T, T>,
  same: (old: T, now: T) => boolean,
): { values: T[]; added: T[]; removed: T[] } | undefined {
  const values: T[] = [];
  const added: T[] = [];
  const removed: T[] = [];
  let [i, j] = [0, 0];
  while (i < was.length || j < now.length) {
    const old: T | undefined = was[i];
    const value: T | undefined = now[j];
    const file = old && edited.has(old.source.file) ? old.source.file : value && edited.has(value.source.file) ? value.source.file : undefined;
    if (file === undefined) {
      // A file not edited: as the served build read it.
      if (!old || !value || old.id !== value.id || old.source.file !== value.source.file) return undefined;
      values.push(old);
      [i, j] = [i + 1, j + 1];
      continue;
    }
    // An edited file's values: those it had and has, in the same order, and those it adds or removes.
    const start = i;
    while (i < was.length && was[i]!.source.file === file) i++;
    const had = new Map(was.slice(start, i).map((value, at) => [value.id, at]));
    let last = -1;
    for (; j < now.length && now[j]!.source.file === file; j++) {
      const next = now[j]!;
      const at = had.get(next.id);
      if (next.source.playlist !== undefined || (at !== undefined && (at <= last || !same(was[start + at]!, next)))) return undefined;
      if (at === undefined) added.push(next);
      else {
        replaced.set(was[start + at]!, next);
        had.delete(next.id);
        last = at;
      }
      values.push(next);
    }
    for (const at of had.values()) removed.push(was[start + at]!);
  }
  return { values, added, removed };
}

/** Whether the ids of `added` are no other item's or title's of `was`, nor each other's. */
function newIds(was: Content, added: readonly (Item | ExternalTitle)[]): boolean {
  const ids = new Set([...was.items, ...was.externalTitles].map((value) => value.id));
  for (const value of added) {
    if (ids.has(value.id)) return false;
    ids.add(value.id);
  }
  return true;
}

/** Whether the catalogs list an item as they list another: what its type, genres and catalogs decide. */
export function sameListings(old: Pick<Item, 'type' | 'genres' | 'catalogs'>, now: Pick<Item, 'type' | 'genres' | 'catalogs'>): boolean {
  return old.type === now.type && sameList(old.genres, now.genres) && sameList(old.catalogs, now.catalogs);
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.length === b.length && a.every((value, i) => value === b[i]);
}
