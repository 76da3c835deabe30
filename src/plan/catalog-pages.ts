// Catalog pages: each catalog, and each genre of it, as pages of PAGE_SIZE previews.
import { resourcePath, type Extra } from '../shared/paths.js';
import type { Catalog, Item } from '../shared/content.js';
import type { OutputFile } from './output-file.js';
import type { Envelope } from './wire.js';

/** Items per catalog page; the client asks for the next page at `skip=<items so far>`. */
export const PAGE_SIZE = 100;

/** The catalog's items grouped by genre, in catalog order: one pass, however many genres. */
export function membersByGenre(catalog: Catalog): Map<string, Item[]> {
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
 * The pages of a catalog (or of one genre of it) with `total` items: the first page without
 * `skip`, then `skip=100`, `skip=200`, … and an empty page at `skip=<total>`, because the client
 * keeps asking until it gets an empty list. With a genre, each later page is written in both
 * extra orders: the client core puts the extra it set last first (`skip=100&genre=…`).
 */
export function catalogPages(total: number, genre?: Extra): { skip: number; extras: Extra[][] }[] {
  const first = { skip: 0, extras: [genre ? [genre] : []] };
  const later: number[] = [];
  for (let skip = PAGE_SIZE; skip < total; skip += PAGE_SIZE) later.push(skip);
  later.push(total);
  return [
    first,
    ...later.map((skip) => {
      const skipExtra: Extra = ['skip', String(skip)];
      return {
        skip,
        extras: genre
          ? [
              [skipExtra, genre],
              [genre, skipExtra],
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
export function addCatalogPageFiles(
  files: OutputFile[],
  byGenre: ReadonlyMap<Catalog, ReadonlyMap<string, readonly Item[]>>,
  rendering: PageRendering,
): void {
  const { envelope: catalogEnvelope, previewOf } = rendering;
  let pagesToRender = 0;
  const rendered = () => {
    if (--pagesToRender === 0) rendering.forgetPreviews();
  };
  for (const [catalog, groups] of byGenre) {
    const filters: (Extra | undefined)[] = [undefined, ...catalog.genres.map((g): Extra => ['genre', g])];
    for (const genre of filters) {
      const members = genre ? (groups.get(genre[1]) ?? []) : catalog.items;
      for (const { skip, extras: orders } of catalogPages(members.length, genre)) {
        const listed = members.slice(skip, skip + PAGE_SIZE);
        // The page's files in both extra orders hold the same text: rendered for the first of
        // them, and the same string handed to the other (write then encodes and hashes it once).
        let text: string | undefined;
        let toHand = 0;
        const body = () => {
          if (toHand === 0) {
            text = `${catalogEnvelope.open}[${listed.map(previewOf).join(',')}]${catalogEnvelope.close}`;
            toHand = orders.length;
            rendered();
          }
          const handed = text!;
          if (--toHand === 0) text = undefined;
          return handed;
        };
        const inputs = rendering.fingerprintOf?.(listed);
        for (const extras of orders) {
          files.push({ path: resourcePath('catalog', catalog.type, catalog.id, extras), resource: 'catalog', body, inputs });
        }
        pagesToRender++;
      }
    }
  }
}
