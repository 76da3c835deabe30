// Titles another addon describes: an item without a name adds streams or subtitles to a title
// that Cinemeta (IMDb ids, tt…) or another metadata addon describes, by the id the client asks
// with. Whatever describes the title (videos, a catalog, a poster…) makes it a title this addon
// describes, which needs a name: the error says which, and what to write for either meaning.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import type { NameNeeded } from '../diagnostics/catalog-schema.js';
import type { SourceFile } from '../load/index.js';
import type { ExternalTitle, Item } from '../shared/content.js';
import { prefixCandidate } from '../shared/id-prefixes.js';
import type { Locator } from './issues.js';
import { streamsWithIds } from './items.js';
import type { CatalogSettings, ContentItem } from './schema.js';

/** The fields of an item without a name: how the client asks for the title, and what is added to it. */
const ADDED_FIELDS = new Set(['id', 'type', 'streams', 'subtitles']);

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
  return { id: item.id, type: item.type, streams, subtitles, where: at, source };
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
      { kind: 'name', because },
      { ...at([]), path: 'name', ...(related && { related: [{ ...related.at(related.path), message: related.message }] }) },
    ),
  );
}

/**
 * The titles described elsewhere, once every item is read: those that a catalog with `items: all`
 * would list are reported and left out (of its type, with an id that starts like those of the
 * titles the addon describes and that catalog lists, `pd:b` beside `pd:a`, they are far likelier
 * an item whose name was forgotten than a title described elsewhere), and so are those that add
 * nothing.
 */
export function titlesDescribedElsewhere(
  titles: ExternalTitle[],
  items: readonly Item[],
  settings: readonly CatalogSettings[],
  addonAt: Locator,
  diagnostics: DiagnosticList,
): ExternalTitle[] {
  const listsAll = new Map<string, number>();
  settings.forEach((catalog, index) => {
    if (catalog.items === 'all' && !listsAll.has(catalog.type)) listsAll.set(catalog.type, index);
  });
  const described = new Set<string>();
  for (const item of items) if (!item.catalogs && listsAll.has(item.type)) described.add(`${item.type}\0${prefixCandidate(item.id, true)}`);
  return titles.filter((title) => {
    const prefix = prefixCandidate(title.id, true);
    const adds = title.streams.length > 0 || title.subtitles.length > 0;
    const index = listsAll.get(title.type);
    const looksDescribed = described.has(`${title.type}\0${prefix}`);
    if (index !== undefined && (looksDescribed || !adds)) {
      const catalog = settings[index]!;
      const related = { at: addonAt, path: ['catalogs', index, 'id'], message: `catalog "${catalog.id}", which lists every ${catalog.type}` };
      const because = { reason: 'catalog-all', catalog: catalog.id, type: title.type, ...(looksDescribed && { prefix }) } as const;
      nameNeeded(because, title.where, diagnostics, related);
      return false;
    }
    if (adds) return true;
    diagnostics.add(title.where.file, 'error', () => problem('missing-field', { kind: 'nothing-added' }, { ...title.where([]), path: 'streams' }));
    return false;
  });
}
