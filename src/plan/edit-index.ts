// What a build keeps of its plan for the CLI's next one-item edit (build/edit.ts): the catalog
// lists with what they are sorted by, and the settings item files are rendered with. From it, an
// edit's files are its items' own and the catalog pages that list them, those pages spliced from
// the ones written (their other previews taken as they are there: edit-pages.ts), without the
// other items.
import { itemSettings, type Catalog, type Content, type ExternalTitle, type FileOrigin, type Item } from '../shared/content.js';
import { foldPath, MANIFEST_FILE } from '../shared/paths.js';
import { withReleaseFields } from './manifest.js';
import { renderPages, type PageTemplates } from './page.js';
import type { Extra } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';
import type { StoredValues } from '../validate/checked-files.js';
import { ALL_GENRES } from '../shared/genres.js';
import { describedPrefixes } from '../shared/resources.js';
import { cacheHints } from '../hosts/index.js';
import type { CatalogList } from './catalog-pages.js';
import { addItemFiles, itemFilePaths, itemRendering, type ItemFile } from './item-files.js';
import { keptPreviews } from './previews.js';
import { envelope } from './wire.js';
import { catalogMembers, placedMembers, reindexed, retitled } from './edit-members.js';
import { splicePages, type PageSplice } from './edit-pages.js';
import { addedAndRemoved, countOfferings } from './edit-checks.js';

/** A catalog as an edit's pages need it, and what decides which items it lists: its members are in the lists. */
export type CatalogFrame = Pick<Catalog, 'id' | 'type' | 'genres' | 'sort' | 'autoGenres' | 'fixedGenres' | 'listsAll'>;

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
  /** Every title described elsewhere in the order read: its id (which no item may take) and type. */
  titleIds: string[];
  titleTypes: string[];
  /** The titles described elsewhere of each content file that holds some, as `files`. */
  titleFiles: FileRange[];
  /** The prefixes of the items' ids (describedPrefixes): a title whose id starts with one is an item whose name was forgotten. */
  describedPrefixes: string[];
  /** How many items and titles give each offeringKey: the manifest is made from those that some one gives. */
  offerings: Map<string, number>;
  /** The items of each item file (as load names it): the first one's index, and how many. */
  files: FileRange[];
  /** Each list a catalog's pages are written for, its members as indexes into `ids` (typed: read back in a copy, not item by item). */
  lists: { catalog: number; extra?: Extra; members: Int32Array }[];
}

/**
 * The index of a plan of `content` with these catalog lists and manifest; undefined for content
 * whose edits take the whole build: a configurable addon (each configuration is a tree), a
 * catalog with search (its queries come from names), local files, playlists (their channels merge
 * across files), items or titles of one file apart in the order read. Titles described elsewhere
 * are in no catalog: it keeps their ids and types, for those an edit adds or removes.
 */
export function editIndexOf(content: Content, manifest: Manifest, lists: ReadonlyMap<Catalog, readonly CatalogList[]>): EditIndex | undefined {
  const { items } = content;
  if (content.config.length > 0 || content.assets.length > 0) return undefined;
  if (content.catalogs.some((catalog) => catalog.search) || items.some((item) => item.source.playlist !== undefined)) return undefined;
  const files = fileRanges(items);
  const titleFiles = fileRanges(content.externalTitles);
  if (!files || !titleFiles) return undefined;
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
    catalogs: content.catalogs.map(({ id, type, genres, sort, autoGenres, fixedGenres, listsAll }) => ({
      id,
      type,
      genres,
      ...(sort && { sort }),
      ...(autoGenres && { autoGenres }),
      ...(fixedGenres && { fixedGenres }),
      ...(listsAll && { listsAll }),
    })),
    ids: items.map((item) => item.id),
    names: items.map((item) => item.name),
    released: items.map((item) => item.released),
    releaseInfo: items.map((item) => item.releaseInfo),
    titleIds: content.externalTitles.map((title) => title.id),
    titleTypes: content.externalTitles.map((title) => title.type),
    titleFiles,
    describedPrefixes: describedPrefixes(items),
    offerings: countOfferings(countOfferings(new Map(), items, content.addon.idPrefixes, 1), content.externalTitles, content.addon.idPrefixes, 1),
    files,
    lists: indexed,
  };
}

/** Where the values of each content file are in a list of them: the first one's index, and how many. */
export interface FileRange {
  /**
   * The file's path relative to the content folder, as the record of the build names it: an edit
   * that names the folder otherwise (an absolute path, say) finds it.
   */
  file: string;
  first: number;
  count: number;
}

/** The range of each file's `values` (items, or titles); undefined when a file's are not together. */
function fileRanges(values: readonly { source: { relative: string } }[]): FileRange[] | undefined {
  const ranges: FileRange[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < values.length; at++) {
    const { relative: file } = values[at]!.source;
    const last = ranges.at(-1);
    if (last?.file === file) last.count++;
    else if (seen.has(file)) return undefined;
    else {
      seen.add(file);
      ranges.push({ file, first: at, count: 1 });
    }
  }
  return ranges;
}

/** The items and titles described elsewhere that one content file holds, in order. */
export interface FileValues {
  items: readonly Item[];
  externalTitles: readonly ExternalTitle[];
}

/** An edited content file: what it holds now, and what it held, as the last build kept it. */
export interface EditedFile extends FileValues {
  /** As FileRange.file. */
  file: string;
  before: StoredValues;
}

