// Search answered for any query, as `addon-gen serve` previews it: the same lists, ranking and
// pages as the files plan writes for the queries a static host gets (catalog-pages.ts).
import { cacheHints } from '../hosts/index.js';
import { configurations, defaultConfiguration } from '../shared/configurations.js';
import type { Catalog, Content, Item } from '../shared/content.js';
import { SearchIndex } from '../shared/search.js';
import { PAGE_SIZE } from './catalog-pages.js';
import { configuredContent, configurationTree } from './configure.js';
import { envelope, genreLinks, metaPreview } from './wire.js';

/** A catalog search request: `{folder/}catalog/{type}/{id}/…search={query}….json`. */
export interface SearchRequest {
  /** The configuration's folder in a configurable addon; '' for the root. */
  folder: string;
  type: string;
  id: string;
  query: string;
  skip: number;
}

/**
 * The body of the page of results a search request asks for, or undefined when no catalog of the
 * tree declares search with that type and id. Each tree's catalogs are indexed when first asked.
 */
export function searchAnswers(content: Content): (request: SearchRequest) => string | undefined {
  const trees = new Map<string, Map<string, { index: SearchIndex<Item>; previewOf: (item: Item) => string }>>();
  const catalogEnvelope = envelope('metas', cacheHints(content, 'catalog'));
  return (request) => {
    let catalogs = trees.get(request.folder);
    if (!catalogs) trees.set(request.folder, (catalogs = searchableCatalogs(content, request.folder)));
    const found = catalogs.get(`${request.type}/${request.id}`);
    if (!found) return undefined;
    const listed = found.index.results(request.query).slice(request.skip, request.skip + PAGE_SIZE);
    return `${catalogEnvelope.open}[${listed.map(found.previewOf).join(',')}]${catalogEnvelope.close}`;
  };
}

/** The catalogs with search of one tree, by `type/id`: the root, or a configuration's folder. */
function searchableCatalogs(content: Content, folder: string) {
  const tree = treeContent(content, folder);
  const catalogs = new Map<string, { index: SearchIndex<Item>; previewOf: (item: Item) => string }>();
  if (!tree) return catalogs;
  const links = genreLinks(tree);
  const searched = tree.catalogs.filter((catalog): catalog is Catalog & Required<Pick<Catalog, 'search'>> => catalog.search !== undefined);
  for (const catalog of searched) {
    catalogs.set(`${catalog.type}/${catalog.id}`, {
      index: new SearchIndex(catalog.items, (item) => item.name),
      previewOf: (item) => JSON.stringify(metaPreview(item, links.get(item))),
    });
  }
  return catalogs;
}

/** The content of the tree at `folder`, as plan lays it out; undefined when there is none. */
function treeContent(content: Content, folder: string): Content | undefined {
  if (content.config.length === 0) return folder === '' ? content : undefined;
  if (folder === '') {
    // A root that must be configured first has nothing but its manifest.
    if (content.addon.behaviorHints?.configurationRequired === true) return undefined;
    return configuredContent(content, defaultConfiguration(content.config));
  }
  const configuration = configurations(content.config).find((c) => c.segment === folder);
  return configuration && configurationTree(content, configuration);
}
