// Where catalogs show: the checks of `board`, `search` and `genres` that only make sense together.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import type { CatalogPlacement } from '../diagnostics/catalog-search.js';
import type { Catalog } from '../shared/content.js';
import { ALL_GENRES } from '../shared/genres.js';
import type { CatalogSettings } from './schema.js';

/**
 * catalog-placement, for each catalog that would not show where its settings say (README, "Where
 * catalogs show"): search on a catalog whose genre filter is required, a search-only catalog
 * with a genre filter or off the Board, a genre named like the first option of a required
 * filter, searchQueries without search. `settings` are in the order of `catalogs`' declarations.
 */
export function checkPlacement(catalogs: readonly Catalog[], settings: readonly CatalogSettings[], diagnostics: DiagnosticList): void {
  for (const catalog of catalogs) {
    const own = settings.find((s) => s.type === catalog.type && s.id === catalog.id);
    if (!own) continue;
    const report = (field: string, params: CatalogPlacement) => {
      const index = settings.indexOf(own);
      diagnostics.push(problem('catalog-placement', params, { ...catalog.where([field]), path: `catalogs[${index}].${field}` }));
    };
    const name = catalog.id;
    if (own.search === true && !own.board) report('search', { kind: 'search-off-board', catalog: name });
    if (own.search === 'only' && !own.board) report('board', { kind: 'search-only-off-board', catalog: name });
    if (own.search === 'only' && own.genres !== undefined) report('genres', { kind: 'search-only-genres', catalog: name });
    if (own.search === false && own.searchQueries !== undefined) report('searchQueries', { kind: 'queries-without-search', catalog: name });
    const all = own.board ? undefined : catalog.genres.find((genre) => genre.toLowerCase() === ALL_GENRES.toLowerCase());
    if (all !== undefined) report('genres', { kind: 'all-genre', catalog: name, genre: all });
  }
}
