// Catalog pages: each catalog, each genre of it and each search query's results, as pages of
// PAGE_SIZE previews.
import { resourcePath, type Extra } from '../shared/paths.js';
import type { Catalog, Item } from '../shared/content.js';
import { fileQueries, foldText, SearchIndex } from '../shared/search.js';
import { ALL_GENRES } from '../shared/genres.js';
import type { GenrePages } from './genre-conflicts.js';
import type { OutputFile } from './output-file.js';
import type { Envelope } from './wire.js';

/** Items per catalog page; the client asks for the next page at `skip=<items so far>`. */
export const PAGE_SIZE = 100;

/** One list that a catalog's pages are written for: the whole catalog, one genre, or one search query's results. */
export interface CatalogList {
  /** The extra the client asks for it with; none for the whole catalog. */
  extra?: Extra;
  members: readonly Item[];
  /**
   * A search query whose spellings differ only in letter case: they list the same items, so a
   * file system that ignores case may keep one file for both (plan/conflicts.ts).
   */
  caseVariant?: true;
  /** The list of one of the catalog's genres (not ALL_GENRES, which lists the whole catalog). */
  ofGenre?: true;
}

/**
 * The lists whose pages a catalog is written as, for the requests the client makes of it (README,
 * "Where catalogs show"): on the Board and in Discover the whole catalog and each genre; off the
 * Board, the required genre filter's options, ALL_GENRES first; for search, the results of each
 * query a static host gets a file for; a search-only catalog has those alone.
 */
export function catalogLists(catalog: Catalog, budget?: SearchBudget): CatalogList[] {
  const lists: CatalogList[] = [];
  if (!catalog.search?.only) {
    const groups = membersByGenre(catalog);
    if (catalog.board) lists.push({ members: catalog.items });
    else lists.push({ extra: ['genre', ALL_GENRES], members: catalog.items });
    for (const genre of catalog.genres) lists.push({ extra: ['genre', genre], members: groups.get(genre) ?? [], ofGenre: true });
  }
  if (catalog.search) {
    const index = new SearchIndex(catalog.items, (item) => item.name);
    const queries = new Set<string>();
    for (const item of catalog.items) fileQueries(item.name, catalog.search.queries, queries);
    // The spellings of one query list the same items: found once, for the first of them.
    const found = new Map<string, Item[]>();
    for (const query of queries) {
      const key = foldText(query);
      let members = found.get(key);
      if (!members) found.set(key, (members = index.results(query)));
      lists.push({ extra: ['search', query], members, caseVariant: true });
      if (budget && (budget.listings -= members.length) < 0) break;
    }
  }
  return lists;
}

/**
 * How many more search results the lists may hold before the output is measured: names that
 * share their words make every whole name's results long, more than the content's size
 * suggests. Past it the lists stop, and what they hold is already more than a build may write.
 */
export interface SearchBudget {
  listings: number;
}

/** The catalog's items grouped by genre, in catalog order: one pass, however many genres. */
function membersByGenre(catalog: Catalog): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const item of catalog.items) {
    for (const genre of item.genres ?? []) {
      const group = groups.get(genre);
      // Once per genre, however often the item names it: a group that has the item has it last.
      if (!group) groups.set(genre, [item]);
      else if (group[group.length - 1] !== item) group.push(item);
    }
  }
  return groups;
}

/**
 * The pages of a catalog list with `total` items: the first page without `skip`, then
 * `skip=100`, `skip=200`, … and an empty page at `skip=<total>`, because the client keeps asking
 * until it gets an empty list. With an extra (a genre, a query), each later page is written in
 * both extra orders: the client core puts the extra it set last first (`skip=100&genre=…`).
 */
export function catalogPages(total: number, extra?: Extra): { skip: number; extras: Extra[][] }[] {
  const first = { skip: 0, extras: [extra ? [extra] : []] };
  const later: number[] = [];
  for (let skip = PAGE_SIZE; skip < total; skip += PAGE_SIZE) later.push(skip);
  later.push(total);
  return [
    first,
    ...later.map((skip) => {
      const skipExtra: Extra = ['skip', String(skip)];
      return {
        skip,
        extras: extra
          ? [
              [skipExtra, extra],
              [extra, skipExtra],
            ]
          : [[skipExtra]],
      };
    }),
  ];
}

/** What catalog pages are rendered with, besides the items they list: one for the whole plan. */
export interface PageRendering {
  envelope: Envelope;
  /** An item's preview as JSON. */
  previewOf: (item: Item) => string;
  /** Called when every page has been rendered once: the previews need not be kept any longer. */
  forgetPreviews: () => void;
  fingerprintOf: ((listed: readonly Item[]) => string) | undefined;
}

/**
 * Adds the pages of every catalog and genre. Pushed onto the plan's list, not returned: a spread
 * of hundreds of thousands of pages would overflow the stack.
 */
export function addCatalogPageFiles(files: OutputFile[], lists: ReadonlyMap<Catalog, readonly CatalogList[]>, rendering: PageRendering): void {
  // Taken apart: a page's body must not keep `rendering`, whose fingerprints hold maps of every
  // item until the last page is gone.
  const { envelope: catalogEnvelope, previewOf, forgetPreviews, fingerprintOf } = rendering;
  let pagesToRender = 0;
  const rendered = () => {
    if (--pagesToRender === 0) forgetPreviews();
  };
  for (const [catalog, ofCatalog] of lists) {
    for (const { extra, members, caseVariant, ofGenre } of ofCatalog) {
      const genre: GenrePages | undefined = ofGenre && extra ? { catalog, genre: extra[1] } : undefined;
      for (const { skip, extras: orders } of catalogPages(members.length, extra)) {
        const listed = members.slice(skip, skip + PAGE_SIZE);
        // The page's files in both extra orders hold the same text: rendered for the first of
        // them, and the same string handed to the other (write then encodes and hashes it once).
        let text: string | undefined;
        let toHand = 0;
        const body = () => {
          if (toHand === 0) {
            text = pageBody(catalogEnvelope, listed, previewOf);
            toHand = orders.length;
            rendered();
          }
          const handed = text!;
          if (--toHand === 0) text = undefined;
          return handed;
        };
        const inputs = fingerprintOf?.(listed);
        for (const extras of orders) {
          const path = pagePath(catalog, extras);
          const file: OutputFile = { path, resource: 'catalog', body, inputs, ...(caseVariant && { caseVariant }) };
          // Set, not spread: a genre's pages are most of a large plan's files.
          if (genre) file.genre = genre;
          files.push(file);
        }
        pagesToRender++;
      }
    }
  }
}

/** The body of a catalog page that lists `listed`. */
export function pageBody(envelope: Envelope, listed: readonly Item[], previewOf: (item: Item) => string): string {
  return `${envelope.open}[${listed.map(previewOf).join(',')}]${envelope.close}`;
}

/** The path of a catalog page asked for with `extras`. */
export function pagePath(catalog: Pick<Catalog, 'type' | 'id'>, extras: readonly Extra[]): string {
  return resourcePath('catalog', catalog.type, catalog.id, extras);
}
