// Output size: measured before anything is laid out, so that hostile content that asks for
// millions of files is refused before the list of them fills memory.
import { problem, type Diagnostic, type LargestSource, type Location } from '../diagnostics/index.js';
import { outputLimit } from '../shared/output-limit.js';
import { streamOwners, type Catalog, type Content, type Item, type StreamOwner, type Subtitle } from '../shared/content.js';
import { PAGE_SIZE, type CatalogList } from './catalog-pages.js';
import type { ItemRendering } from './item-files.js';
import type { Envelope } from './wire.js';

/** What the size of a plan is worked out from, before its files are laid out. */
export interface Layout {
  content: Content;
  /** The lists each catalog's pages are written for (catalogLists). */
  lists: ReadonlyMap<Catalog, readonly CatalogList[]>;
  /** The bytes of an item's preview, rendered once for the pages too. */
  previewSize: (item: Item) => number;
  catalogEnvelope: Envelope;
  envelopes: ItemRendering['envelopes'];
  manifestBytes: number;
  /**
   * How many trees like this one are written: a configurable addon's root and configurations,
   * each at most the content's whole tree. Default 1.
   */
  trees?: number;
  /** The bytes of each tree's pages, which a configurable addon writes in every tree. */
  pageBytes?: number;
}

interface Size {
  files: number;
  bytes: number;
}

/** One list of a catalog's pages: the whole catalog, a genre, a search query. */
interface Filter {
  members: readonly Item[];
  /** Files per later page: a genre's or a query's later pages are written in both orders of extras. */
  orders: number;
}

function filtersOf(lists: readonly CatalogList[]): Filter[] {
  return lists.map(({ extra, members }) => ({ members, orders: extra ? 2 : 1 }));
}

/** The files of a filter's pages, as catalogPages lays them out: the first, then the later in their orders. */
function filterFiles({ members, orders }: Filter): number {
  return 1 + Math.max(1, Math.ceil(members.length / PAGE_SIZE)) * orders;
}

/** How often a filter's member at `index` is listed: once on the first page, once per order later. */
const listings = (index: number, orders: number) => (index < PAGE_SIZE ? 1 : orders);

/**
 * At least what an item's own files take: its meta holds its preview, each stream file the
 * subtitles of its owner in every stream that has none of its own, each subtitles file those
 * subtitles. Rendering them to measure would render most of the output twice.
 */
function itemFilesSize(item: Item, previewBytes: number, envelopes: Layout['envelopes']): Size {
  return ownerFilesSize(streamOwners(item), { files: 1, bytes: wrapped(envelopes.meta, previewBytes) }, envelopes);
}

const wrapped = ({ open, close }: Envelope, bytes: number) => open.length + bytes + close.length;

/** `size` and at least what the stream and subtitles files of `owners` take. */
function ownerFilesSize(owners: readonly StreamOwner[], size: Size, envelopes: Layout['envelopes'], streamFiles = true): Size {
  for (const owner of owners) {
    const ownerSubtitles = subtitlesSize(owner.subtitles);
    let streams = 2;
    for (const stream of owner.streams) {
      const embedded = stream.subtitles?.length ? subtitlesSize(stream.subtitles) : ownerSubtitles;
      streams += 2 + (embedded > 0 ? embedded + ',"subtitles":[]'.length : 0);
    }
    if (streamFiles) {
      size.files++;
      size.bytes += wrapped(envelopes.stream, streams);
    }
    if (owner.subtitles.length > 0) {
      size.files++;
      size.bytes += wrapped(envelopes.subtitles, 2 + ownerSubtitles);
    }
  }
  return size;
}

/** At least the bytes of subtitles as JSON: `{"id":"…","lang":"…","url":"…"}` each. */
function subtitlesSize(subtitles: readonly Subtitle[]): number {
  let bytes = 0;
  for (const s of subtitles) bytes += '{"id":"","lang":"","url":""}'.length + s.id.length + s.lang.length + s.url.length;
  return bytes;
}

/**
 * The output-too-large error when the plan would write more than OUTPUT_LIMIT allows, located
 * where most of it comes from; undefined otherwise. Catalog pages and the manifest are counted
 * exactly, item files by what they hold at least, the pages and host files not at all: their
 * size does not grow with the content.
 */
