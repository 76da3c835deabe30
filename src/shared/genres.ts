// `genres: auto`: a catalog's genre filter offers the genres its items carry. Validate works them
// out for the whole content, and plan again for each configuration, whose catalogs may list fewer.
import type { Item } from './content.js';

/**
 * The first option of the required genre filter of a catalog kept off the Board: Discover opens
 * on it, and it lists the whole catalog.
 */
export const ALL_GENRES = 'All';

/** Numbers in numeric order (`2` before `10`), letters without regard to case or accents. */
export const NATURAL_ORDER = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Every genre the items carry, each once, sorted. */
export function autoGenres(items: readonly Item[]): string[] {
  const all = new Set<string>();
  for (const item of items) for (const genre of item.genres ?? []) all.add(genre);
  return [...all].sort(NATURAL_ORDER.compare);
}
