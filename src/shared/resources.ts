// The resources an addon offers, decided by its content: the manifest declares them (plan), and a
// `resources` list written in addon.yaml is checked against them (validate). An addon never
// declares a resource, a type or a prefix it has nothing for: the client would ask it for every
// such title, and a metadata addon installed after it would be asked second.
import { streamOwners, type Content, type FileOrigin, type Item, type StreamOwner } from './content.js';
import { coveringPrefixes, prefixCandidate, prefixMatcher } from './id-prefixes.js';
import type { Resource } from './paths.js';

export const RESOURCES = ['catalog', 'meta', 'stream', 'subtitles', 'addon_catalog'] as const satisfies readonly Resource[];

export interface OfferedResource {
  name: Resource;
  /** The types its requests may name, in the addon's order; empty for catalog (the client matches the catalog list). */
  types: string[];
  /** The prefixes its requests' ids start with; empty for catalog. */
  idPrefixes: string[];
  /** The titles that have it (their types and ids make the declaration): none for catalog. */
  titles: FileOrigin[];
}

type Offering = Pick<Content, 'types' | 'catalogs' | 'items' | 'externalTitles' | 'addonCatalogs'> & {
  /** The prefixes addon.yaml declares; derived when absent. */
  declaredPrefixes?: readonly string[];
};

/**
 * What the content offers, resource by resource, in the manifest's order, each for the types and
 * id prefixes of the titles that have it:
 * - catalog, when addon.yaml has catalogs;
 * - meta, for the titles this addon describes (items with a name);
 * - stream, for those and for the titles described elsewhere that it has streams for;
 * - subtitles, for the items, videos and titles described elsewhere that have subtitles;
 * - addon_catalog, when addon.yaml has addon collections (the client matches the collection list).
 * A resource holds one list of types and one of prefixes, so it also covers their other pairs
 * (the `pd:` ids of a movie type when only series have them): every id of a type and prefix a
 * resource declares gets its file (plan/item-files.ts), and other ids get the host's 404.
 */
export function offeredResources(content: Offering): OfferedResource[] {
  const offered: OfferedResource[] = [];
  if (content.catalogs.length > 0) offered.push({ name: 'catalog', types: [], idPrefixes: [], titles: [] });
  const { items, externalTitles, declaredPrefixes } = content;
  const add = (name: Resource, titles: FileOrigin[], prefixes: () => Set<string>) => {
    if (titles.length === 0) return;
    const present = new Set(titles.map((t) => t.type));
    const types = [...new Set([...content.types, ...present])].filter((t) => present.has(t));
    const candidates = prefixes();
    const idPrefixes = declaredPrefixes === undefined ? coveringPrefixes(candidates) : declaredPrefixes.filter((p) => candidates.has(p));
    offered.push({ name, types, idPrefixes, titles });
  };
  // The ids of a large addon are walked once for meta and stream, and once more for subtitles
  // only when some items have none.
  const described = prefixesOf(items, declaredPrefixes);
  const streaming = externalTitles.filter((t) => t.streams.length > 0);
  const subtitled = items.filter((item) => streamOwners(item).some((owner) => owner.subtitles.length > 0));
  const subtitledElsewhere = externalTitles.filter((t) => t.subtitles.length > 0);
  add('meta', items, () => described);
  add('stream', [...items, ...streaming], () => union(described, prefixesOf(streaming, declaredPrefixes)));
  add('subtitles', [...subtitled, ...subtitledElsewhere], () =>
    union(subtitled.length === items.length ? described : prefixesOf(subtitled, declaredPrefixes), prefixesOf(subtitledElsewhere, declaredPrefixes)),
  );
  if (content.addonCatalogs.length > 0) offered.push({ name: 'addon_catalog', types: [], idPrefixes: [], titles: [] });
  return offered;
}

/**
 * The prefixes of the titles' ids and their videos': derived ones (see prefixCandidate), or those
 * of the declared ones that start an id.
 */
function prefixesOf(titles: readonly FileOrigin[], declared: readonly string[] | undefined): Set<string> {
  const prefixes = new Set<string>();
  const matches = declared === undefined ? undefined : prefixMatcher(declared);
  for (const title of titles) {
    const elsewhere = !('name' in title);
    const add = (id: string) => {
      const prefix = matches ? matches(id) : prefixCandidate(id, elsewhere);
      if (prefix !== undefined) prefixes.add(prefix);
    };
    add(title.id);
    if ('videos' in title) for (const video of title.videos ?? []) add(video.id);
  }
  return prefixes;
}

function union<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a, ...b]);
}

/** The prefixes derived from the ids of titles this addon describes: what a title of its own starts with. */
export function describedPrefixes(items: readonly FileOrigin[]): string[] {
  return coveringPrefixes(prefixesOf(items, undefined));
}

/** Every id requests name for a title: its own and, for one this addon describes, its videos'. */
export function idsOf(title: { id: string; videos?: readonly { id: string }[] }): string[] {
  return title.videos ? [title.id, ...title.videos.map((v) => v.id)] : [title.id];
}

/** The prefixes of all the titles' ids (see offeredResources): the manifest's top-level idPrefixes. */
export function allPrefixes(titles: readonly FileOrigin[]): string[] {
  return coveringPrefixes(prefixesOf(titles, undefined));
}

/**
 * The manifest's `types` and `idPrefixes`: as addon.yaml declares them, else those of the
 * catalogs and titles, in the order they come. Validate works them out for the content, and plan
 * again for each configuration, which may have fewer.
 */
export function declaredTypesAndPrefixes(
  settings: { types?: string[]; idPrefixes?: string[] },
  catalogs: readonly { type: string }[],
  titles: readonly FileOrigin[],
): { types: string[]; idPrefixes: string[] } {
  return {
    types: settings.types ?? [...new Set([...catalogs.map((c) => c.type), ...titles.map((t) => t.type)])],
    idPrefixes: settings.idPrefixes ?? allPrefixes(titles),
  };
}

/** An item this addon describes or a title another describes, as what it offers is worked out from it. */
export type Offerer = Pick<FileOrigin, 'type' | 'id'> & StreamOwner & Partial<Pick<Item, 'videos' | 'name'>>;

/**
 * What an item or a title described elsewhere adds to what the content offers (offeredResources):
 * its type, which resources it is for (an item: meta and stream, and subtitles when it has some; a
 * title: stream and subtitles as it has them), and the prefixes its ids give, derived and of those
 * `declared`. An item or title added or removed beside another with the same key leaves the
 * resources of the manifest as they were (build/edit.ts), so long as the types come in the same
 * order. One function for the declared prefixes, called for every item of a whole build.
 */
export function offeringKeys(declared: readonly string[] | undefined): (value: Offerer) => string {
  const matches = declared && prefixMatcher(declared);
  return (value) => {
    const elsewhere = value.name === undefined;
    const derived = new Set<string>();
    const matched = new Set<string | undefined>();
    for (const id of idsOf(value)) {
      derived.add(prefixCandidate(id, elsewhere));
      if (matches) matched.add(matches(id));
    }
    const subtitled = streamOwners(value).some((owner) => owner.subtitles.length > 0);
    const resources = elsewhere ? [value.streams.length > 0, subtitled] : [subtitled];
    // Joined with control characters, which no type or id holds (validate/schema-leaves.ts): a JSON
    // text of each took most of a whole build's time for the keys (bench/README.md, "Items added or removed").
    const matchedList = matches ? [...matched].map((m) => m ?? '\u0002').sort() : [];
    return [value.type, elsewhere, ...resources, [...derived].sort().join('\u0000'), matchedList.join('\u0000')].join('\u0001');
  };
}
