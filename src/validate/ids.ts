// Ids and prefixes: the declared prefixes checked against every id, and the scheme of the base URL
// the addon is installed from.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import { isLoopback } from '../shared/paths.js';
import type { Content, FileOrigin } from '../shared/content.js';
import { prefixMatcher } from '../shared/id-prefixes.js';
import { idsOf } from '../shared/resources.js';
import type { Locator } from './issues.js';

/** Every id must start with one of the idPrefixes addon.yaml declares: the client asks for no other. */
export function checkPrefixes(content: Content, at: Locator, diagnostics: DiagnosticList) {
  const covered = prefixMatcher(content.idPrefixes);
  const listed = content.idPrefixes.slice(0, 5).join(', ') + (content.idPrefixes.length > 5 ? ', …' : '');
  const check = (title: FileOrigin, id: string) => {
    if (covered(id) !== undefined) return;
    diagnostics.add(title.where.file, 'error', () =>
      problem(
        'invalid-value',
        { kind: 'id-prefix', id, listed },
        { ...title.where(['id']), path: 'id', related: [{ ...at(['idPrefixes']), message: 'the idPrefixes of the addon' }] },
      ),
    );
  };
  for (const item of content.items) for (const id of idsOf(item)) check(item, id);
  for (const title of content.externalTitles) check(title, title.id);
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
