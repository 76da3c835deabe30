// Two genres of one catalog that differ only in letter case or Unicode normalization: every page of
// one would be one file with the same page of the other. Reported once per pair, at a genre.
import { problem, type DiagnosticList, type Location } from '../diagnostics/index.js';
import type { Catalog, Item } from '../shared/content.js';

/** The pages of one genre of a catalog, as its page files name it (one object for all of them). */
export interface GenrePages {
  catalog: Catalog;
  genre: string;
}

type Place = Location & { path?: string };

/**
 * One case-conflict per pair of spellings of a genre in a catalog, not one per page they both
 * have (first page, later pages, both orders of extras, each configuration's tree). It is put at
 * the genre of the item that brings in the spelling read later, with the other spelling's item
 * as its related location: that is where one spelling is changed for the other.
 */
export class GenreConflicts {
  private readonly reported = new Set<string>();
  /** For each catalog with a conflict, the first member that carries each genre. */
  private readonly bearers = new Map<Catalog, Map<string, Item>>();

  constructor(private readonly diagnostics: DiagnosticList) {}

  report(pages: GenrePages, pagePath: string, other: GenrePages, otherPath: string): void {
    const { catalog } = pages;
    const spellings = [pages.genre, other.genre].sort();
    const key = [catalog.type, catalog.id, ...spellings].join('\u0000');
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const here = this.placeOf(catalog, pages.genre);
    const there = this.placeOf(catalog, other.genre);
    const [at, first, genre, otherGenre, page, otherPage] = readBefore(there, here)
      ? [here, there, pages.genre, other.genre, pagePath, otherPath]
      : [there, here, other.genre, pages.genre, otherPath, pagePath];
    const related = [{ file: first.file, line: first.line, column: first.column, message: `the first item with genre "${otherGenre}"` }];
    this.diagnostics.add(at.file, 'error', () =>
      problem('case-conflict', { genre, otherGenre, catalog: catalog.id, page, otherPage, fixed: false }, { ...at, related }),
    );
  }

  /**
   * The genre of the first member that carries it. A list of the catalog's own has one spelling
   * of each genre (validate/catalogs.ts): at that list, should one get here all the same.
   */
  private placeOf(catalog: Catalog, genre: string): Place {
    const item = this.bearersOf(catalog).get(genre);
    const index = item?.genres?.indexOf(genre) ?? -1;
    if (!item || index < 0) return catalog.where(['genres']);
    return { ...item.where(['genres', index]), path: `genres[${index}]` };
  }

  /** Made only for a catalog with a conflict: other builds make none. */
  private bearersOf(catalog: Catalog): Map<string, Item> {
    let bearers = this.bearers.get(catalog);
    if (bearers) return bearers;
    bearers = new Map();
    for (const item of catalog.items) for (const genre of item.genres ?? []) if (!bearers.has(genre)) bearers.set(genre, item);
    this.bearers.set(catalog, bearers);
    return bearers;
  }
}

/** Whether `a` comes before `b` in reading order: files in path order, then line and column. */
function readBefore(a: Place, b: Place): boolean {
  // Files in the order load reads them (`<`, load/read.ts), not the locale's.
  const byFile = a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
  return (byFile || a.line - b.line || a.column - b.column) <= 0;
}
