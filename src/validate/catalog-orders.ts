// The order each catalog's items were sorted into, kept between the builds of one long-lived
// process (serve --watch). The next build starts its sort from it: after an edit, the items are
// all but sorted already, which the sort goes through in one pass rather than comparing names
// all over again (figures: bench/README.md, 'Catalog order kept').
export class CatalogOrders {
  private kept = new Map<string, Map<string, number>>();
  private next = new Map<string, Map<string, number>>();

  /** Where each item id was in the catalog at `key`, sorted by `sort`, in the last build. */
  last(key: string, sort: string): ReadonlyMap<string, number> | undefined {
    return this.kept.get(`${key}\0${sort}`);
  }

  /** Keeps the order of the catalog at `key`, sorted by `sort` into `items`, for the next build. */
  keep(key: string, sort: string, items: readonly { id: string }[]): void {
    this.next.set(`${key}\0${sort}`, new Map(items.map(({ id }, rank) => [id, rank])));
  }

  /** Ends a build: the next starts from the orders this one kept. */
  end(): void {
    this.kept = this.next;
    this.next = new Map();
  }
}