/** What an edit writes: its items' files and the catalog pages that changed, by path; and the index after it. */
export interface EditedFiles {
  /** Each file's body: rendered, or for a catalog page, spliced from the bytes written. */
  bodies: Map<string, string | Buffer>;
  /** The catalog pages among them that were written, each with the bytes it has as written: all other than their new bodies. */
  pagesBefore: Map<string, number>;
  /** The paths among them that were not written: the files of the items added, and pages past the last there was. */
  created: Set<string>;
  /** The paths no longer written: the files of the items removed, and pages past the last there is. */
  removed: Set<string>;
  index: EditIndex;
}

/**
 * The files an edit renders: every file of the items and titles described elsewhere of `edited`
 * (each content file's items, in order), and the catalog pages whose bytes change. Items may be
 * added to a file or removed from it (reindexed) when the manifest stays as it was and no check
 * across items finds more (addedAndRemoved). `written` gives a file's bytes as the output holds
 * it: an item's meta, to tell whether its preview and place changed, and the pages, for the
 * previews of the items the edit left, which are not rendered again. Undefined when the index
 * does not hold those files' items, or a page is not as the index says it was written, or more
 * than EDIT_PAGES_LIMIT pages change (edit-pages.ts). The caller checks that each item both before
 * and after lists where the index says (sameListings: the same type, genres and catalogs) and has
 * the files it had, and each title too (edit-checks.ts, sameOutline).
 */
export function editedFiles(index: EditIndex, edited: readonly EditedFile[], written: (path: string) => Buffer | undefined): EditedFiles | undefined {
  const edit = reindexed(index, edited);
  if (!edit) return undefined;
  const { now, added } = edit;
  const after: EditIndex = { ...edit.index, lists: [] };
  const titles = retitled(index, edited);
  if (!titles) return undefined;
  const gone = <T extends { id: string }>(before: readonly T[], now: readonly { id: string }[]) => {
    const ids = new Set(now.map((value) => value.id));
    return before.filter((value) => !ids.has(value.id));
  };
  const removedItems = edited.flatMap((file) => gone(file.before.items, file.items));
  const removedTitles = edited.flatMap((file) => gone(file.before.externalTitles, file.externalTitles));
  const offerings = addedAndRemoved(index, edit, removedItems, titles, removedTitles);
  if (!offerings) return undefined;
  Object.assign(after, { offerings, titleIds: titles.titleIds, titleTypes: titles.titleTypes, titleFiles: titles.titleFiles });
  const placed: Int32Array[] = [];
  for (const list of index.lists) {
    const catalog = index.catalogs[list.catalog]!;
    const members = placedMembers(list, catalog, index, edit);
    // A genre of `genres: auto` that no item has any longer leaves the manifest.
    if (catalog.autoGenres && list.extra && list.extra[1] !== ALL_GENRES && members.length === 0) return undefined;
    placed.push(members);
    after.lists.push(members === list.members ? list : { ...list, members });
  }
  const items = [...now.values()];
  // The edited members of each catalog, for their genre links.
  const catalogs = index.catalogs.map((catalog, at) => ({
    ...catalog,
    items: Array.from(catalogMembers(after, at))
      .filter((i) => edit.inEdited[i] === 1)
      .map((i) => now.get(i)!),
  }));
  const externalTitles = edited.flatMap((file) => file.externalTitles);
  const content = { addon: index.addon, baseUrl: index.baseUrl, catalogs, items, externalTitles };
  const rendering = itemRendering(content, items);
  const bodies = new Map<string, string | Buffer>();
  const created = new Set<string>();
  const files: ItemFile[] = [];
  addItemFiles(files, content, index.manifest, rendering, undefined);
  // An item whose meta is as written lists as it did: its preview is its meta but for the
  // videos and trailers, and what catalogs sort by is in both.
  const addedItems = new Set<FileOrigin>([...[...added].map((i) => now.get(i)!), ...titles.added]);
  const at = new Map<FileOrigin, number>([...now].map(([i, item]) => [item, i]));
  const fresh = new Set(now.keys());
  const folded = new Set<string>();
  for (const file of files) {
    // Two of the edit's files at one path, or at paths one file system takes for one (two items
    // it adds, say): a conflict, which only a whole build reports (plan/conflicts.ts).
    const key = foldPath(file.path);
    if (folded.has(key)) return undefined;
    folded.add(key);
    const body = file.body();
    bodies.set(file.path, body);
    if (addedItems.has(file.origin)) created.add(file.path);
    else if (file.resource === 'meta' && written(file.path)?.toString() === body) fresh.delete(at.get(file.origin)!);
  }
  const previews = keptPreviews(rendering.linksOf);
  const metas = envelope('metas', cacheHints(content, 'catalog'));
  const pages: PageSplice = {
    ids: index.ids,
    head: Buffer.from(`${metas.open}[`),
    tail: Buffer.from(`]${metas.close}`),
    written,
    count: 0,
    before: new Map(),
    created,
    removed: new Set(itemFilePaths([...removedItems, ...removedTitles], index.manifest)),
  };
  const previewOf = (i: number) => Buffer.from(previews.previewOf(now.get(i)!));
  for (let k = 0; k < index.lists.length; k++) {
    const list = index.lists[k]!;
    if (!splicePages(bodies, index.catalogs[list.catalog]!, list, placed[k]!, edit, fresh, previewOf, pages)) return undefined;
  }
  return { bodies, pagesBefore: pages.before, created, removed: pages.removed, index: after };
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
