// The catalog's words for where catalogs show: `board` and `search` on catalogs in addon.yaml.
import type { Severity } from './codes.js';

const error: Severity = 'error';

/** catalog-placement: `board`, `search`, `searchQueries` and `genres` of one catalog that cannot work together. */
export type CatalogPlacement =
  | { kind: 'search-off-board'; catalog: string }
  | { kind: 'search-only-off-board'; catalog: string }
  | { kind: 'search-only-genres'; catalog: string }
  | { kind: 'all-genre'; catalog: string; genre: string }
  | { kind: 'queries-without-search'; catalog: string };

function placement(p: CatalogPlacement): string {
  switch (p.kind) {
    case 'search-off-board':
      return `catalog "${p.catalog}" has search: true and board: false, but a catalog off the Board has a required genre filter, and Stremio searches only catalogs whose one required extra is search: search would never find it`;
    case 'search-only-off-board':
      return `catalog "${p.catalog}" has search: only, which keeps it off the Board and out of Discover, and board: false, which puts it in Discover`;
    case 'search-only-genres':
      return `catalog "${p.catalog}" has search: only and genres, but search sends the query alone: its genre filter would never be shown`;
    case 'all-genre':
      return `catalog "${p.catalog}" is off the Board, so the first option of its genre filter is "All", which lists every item; its genre "${p.genre}" would be a second "All"`;
    case 'queries-without-search':
      return `catalog "${p.catalog}" has searchQueries but not search: there are no search files to choose`;
  }
}

function placementHint(p: CatalogPlacement): string {
  switch (p.kind) {
    case 'search-off-board':
      return 'keep this catalog for Discover, and add a second catalog of the same items with search: only';
    case 'search-only-off-board':
      return 'remove board: false: search: only already keeps it off the Board and out of Discover';
    case 'search-only-genres':
      return 'remove genres, or make it search: true for a catalog with a genre filter that search finds too';
    case 'all-genre':
      return 'rename that genre, or keep the catalog on the Board (remove board: false)';
    case 'queries-without-search':
      return 'add search: true, or remove searchQueries';
  }
}

export const SEARCH_MESSAGES = {
  'catalog-placement': {
    severity: error,
    message: (p: CatalogPlacement) => placement(p),
    hint: (p: CatalogPlacement) => placementHint(p),
  },
} as const;
