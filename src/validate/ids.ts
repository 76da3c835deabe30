// Ids and prefixes: the declared prefixes checked against every id, and the scheme of the base URL
// the addon is installed from.
import { problem, type DiagnosticList, type RelatedLocation } from '../diagnostics/index.js';
import { installsOverPlainHttp, isLoopback } from '../shared/paths.js';
import type { Content, FileOrigin } from '../shared/content.js';
import { prefixMatcher } from '../shared/id-prefixes.js';
import { idsOf } from '../shared/resources.js';
import type { Locator } from './issues.js';

/** Every id must start with one of the idPrefixes addon.yaml declares: the client asks for no other. */
export function checkPrefixes(content: Content, at: Locator, diagnostics: DiagnosticList) {
  const declaration = { ...at(['idPrefixes']), message: 'the idPrefixes of the addon' };
  checkIdsCovered([...content.items, ...content.externalTitles], content.idPrefixes, declaration, undefined, diagnostics);
}

/**
 * Reports each id of `titles` (with their videos') that starts with none of `prefixes`, declared
 * at `declaration` (for `resource`, or for the whole addon); returns the prefixes some id starts with.
 */
export function checkIdsCovered(
  titles: readonly FileOrigin[],
  prefixes: readonly string[],
  declaration: RelatedLocation,
  resource: string | undefined,
  diagnostics: DiagnosticList,
): Set<string> {
  const matches = prefixMatcher(prefixes, true);
  const used = new Set<string>();
  const listed = prefixes.slice(0, 5).join(', ') + (prefixes.length > 5 ? ', …' : '');
  for (const title of titles) {
    for (const id of idsOf(title)) {
      const found = matches(id);
      for (const prefix of found) used.add(prefix);
      if (found.length > 0) continue;
      diagnostics.add(title.where.file, 'error', () =>
        problem('invalid-value', { kind: 'id-prefix', id, listed, resource }, { ...title.where(['id']), path: 'id', related: [declaration] }),
      );
    }
  }
  return used;
}

/**
 * The client refuses remote addons over plain HTTP; only the machine itself is exempt. `at` is
 * addon.yaml's locator when the base URL comes from there, undefined for `--base-url`.
 */
export function checkBaseUrlScheme(baseUrl: string | undefined, at: Locator | undefined, diagnostics: DiagnosticList) {
  if (baseUrl === undefined) return;
  const url = new URL(baseUrl);
  if (url.protocol === 'https:' || installsOverPlainHttp(url.hostname)) return;
  // localhost or [::1]: the same machine, by a name the apps refuse.
  const localName = url.protocol === 'http:' && isLoopback(url.hostname) ? url.hostname : undefined;
  diagnostics.push(
    problem('insecure-base-url', { baseUrl, inSettings: at !== undefined, localName }, at ? { ...at(['baseUrl']), path: 'baseUrl' } : {}),
  );
}

export function uniqueInOrder<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
