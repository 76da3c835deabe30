// The resources an addon offers, decided by its content: the manifest declares them (plan), and a
// `resources` list written in addon.yaml is checked against them (validate). An addon never
// declares a resource, a type or a prefix it has nothing for: the client would ask it for every
// such title, and a metadata addon installed after it would be asked second.
import { streamOwners, type Content, type FileOrigin, type StreamOwner } from './content.js';
import { coveringPrefixes, prefixCandidate, prefixMatcher } from './id-prefixes.js';
import type { Resource } from './paths.js';

export const RESOURCES = ['catalog', 'meta', 'stream', 'subtitles'] as const satisfies readonly Resource[];

export interface OfferedResource {
  name: Resource;
  /** The types its requests may name, in the addon's order; empty for catalog (the client matches the catalog list). */
  types: string[];
  /** The prefixes its requests' ids start with; empty for catalog. */
  idPrefixes: string[];
  /** The titles it is offered for: those of its types (none for catalog). Made when asked for. */
  titles(): FileOrigin[];
}

type Offering = Pick<Content, 'types' | 'catalogs' | 'items' | 'externalTitles'> & {
  /** The prefixes addon.yaml declares; derived when absent. */
  declaredPrefixes?: readonly string[];
};

/**
 * What the content offers, resource by resource, in the manifest's order:
 * - catalog, when addon.yaml has catalogs;
 * - meta, for the titles this addon describes (items with a name);
 * - stream, for those and for the titles described elsewhere that it has streams for;
 * - subtitles, for the types some item, video or title described elsewhere has subtitles for.
 * Each type a resource declares gets a file for every one of its ids (plan/item-files.ts).
 */
export function offeredResources(content: Offering): OfferedResource[] {
  const offered: OfferedResource[] = [];
  if (content.catalogs.length > 0) offered.push({ name: 'catalog', types: [], idPrefixes: [], titles: () => [] });
  const { items, externalTitles } = content;
  // The prefixes of each type's ids, worked out once for the three resources: a large addon has
  // a hundred thousand ids.
  const described = prefixesByType(items, content.declaredPrefixes);
  const elsewhere = prefixesByType(externalTitles, content.declaredPrefixes);
  const typesOf = (...lists: readonly FileOrigin[][]) => {
    const present = new Set<string>();
    for (const list of lists) for (const origin of list) present.add(origin.type);
    return [...new Set([...content.types, ...present])].filter((t) => present.has(t));
  };
  const add = (name: Resource, types: string[]) => {
    if (types.length === 0) return;
    const kinds = new Set(types);
    const candidates = new Set<string>();
    for (const type of types) {
      for (const prefix of described.get(type) ?? []) candidates.add(prefix);
      if (name !== 'meta') for (const prefix of elsewhere.get(type) ?? []) candidates.add(prefix);
    }
    const declared = content.declaredPrefixes;
    const idPrefixes = declared === undefined ? coveringPrefixes(candidates) : declared.filter((p) => candidates.has(p));
    const titles = () => [...items.filter((i) => kinds.has(i.type)), ...(name === 'meta' ? [] : externalTitles.filter((t) => kinds.has(t.type)))];
    offered.push({ name, types, idPrefixes, titles });
  };
  add('meta', typesOf(items));
  add(
    'stream',
    typesOf(
      items,
      externalTitles.filter((t) => t.streams.length > 0),
    ),
  );
  const withSubtitles = (owners: readonly StreamOwner[]) => owners.some((owner) => owner.subtitles.length > 0);
  add(
    'subtitles',
    typesOf(
      items.filter((item) => withSubtitles(streamOwners(item))),
      externalTitles.filter((title) => withSubtitles([title])),
    ),
  );
  return offered;
}

/**
 * Per type, the prefixes of the titles' ids: derived ones (see prefixCandidate), or those of the
 * declared ones that start an id.
 */
function prefixesByType(titles: readonly FileOrigin[], declared: readonly string[] | undefined): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>();
  const matches = declared === undefined ? undefined : prefixMatcher(declared);
  for (const title of titles) {
    let prefixes = byType.get(title.type);
    if (!prefixes) byType.set(title.type, (prefixes = new Set()));
    const elsewhere = !('name' in title);
    const add = (id: string) => {
      const prefix = matches ? matches(id) : prefixCandidate(id, elsewhere);
      if (prefix !== undefined) prefixes.add(prefix);
    };
    add(title.id);
    if ('videos' in title) for (const video of title.videos ?? []) add(video.id);
  }
  return byType;
}

/** Every id requests name for a title: its own and, for one this addon describes, its videos'. */
export function idsOf(title: FileOrigin): string[] {
  return 'videos' in title && title.videos ? [title.id, ...title.videos.map((v) => v.id)] : [title.id];
}

/** The prefixes of all the titles' ids (see offeredResources): the manifest's top-level idPrefixes. */
export function allPrefixes(titles: readonly FileOrigin[]): string[] {
  const candidates = new Set<string>();
  for (const prefixes of prefixesByType(titles, undefined).values()) for (const prefix of prefixes) candidates.add(prefix);
  return coveringPrefixes(candidates);
}
