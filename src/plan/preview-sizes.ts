// The sizes of items' previews, kept between builds (by serve --watch in memory, by the CLI beside
// the output folder): measuring the output renders every item's preview (output-size.ts), and an
// edit changes few.

/** Sizes measured or found by a build, column by column: its items' ids and fingerprints are strings it holds anyway. */
interface Measured {
  ids: string[];
  fingerprints: string[];
  sizes: number[];
}

const measured = (): Measured => ({ ids: [], fingerprints: [], sizes: [] });
const keyOf = (id: string, fingerprint: string) => `${id}\0${fingerprint}`;

export class PreviewSizes {
  /** What earlier builds measured or found, by keyOf; made when a build first asks. */
  private kept: Map<string, number> | undefined;
  private last: Measured = measured();
  private next: Measured = measured();

  /**
   * The size of the preview of the item `id` whose fingerprint (all it is rendered from,
   * plan/fingerprints.ts) is `fingerprint`, measured when no earlier build measured it.
   */
  sizeOf(id: string, fingerprint: string, measure: () => number): number {
    this.kept ??= new Map(keyed(this.last));
    const size = this.kept.get(keyOf(id, fingerprint)) ?? measure();
    this.next.ids.push(id);
    this.next.fingerprints.push(fingerprint);
    this.next.sizes.push(size);
    return size;
  }

  /** What the last build measured or found, by key: for `restore`. */
  entries(): Iterable<[string, number]> {
    return this.kept && this.last.ids.length === 0 ? this.kept : keyed(this.last);
  }

  static restore(entries: Iterable<[string, number]>): PreviewSizes {
    const sizes = new PreviewSizes();
    sizes.kept = new Map(entries);
    return sizes;
  }

  /** Ends a build: the next one finds what this one measured or found. */
  end(): void {
    this.last = this.next;
    this.next = measured();
    this.kept = undefined;
  }
}

function* keyed({ ids, fingerprints, sizes }: Measured): Generator<[string, number]> {
  for (let i = 0; i < ids.length; i++) yield [keyOf(ids[i]!, fingerprints[i]!), sizes[i]!];
}
