// Items' previews, as the catalog pages that list them hold them: rendered once per item, when
// the output is measured, and used by every page that lists the item.
import type { Item } from '../shared/content.js';
import { metaPreview, type Link } from './wire.js';

export interface Previews {
  /** The item's preview, as JSON. */
  previewOf(item: Item): string;
  /** The bytes of its preview in UTF-8, without making the whole of it. */
  bytesOf(item: Item): number;
  /** Lets go of every preview: a page rendered after this renders its previews again. */
  forget(): void;
  /** Whether the item's preview is kept: rendered, and not let go of since. */
  has(item: Item): boolean;
}

/**
 * Previews kept until every page has been rendered once (write renders the pages first), then
 * forgotten: kept to the end they weigh on the build's peak memory (figures: bench/README.md,
 * 'Previews kept until every page is rendered'). Most previews end with genre links that a
 * few hundred lists make for all the items: such a preview is kept without them, and its
 * links' JSON once per list, joined to it as a page is rendered (same file, 'Previews without
 * their genre links').
 */
export function keptPreviews(linksOf: (item: Item) => Link[] | undefined): Previews {
  // Without its links, and with `}` dropped when a links part follows.
  const previews = new Map<Item, string>();
  const tails = new Map<Link[], { text: string; bytes: number }>();
  // The links part that ends the item's preview, when they are only genre links and nothing
  // follows them (`links` is the last field but `behaviorHints`).
  const tailOf = (item: Item) => {
    const links = linksOf(item);
    if (links === undefined || item.links !== undefined || item.behaviorHints !== undefined) return undefined;
    let tail = tails.get(links);
    if (tail === undefined) {
      const text = `,"links":${JSON.stringify(links)}}`;
      tails.set(links, (tail = { text, bytes: Buffer.byteLength(text) }));
    }
    return tail;
  };
  const ownOf = (item: Item, tail: { text: string } | undefined) => {
    let own = previews.get(item);
    if (own === undefined) {
      const whole = JSON.stringify(metaPreview(item, tail ? undefined : linksOf(item)));
      previews.set(item, (own = tail ? whole.slice(0, -1) : whole));
    }
    return own;
  };
  return {
    previewOf(item) {
      const tail = tailOf(item);
      const own = ownOf(item, tail);
      return tail ? own + tail.text : own;
    },
    bytesOf(item) {
      const tail = tailOf(item);
      return Buffer.byteLength(ownOf(item, tail)) + (tail?.bytes ?? 0);
    },
    forget: () => previews.clear(),
    has: (item) => previews.has(item),
  };
}
