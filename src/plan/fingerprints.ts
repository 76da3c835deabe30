// Fingerprints of what files are rendered from: a rebuild keeps a file whose fingerprint it recorded.
import { sha1, textFingerprint } from '../shared/fingerprint.js';
import { itemSettings, type Content, type FileOrigin, type Item } from '../shared/content.js';
import type { Link } from './wire.js';

/**
 * Fingerprints of what files are rendered from. An item's files are rendered from the item,
 * which is its file's text read at its path (local files resolve against it), from the genre
 * links that all catalogs together decide, from the settings but those only the manifest shows
 * (itemSettings), base URL and the values of the variables `${NAME}` replaced, and by the
 * generator's code: nothing else. A catalog page is rendered from the previews of the items it
 * lists, in order (each item's fingerprint with its id: items of one file share a fingerprint),
 * and from the settings (its cache hints).
 */
export function inputFingerprints(content: Content, linksOf: (item: Item) => Link[] | undefined, generator: string) {
  const context = sha1(
    JSON.stringify([
      generator,
      content.baseUrl ?? null,
      itemSettings(content.addon),
      content.config,
      content.configuration?.segment ?? null,
      content.variables,
    ]),
  );
  // Each part is worked out once: the large benchmark's 300,000 catalog listings share 51,000
  // items, which share 1,001 files and a few hundred lists of links.
  const sources = new Map<Item['source'], string>();
  const linkLists = new Map<Link[], string>();
  const items = new Map<FileOrigin, string>();
  const listings = new Map<Item, string>();
  const source = (of: Item['source']): string => {
    let key = sources.get(of);
    if (key === undefined) sources.set(of, (key = sha1(`${context}\0${of.relative}\0${textFingerprint(of)}`)));
    return key;
  };
  const item = (of: FileOrigin): string => {
    let key = items.get(of);
    if (key !== undefined) return key;
    const itemLinks = 'name' in of ? linksOf(of) : undefined;
    // A channel that several playlists list is rendered from each of them.
    const also = 'alsoFrom' in of && of.alsoFrom ? of.alsoFrom : [];
    const from = also.length === 0 ? source(of.source) : sha1([of.source, ...also].map(source).join('\0'));
    if (itemLinks) {
      let json = linkLists.get(itemLinks);
      if (json === undefined) linkLists.set(itemLinks, (json = JSON.stringify(itemLinks)));
      key = sha1(`${from}\0${json}`);
    } else {
      key = from;
    }
    items.set(of, key);
    return key;
  };
  const listing = (of: Item): string => {
    let line = listings.get(of);
    if (line === undefined) listings.set(of, (line = `${of.id}\0${item(of)}`));
    return line;
  };
  const page = (listed: readonly Item[]) => sha1(`catalog\0${context}\0${listed.map(listing).join('\n')}`);
  return { item, page };
}
