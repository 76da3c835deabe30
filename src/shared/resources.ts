// The resources an addon offers, decided by its content: the manifest declares them (plan), and a
// `resources` list written in addon.yaml is checked against them (validate). An addon never
// declares a resource, a type or a prefix it has nothing for: the client would ask it for every
// such title, and a metadata addon installed after it would be asked second.
import { streamOwners, type Content, type FileOrigin } from './content.js';
import { coveringPrefixes, prefixCandidate, prefixMatcher } from './id-prefixes.js';
import type { Resource } from './paths.js';

export const RESOURCES = ['catalog', 'meta', 'stream', 'subtitles'] as const satisfies readonly Resource[];

export interface OfferedResource {
  name: Resource;
  /** The types its requests may name, in the addon's order; empty for catalog (the client matches the catalog list). */
  types: string[];
  /** The prefixes its requests' ids start with; empty for catalog. */
  idPrefixes: string[];
  /** The titles it is offered for: those of its types (none for catalog). */
  titles: FileOrigin[];
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
  if (content.catalogs.length > 0) offered.push({ name: 'catalog', types: [], idPrefixes: [], titles: [] });
  const { items, externalTitles } = content;
  const typesOf = (origins: Iterable<FileOrigin>) => {
    const present = new Set<string>();
    for (const origin of origins) present.add(origin.type);
    return [...new Set([...content.types, ...present])].filter((t) => present.has(t));
  };
  const add = (name: Resource, types: string[]) => {
    if (types.length === 0) return;
    const kinds = new Set(types);
    const described = items.filter((i) => kinds.has(i.type));
    const elsewhere = name === 'meta' ? [] : externalTitles.filter((t) => kinds.has(t.type));
    const idPrefixes = prefixesFor(
      described.flatMap(idsOf),
      elsewhere.map((t) => t.id),
      content.declaredPrefixes,
    );
    offered.push({ name, types, idPrefixes, titles: [...described, ...elsewhere] });
  };
  add('meta', typesOf(items));
  add('stream', typesOf([...items, ...externalTitles.filter((t) => t.streams.length > 0)]));
  const hasSubtitles = (origin: FileOrigin) =>
    'name' in origin ? streamOwners(origin).some((owner) => owner.subtitles.length > 0) : origin.subtitles.length > 0;
  add('subtitles', typesOf([...items, ...externalTitles].filter(hasSubtitles)));
  return offered;
}

/** Every id requests name for a title: its own and, for one this addon describes, its videos'. */
export function idsOf(title: FileOrigin): string[] {
  return 'videos' in title && title.videos ? [title.id, ...title.videos.map((v) => v.id)] : [title.id];
}

/**
 * The prefixes of a resource's ids: those of the declared ones that start one of its ids, or,
 * without a declaration, derived (see prefixCandidate).
 */
export function prefixesFor(described: readonly string[], elsewhere: readonly string[], declared?: readonly string[]): string[] {
  if (declared === undefined) {
    return coveringPrefixes([...described.map((id) => prefixCandidate(id)), ...elsewhere.map((id) => prefixCandidate(id, true))]);
  }
  const matches = prefixMatcher(declared);
  const used = new Set<string>();
  for (const id of [...described, ...elsewhere]) {
    const prefix = matches(id);
    if (prefix !== undefined) used.add(prefix);
  }
  return declared.filter((p) => used.has(p));
}