export function outputTooLarge(layout: Layout): Diagnostic | undefined {
  const { content, lists, previewSize, catalogEnvelope, envelopes } = layout;
  const pageBytes = catalogEnvelope.open.length + '[]'.length + catalogEnvelope.close.length;
  const size: Size = { files: 1, bytes: layout.manifestBytes };
  for (const ofCatalog of lists.values()) {
    for (const filter of filtersOf(ofCatalog)) {
      const files = filterFiles(filter);
      size.files += files;
      size.bytes += files * pageBytes;
      filter.members.forEach((item, index) => (size.bytes += previewSize(item) * listings(index, filter.orders)));
    }
  }
  for (const item of content.items) {
    const own = itemFilesSize(item, previewSize(item), envelopes);
    size.files += own.files;
    size.bytes += own.bytes;
  }
  // A title described elsewhere has a stream file when it has streams, and maybe `[]` otherwise.
  for (const title of content.externalTitles) ownerFilesSize([title], size, envelopes, title.streams.length > 0);
  const trees = layout.trees ?? 1;
  if (layout.pageBytes) {
    size.files += 2;
    size.bytes += layout.pageBytes;
  }
  size.files *= trees;
  size.bytes *= trees;
  const input = content.textBytes;
  // Configurations multiply the output as the publisher chose, within maxConfigurations. Real
  // addons write a few times their content, so even 64 trees of one stay far below what one may
  // write: configurations may write CONFIGURED_OUTPUT_FACTOR times that, no more, however many.
  const limit: Size = scaled(outputLimit(input), Math.min(trees, CONFIGURED_OUTPUT_FACTOR));
  const overBytes = size.bytes > limit.bytes;
  if (!overBytes && size.files <= limit.files) return undefined;

  const source = largestSource(layout, pageBytes, overBytes ? 'bytes' : 'files');
  const place = source.path === undefined ? source.at : { ...source.at, path: source.path };
  return problem('output-too-large', { kind: 'output', size, input, limit, overBytes, source: source.words }, place);
}

/** At least the bytes of a listing on a page: `{"id":"…","type":"…","name":"…"}`, each field one character or more. */
const LISTING_BYTES = '{"id":"","type":"","name":""}'.length + 3;

/**
 * The search results a tree's lists may hold (catalog-pages.ts, SearchBudget): more results than
 * this are more bytes than `trees` such trees may write, whatever else the output holds.
 */
export function searchBudget(content: Content, trees: number): number {
  const limit = (outputLimit(content.textBytes).bytes * Math.min(trees, CONFIGURED_OUTPUT_FACTOR)) / trees;
  return Math.ceil(limit / LISTING_BYTES) + 1;
}

/** How many times what an addon without configurations may write, a configurable one may. */
export const CONFIGURED_OUTPUT_FACTOR = 8;

function scaled(size: Size, factor: number): Size {
  return { files: size.files * factor, bytes: size.bytes * factor };
}

/** What contributes most of the bytes (or files) of the output, and where it is written. */
function largestSource(
  layout: Layout,
  pageBytes: number,
  measure: keyof Size,
): { at: Partial<Location>; path: string | undefined; words: LargestSource } {
  const { content, lists, previewSize, envelopes } = layout;
  // Items by their listings on catalog pages and by their own files, catalogs by their pages'
  // own bytes and files: the largest of these is where the output can be made smaller.
  const listed = new Map<Item, { bytes: number; pages: number }>();
  let catalog: { of: Catalog; size: Size } | undefined;
  for (const [of, ofCatalog] of lists) {
    const size: Size = { files: 0, bytes: 0 };
    for (const filter of filtersOf(ofCatalog)) {
      const files = filterFiles(filter);
      size.files += files;
      size.bytes += files * pageBytes;
      filter.members.forEach((item, index) => {
        const pages = listings(index, filter.orders);
        const entry = listed.get(item) ?? { bytes: 0, pages: 0 };
        entry.bytes += previewSize(item) * pages;
        entry.pages += pages;
        listed.set(item, entry);
      });
    }
    if (!catalog || size[measure] > catalog.size[measure]) catalog = { of, size };
  }
  let item: { of: Item; own: Size; listed: { bytes: number; pages: number } } | undefined;
  const total = (i: NonNullable<typeof item>) => i.own[measure] + (measure === 'bytes' ? i.listed.bytes : 0);
  for (const of of content.items) {
    const candidate = { of, own: itemFilesSize(of, previewSize(of), envelopes), listed: listed.get(of) ?? { bytes: 0, pages: 0 } };
    if (!item || total(candidate) > total(item)) item = candidate;
  }
  if (catalog && (!item || catalog.size[measure] >= total(item))) {
    const { of, size } = catalog;
    const genres = of.genres.length;
    return {
      at: of.where(genres > 0 ? ['genres'] : ['id']),
      // Its place among the settings: two catalogs of one type and id are an error, so none is left out.
      path: `catalogs[${content.catalogs.indexOf(of)}].${genres > 0 ? 'genres' : 'id'}`,
      words: { kind: 'catalog', size, genres, queries: lists.get(of)!.filter((list) => list.extra?.[0] === 'search').length },
    };
  }
  if (!item) return { at: {}, path: undefined, words: { kind: 'manifest' } };
  const { of, own, listed: on } = item;
  const genres = of.genres?.length ?? 0;
  if (measure === 'bytes' && on.bytes >= own.bytes) {
    return {
      at: of.where(genres > 0 ? ['genres'] : ['id']),
      path: genres > 0 ? 'genres' : 'id',
      words: { kind: 'listed', pages: on.pages, bytes: on.bytes, preview: previewSize(of), genres, links: content.baseUrl !== undefined },
    };
  }
  return {
    at: of.where(['id']),
    path: 'id',
    words: { kind: 'own', size: own },
  };
}
