// The order each sorted catalog had in the last build, kept by a long-lived caller (serve --watch)
// between its builds. Sorting from it gives the same order as sorting from the files' order
// (catalogs.ts, sortItems: ties go by the order read), with each item compared about once, not
// log n times: collating names was most of checking a large catalog again after an edit.
import type { Item } from '../shared/content.js';

export class CatalogOrders {
  private orders = new Map<string, readonly string[]>();

  /** Where each id was in the catalog `key` last time; undefined for the first build. */
  ranks(key: string): ReadonlyMap<string, number> | undefined {
    const ids = this.orders.get(key);
    return ids && new Map(ids.map((id, rank) => [id, rank]));
  }

  keep(key: string, items: readonly Item[]): void {
    this.orders.set(
      key,
      items.map((item) => item.id),
    );
  }
}
