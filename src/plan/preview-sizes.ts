// The sizes of items' previews, kept between builds (by serve --watch in memory, by the CLI beside
// the output folder): measuring the output renders every item's preview (output-size.ts), and an
// edit changes few.

export class PreviewSizes {
  private kept = new Map<string, number>();
  private next = new Map<string, number>();

  /**
   * The size of the preview that `key` names (all it is rendered from: an item's id and
   * fingerprint, plan/fingerprints.ts), measured when no earlier build measured it.
   */
  sizeOf(key: string, measure: () => number): number {
    let size = this.next.get(key) ?? this.kept.get(key);
    if (size === undefined) size = measure();
    this.next.set(key, size);
    return size;
  }

  /** What the last build measured or found, by key: for `restore`. */
  entries(): IterableIterator<[string, number]> {
    return this.kept.entries();
  }

  static restore(entries: Iterable<[string, number]>): PreviewSizes {
    const sizes = new PreviewSizes();
    sizes.kept = new Map(entries);
    return sizes;
  }

  /** Ends a build: the next one finds what this one measured or found. */
  end(): void {
    this.kept = this.next;
    this.next = new Map();
  }
}
