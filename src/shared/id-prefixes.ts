// Id prefixes: the client asks an addon for a meta, stream or subtitles only when the id starts
// with one of the resource's `idPrefixes`. Validate checks declared ones against the ids, and the
// manifest derives them; both use these.

/**
 * What a title's id contributes to derived prefixes. For a title this addon describes: the part
 * up to the first `:` (`pd:nosferatu` -> `pd:`), the id itself otherwise, so that the client
 * asks it about its own ids only. For a title another addon describes, the ids are that addon's
 * scheme: an IMDb id (`tt0032599`, `tt0034167:1:1`) gives `tt`, as Cinemeta declares it; a
 * stream addon for thousands of IMDb titles could not list each (the manifest stays under 8 KB).
 */
export function prefixCandidate(id: string, describedElsewhere = false): string {
  if (describedElsewhere && /^tt\d/.test(id)) return 'tt';
  const colon = id.indexOf(':');
  return colon > 0 ? id.slice(0, colon + 1) : id;
}

/**
 * The shortest set of prefixes that covers every id (see prefixCandidate); prefixes covered by
 * others are dropped.
 */
export function derivePrefixes(ids: readonly string[]): string[] {
  return coveringPrefixes(ids.map((id) => prefixCandidate(id)));
}

/** The candidates, sorted, without those that start with another candidate. */
export function coveringPrefixes(candidates: Iterable<string>): string[] {
  const sorted = [...new Set(candidates)].sort();
  // Sorted, the strings that start with a prefix follow it, so one look back at the last kept
  // suffices: comparing every pair is quadratic, and took tens of seconds for 100,000 ids (figures:
  // bench/README.md, 'Id prefixes sorted').
  const kept: string[] = [];
  for (const candidate of sorted) {
    if (kept.length === 0 || !candidate.startsWith(kept[kept.length - 1]!)) kept.push(candidate);
  }
  return kept;
}

/**
 * The shortest of `prefixes` that starts an id, or, with `all`, every one that does. An id's
 * starts of each length a prefix has are looked up: comparing every id with every prefix takes
 * ids times prefixes.
 */
export function prefixMatcher(prefixes: readonly string[]): (id: string) => string | undefined;
export function prefixMatcher(prefixes: readonly string[], all: true): (id: string) => string[];
export function prefixMatcher(prefixes: readonly string[], all = false): (id: string) => string | string[] | undefined {
  const set = new Set(prefixes);
  // Shortest first: no prefix longer than the id can start it, and ids are short.
  const lengths = [...new Set(prefixes.map((p) => p.length))].sort((a, b) => a - b);
  return (id) => {
    const found: string[] = [];
    for (const length of lengths) {
      if (length > id.length) break;
      const start = id.slice(0, length);
      if (!set.has(start)) continue;
      if (!all) return start;
      found.push(start);
    }
    return all ? found : undefined;
  };
}
