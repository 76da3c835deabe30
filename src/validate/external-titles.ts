// Titles another addon describes: an item without a name adds streams or subtitles to a title
// that Cinemeta (IMDb ids, tt…) or another metadata addon describes, by the id the client asks
// with. Whatever describes the title (videos, a catalog, a poster…) makes it a title this addon
// describes, which needs a name: the error says which, and what to write for either meaning.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import type { NameNeeded } from '../diagnostics/catalog-schema.js';
import type { SourceFile } from '../load/index.js';
import type { ExternalTitle, Item } from '../shared/content.js';
import { prefixMatcher } from '../shared/id-prefixes.js';
import { describedPrefixes } from '../shared/resources.js';
import { inTable, type Locator } from './issues.js';
import { streamsWithIds } from './items.js';
import type { CatalogSettings, ContentItem } from './schema.js';

/** The fields of an item without a name: how the client asks for the title, and what is added to it. */
const ADDED_FIELDS = new Set(['id', 'type', 'streams', 'subtitles', 'when']);

/**
 * An item without a name as a title described elsewhere; undefined, with an error, when
 * something in it describes the title.
 */
export function externalTitle(item: ContentItem, at: Locator, source: SourceFile, diagnostics: DiagnosticList): ExternalTitle | undefined {
  const because = describedBy(item);
  if (because) {
    nameNeeded(because, at, diagnostics);
    return undefined;
  }
  const { streams, subtitles } = streamsWithIds(item);
  return { id: item.id, type: item.type, streams, subtitles, where: at, source, ...(item.when && { when: item.when }) };
}

/** What in an item without a name describes the title, if anything. */
function describedBy(item: ContentItem): NameNeeded | undefined {
  if (item.videos) return { reason: 'videos' };
  const catalog = item.catalogs?.[0];
  if (catalog !== undefined) return { reason: 'catalog', catalog };
  const field = Object.entries(item).find(([key, value]) => !ADDED_FIELDS.has(key) && value !== undefined)?.[0];
  return field === undefined ? undefined : { reason: 'field', field };
}

function nameNeeded(
  because: NameNeeded,
  at: Locator,
  diagnostics: DiagnosticList,
  related?: { at: Locator; path: (string | number)[]; message: string },
) {
  diagnostics.add(at.file, 'error', () =>
    problem(
      'missing-field',
      { kind: 'name', because, table: inTable(at) },
      // At the name: a table's empty name cell; the mapping that lacks it in YAML.
      { ...at(['name']), path: 'name', ...(related && { related: [{ ...related.at(related.path), message: related.message }] }) },
    ),
  );
}

/**
 * The titles described elsewhere, once every item is read, without those reported here: one
 * whose id starts like those of the titles the addon describes (`pd:b` beside `pd:a`) is far
 * likelier an item whose name was forgotten; so is one of a type that a catalog with `items: all`
 * lists, when it adds nothing or the catalog would list nothing without it. One that adds
 * nothing is an error in any case.
 */
export function titlesDescribedElsewhere(
  titles: ExternalTitle[],
  items: readonly Item[],
  settings: readonly CatalogSettings[],
  addonAt: Locator,
  diagnostics: DiagnosticList,
): ExternalTitle[] {
  if (titles.length === 0) return titles;
  const listsAll = new Map<string, number>();
  settings.forEach((catalog, index) => {
    if (catalog.items === 'all' && !listsAll.has(catalog.type)) listsAll.set(catalog.type, index);
  });
  const describedTypes = new Set(items.map((item) => item.type));
  const describedLike = prefixMatcher(describedPrefixes(items));
  return titles.filter((title) => {
    const adds = title.streams.length > 0 || title.subtitles.length > 0;
    const prefix = describedLike(title.id);
    if (prefix !== undefined) {
      const like = items.find((item) => item.id.startsWith(prefix))!;
      const related = { at: like.where, path: ['id'], message: `"${like.id}", a title this addon describes` };
      nameNeeded({ reason: 'described-prefix', prefix, like: like.id }, title.where, diagnostics, related);
      return false;
    }
    const index = listsAll.get(title.type);
    const why = !adds ? 'nothing-added' : describedTypes.has(title.type) ? undefined : 'empty';
    if (index !== undefined && why !== undefined) {
      const catalog = settings[index]!;
      const related = { at: addonAt, path: ['catalogs', index, 'id'], message: `catalog "${catalog.id}", which lists every ${catalog.type}` };
      nameNeeded({ reason: 'catalog-all', catalog: catalog.id, type: title.type, why }, title.where, diagnostics, related);
      return false;
    }
    if (adds) return true;
    diagnostics.add(title.where.file, 'error', () =>
      problem('missing-field', { kind: 'nothing-added', table: inTable(title.where) }, { ...title.where([]), path: 'streams' }),
    );
    return false;
  });
}
