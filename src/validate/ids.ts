// Ids and prefixes: the prefixes the manifest declares, derived or checked against every id, and
// the scheme of the base URL the addon is installed from.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import { isLoopback } from '../shared/paths.js';
import type { Content, Item } from '../shared/content.js';
import type { Locator } from './issues.js';

export function idsOf(item: Item): string[] {
  return [item.id, ...(item.videos ?? []).map((v) => v.id)];
}

/**
 * The shortest set of prefixes that covers every id: the part up to the first `:` where there is
 * one (`pd:nosferatu` -> `pd:`), the id itself otherwise; prefixes covered by others are dropped.
 */
export function derivePrefixes(ids: readonly string[]): string[] {
  const candidates = uniqueInOrder(
    ids.map((id) => {
      const colon = id.indexOf(':');
      return colon > 0 ? id.slice(0, colon + 1) : id;
    }),
  ).sort();
  // Sorted, the strings that start with a prefix follow it, so one look back at the last kept
  // suffices: comparing every pair is quadratic, and took tens of seconds for 100,000 ids (figures:
  // bench/README.md, 'Id prefixes sorted').
  const kept: string[] = [];
  for (const candidate of candidates) {
    if (kept.length === 0 || !candidate.startsWith(kept[kept.length - 1]!)) kept.push(candidate);
  }
  return kept;
}

export function checkPrefixes(content: Content, at: Locator, diagnostics: DiagnosticList) {
  // An id's starts of each length a prefix has, looked up: comparing every id with every prefix
  // takes ids times prefixes.
  // Shortest first: no prefix longer than the id can start it, and ids are short.
  const prefixes = new Set(content.idPrefixes);
  const lengths = [...new Set(content.idPrefixes.map((p) => p.length))].sort((a, b) => a - b);
  const listed = content.idPrefixes.slice(0, 5).join(', ') + (content.idPrefixes.length > 5 ? ', …' : '');
  const covered = (id: string) => {
    for (const length of lengths) {
      if (length > id.length) return false;
      if (prefixes.has(id.slice(0, length))) return true;
    }
    return false;
  };
  for (const item of content.items) {
    for (const id of idsOf(item)) {
      if (covered(id)) continue;
      diagnostics.add(item.where.file, 'error', () =>
        problem(
          'invalid-value',
          { kind: 'id-prefix', id, listed },
          { ...item.where(['id']), path: 'id', related: [{ ...at(['idPrefixes']), message: 'the idPrefixes of the addon' }] },
        ),
      );
    }
  }
}

/**
 * The client refuses remote addons over plain HTTP; only the machine itself is exempt. `at` is
 * addon.yaml's locator when the base URL comes from there, undefined for `--base-url`.
 */
export function checkBaseUrlScheme(baseUrl: string | undefined, at: Locator | undefined, diagnostics: DiagnosticList) {
  if (baseUrl === undefined) return;
  const url = new URL(baseUrl);
  if (url.protocol === 'https:' || isLoopback(url.hostname)) return;
  diagnostics.push(problem('insecure-base-url', { baseUrl, inSettings: at !== undefined }, at ? { ...at(['baseUrl']), path: 'baseUrl' } : {}));
}

export function uniqueInOrder<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
