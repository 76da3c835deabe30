// Stage 3, plan: a pure function from checked content to the list of files the addon consists of.
// Every decision about paths, pages, key order and bodies is made here; nothing touches the disk.
import { hash } from 'node:crypto';
import { DiagnosticList, type Diagnostic } from '../diagnostics/index.js';
import {
  cacheHints,
  hasRewrites,
  headerRules,
  HOSTS,
  notFoundPages,
  renderHeadersFile,
  renderRedirectsFile,
  renderS3Cors,
  renderS3Upload,
  renderVercelJson,
  REWRITES,
  type Host,
} from '../hosts/index.js';
import type { SourceFile } from '../load/index.js';
import { byteSize, OUTPUT_LIMIT, outputLimit } from '../shared/output-limit.js';
import { renderPages, type PageTemplates } from './page.js';
import { discoverGenreLink, extrasName, MANIFEST_FILE, resourcePath, subtitlesRequestExtras, type Extra } from '../shared/paths.js';
import type {
  CacheHints,
  ExtraProp,
  Manifest,
  ManifestCatalog,
  ManifestResource,
  MetaItem,
  MetaItemPreview,
  ResourceName,
  Stream as WireStream,
  Subtitle as WireSubtitle,
  Video as WireVideo,
} from '../validate/schema.js';
import { fileNameProblem } from '../validate/schema.js';
import { streamOwners, type Catalog, type Content, type Item, type Stream, type StreamOwner, type Subtitle, type Video } from '../validate/index.js';

/** Items per catalog page; the client asks for the next page at `skip=<items so far>`. */
export const PAGE_SIZE = 100;
/** The official SDK refuses larger manifests. */
export const MANIFEST_LIMIT_BYTES = 8 * 1024;

export interface OutputFile {
  /** Path below the output folder, forward slashes, decoded (as static hosts look files up). */
  path: string;
  resource: ResourceName | 'asset' | 'page' | 'host';
  /**
   * The text of a generated file, or a function that renders it: bodies are rendered as they are
   * written, so that memory holds the files in flight, not the whole addon.
   */
  body?: string | (() => string);
  /** The content file that an asset is a copy of. */
  copyFrom?: string;
  /** The item that produced the file, for conflict reports (located only when reported). */
  origin?: Item;
  /**
   * A fingerprint of everything the body is rendered from. When a rebuild finds the one it
   * recorded for this path last time, it keeps the file without rendering it again.
   */
  inputs?: string;
}

export interface PlanOptions {
  /** Hosts whose rule files to write; default all. */
  hosts?: readonly Host[];
  /** Page templates; without them no pages are written. */
  templates?: PageTemplates;
  /** For the S3 upload script: the output folder as seen from the S3 folder. */
  outFromS3Dir?: string;
  /**
   * A fingerprint of the code that renders bodies. With it, item files get `inputs`; without
   * it, nothing says that a rebuild may skip rendering them.
   */
  generator?: string;
}

export interface Plan {
  /** Empty when the output would be too large (output-too-large): such a plan is not laid out. */
  files: OutputFile[];
  /** Files for the S3 folder, outside the published tree; empty unless S3 is a chosen host. */
  s3Files: OutputFile[];
  manifest: Manifest;
  diagnostics: Diagnostic[];
}

export function plan(content: Content, options: PlanOptions = {}): Plan {
  const files: OutputFile[] = [];
  // Worked out when first needed: by the first preview, measured before anything is laid out.
  let links: Map<Item, Link[]> | undefined;
  const linksOf = (item: Item) => (links ??= genreLinks(content)).get(item);
  const cache = (resource: ResourceName) => cacheHints(content, resource);

  const manifest = buildManifest(content);
  // The manifest is the object itself, without an envelope or cache hints.
  const manifestBody = JSON.stringify(manifest);
  files.push({ path: MANIFEST_FILE, resource: 'manifest', body: manifestBody });

  const fingerprints = options.generator === undefined ? undefined : inputFingerprints(content, linksOf, options.generator);
  // Rendered once per item, when the output is measured (below), and used by the pages that list
  // it. An item is on several pages, so previews are kept until every page has been rendered once
  // (write renders the pages first), then forgotten: those of the large benchmark take 39 MB
  // (measured). A page rendered again after that (a file written twice, a caller's second look)
  // only renders them again.
  const previews = new Map<Item, string>();
  const previewOf = (item: Item) => {
    let preview = previews.get(item);
    if (preview === undefined) previews.set(item, (preview = JSON.stringify(metaPreview(item, linksOf(item)))));
    return preview;
  };
  let pagesToRender = 0;
  const rendered = () => {
    if (--pagesToRender === 0) previews.clear();
  };
  const catalogEnvelope = envelope('metas', cache('catalog'));
  const rendering: ItemRendering = {
    linksOf,
    envelopes: { meta: envelope('meta', cache('meta')), stream: envelope('streams', cache('stream')), subtitles: envelope('subtitles', cache('subtitles')) },
  };

  // Measured before anything is laid out: hostile content can ask for millions of pages, and
  // the list of them would fill memory before a limit on it was checked. The previews it
  // renders to measure pages are the ones the pages are rendered from.
  const byGenre = new Map(content.catalogs.map((catalog) => [catalog, membersByGenre(catalog)]));
  const previewBytes = new Map<Item, number>();
  const previewSize = (item: Item) => {
    let bytes = previewBytes.get(item);
    if (bytes === undefined) previewBytes.set(item, (bytes = Buffer.byteLength(previewOf(item))));
    return bytes;
  };
  const layout: Layout = { content, byGenre, previewSize, catalogEnvelope, envelopes: rendering.envelopes, manifestBytes: Buffer.byteLength(manifestBody) };
  const tooLarge = outputTooLarge(layout);
  if (tooLarge) return { files: [], s3Files: [], manifest, diagnostics: [tooLarge] };

  for (const [catalog, groups] of byGenre) {
    const filters: (Extra | undefined)[] = [undefined, ...catalog.genres.map((g): Extra => ['genre', g])];
    for (const genre of filters) {
      const members = genre ? (groups.get(genre[1]) ?? []) : catalog.items;
      for (const { skip, extras: orders } of catalogPages(members.length, genre)) {
        const listed = members.slice(skip, skip + PAGE_SIZE);
        // The page's files in both extra orders hold the same text: rendered for the first of
        // them, and the same string handed to the other (write then encodes and hashes it once).
        let text: string | undefined;
        let toHand = 0;
        const body = () => {
          if (toHand === 0) {
            text = `${catalogEnvelope.open}[${listed.map(previewOf).join(',')}]${catalogEnvelope.close}`;
            toHand = orders.length;
            rendered();
          }
          const handed = text!;
          if (--toHand === 0) text = undefined;
          return handed;
        };
        const inputs = fingerprints?.page(listed);
        for (const extras of orders) {
          files.push({ path: resourcePath('catalog', catalog.type, catalog.id, extras), resource: 'catalog', body, inputs });
        }
        pagesToRender++;
      }
    }
  }

  // Every id of a type the manifest declares subtitles for gets a subtitles file, `[]` when it
  // has none: the player asks for the subtitles of every video it opens, and a 404 is a failure.
  const subtitleTypes = new Set(subtitlesTypes(manifest));
  for (const item of content.items) {
    const inputs = fingerprints?.item(item);
    const file = (resource: ItemFile['resource'], owner: StreamOwner, extras: readonly Extra[] = []) => {
      files.push(new ItemFile(resourcePath(resource, item.type, owner.id, extras), resource, item, owner, inputs, rendering));
    };
    file('meta', item);
    for (const owner of streamOwners(item)) {
      file('stream', owner);
      if (!subtitleTypes.has(item.type)) continue;
      file('subtitles', owner);
      for (const extras of playerSubtitlesExtras(owner)) file('subtitles', owner, extras);
    }
  }

  for (const asset of content.assets) files.push({ path: asset.path, resource: 'asset', copyFrom: asset.source });

  if (options.templates) {
    for (const page of renderPages(options.templates, manifest, content.baseUrl)) files.push({ ...page, resource: 'page' });
  }
  const hosts = options.hosts ?? HOSTS;
  const rules = headerRules(content);
  const hostFile = (path: string, body: string) => files.push({ path, resource: 'host', body });
  if (hosts.includes('cloudflare') || hosts.includes('netlify')) {
    hostFile('_headers', renderHeadersFile(rules));
    hostFile('_redirects', renderRedirectsFile(REWRITES));
  }
  if (hosts.includes('cloudflare')) for (const page of notFoundPages()) hostFile(page.path, page.body);
  if (hosts.includes('vercel')) hostFile('vercel.json', renderVercelJson(rules, REWRITES));
  if (hosts.includes('github-pages')) hostFile('.nojekyll', '');
  const s3Files: OutputFile[] = hosts.includes('s3')
    ? [
        { path: 'cors.json', resource: 'host', body: renderS3Cors() },
        { path: 'upload.sh', resource: 'host', body: renderS3Upload(rules, options.outFromS3Dir ?? '../dist') },
      ]
    : [];

  const diagnostics = [...conflicts(files), ...subtitlesWithoutStreams(content, hosts)];
  const { manifestBytes } = layout;
  if (manifestBytes > MANIFEST_LIMIT_BYTES) {
    diagnostics.push({
      code: 'manifest-too-large',
      severity: 'warning',
      message: `manifest.json is ${manifestBytes} bytes, over the ${MANIFEST_LIMIT_BYTES} bytes the official SDK accepts`,
      hint: 'use fewer catalogs or genres, a shorter description, or declare idPrefixes in addon.yaml',
    });
  }
  return { files, s3Files, manifest, diagnostics };
}

/** What item files are rendered with, besides their item: one for the whole plan. */
interface ItemRendering {
  linksOf: (item: Item) => Link[] | undefined;
  envelopes: Record<ItemFile['resource'], Envelope>;
}

/**
 * A meta, stream or subtitles file of an item: most of a plan's files (a quarter of a million in
 * the large benchmark), all waiting until they are written. Each is one small object whose body
 * a method of the class renders: two closures of its own per file took about 370 bytes, and the
 * plan of the large benchmark is 60 MB smaller this way (measured). Call it as `file.body()`.
 */
class ItemFile implements OutputFile {
  constructor(
    readonly path: string,
    readonly resource: 'meta' | 'stream' | 'subtitles',
    readonly origin: Item,
    /** The item itself for its meta, or what the streams and subtitles belong to (see streamOwners). */
    private readonly owner: StreamOwner,
    readonly inputs: string | undefined,
    private readonly rendering: ItemRendering,
  ) {}

  body(): string {
    const { origin: item, owner, rendering } = this;
    const { open, close } = rendering.envelopes[this.resource];
    switch (this.resource) {
      case 'meta':
        return open + JSON.stringify(metaItem(item, rendering.linksOf(item))) + close;
      case 'stream':
        return open + JSON.stringify(owner.streams.map((s) => wireStream(s, owner.subtitles))) + close;
      case 'subtitles':
        return open + JSON.stringify(owner.subtitles.map(wireSubtitle)) + close;
    }
  }
}

/** The catalog's items grouped by genre, in catalog order: one pass, however many genres. */
function membersByGenre(catalog: Catalog): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const item of catalog.items) {
    for (const genre of item.genres ?? []) {
      const group = groups.get(genre);
      // Once per genre, however often the item names it: a group that has the item has it last.
      if (!group) groups.set(genre, [item]);
      else if (group[group.length - 1] !== item) group.push(item);
    }
  }
  return groups;
}

/**
 * The pages of a catalog (or of one genre of it) with `total` items: the first page without
 * `skip`, then `skip=100`, `skip=200`, … and an empty page at `skip=<total>`, because the client
 * keeps asking until it gets an empty list. With a genre, each later page is written in both
 * extra orders: the client core puts the extra it set last first (`skip=100&genre=…`).
 */
export function catalogPages(total: number, genre?: Extra): { skip: number; extras: Extra[][] }[] {
  const first = { skip: 0, extras: [genre ? [genre] : []] };
  const later: number[] = [];
  for (let skip = PAGE_SIZE; skip < total; skip += PAGE_SIZE) later.push(skip);
  later.push(total);
  return [
    first,
    ...later.map((skip) => {
      const skipExtra: Extra = ['skip', String(skip)];
      return { skip, extras: genre ? [[skipExtra, genre], [genre, skipExtra]] : [[skipExtra]] };
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Output size

/** What the size of a plan is worked out from, before its files are laid out. */
interface Layout {
  content: Content;
  byGenre: ReadonlyMap<Catalog, ReadonlyMap<string, readonly Item[]>>;
  /** The bytes of an item's preview, rendered once for the pages too. */
  previewSize: (item: Item) => number;
  catalogEnvelope: Envelope;
  envelopes: ItemRendering['envelopes'];
  manifestBytes: number;
}

interface Size {
  files: number;
  bytes: number;
}

/** One list of a catalog's pages: the whole catalog, or one genre of it. */
interface Filter {
  members: readonly Item[];
  /** Files per later page: a genre's later pages are written in both orders of extras. */
  orders: number;
}

function filtersOf(catalog: Catalog, groups: ReadonlyMap<string, readonly Item[]>): Filter[] {
  return [{ members: catalog.items, orders: 1 }, ...catalog.genres.map((genre) => ({ members: groups.get(genre) ?? [], orders: 2 }))];
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
  const wrapped = ({ open, close }: Envelope, bytes: number) => open.length + bytes + close.length;
  const size = { files: 1, bytes: wrapped(envelopes.meta, previewBytes) };
  for (const owner of streamOwners(item)) {
    const ownerSubtitles = subtitlesSize(owner.subtitles);
    let streams = 2;
    for (const stream of owner.streams) {
      const embedded = stream.subtitles?.length ? subtitlesSize(stream.subtitles) : ownerSubtitles;
      streams += 2 + (embedded > 0 ? embedded + ',"subtitles":[]'.length : 0);
    }
    size.files++;
    size.bytes += wrapped(envelopes.stream, streams);
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
function outputTooLarge(layout: Layout): Diagnostic | undefined {
  const { content, byGenre, previewSize, catalogEnvelope, envelopes } = layout;
  const pageBytes = catalogEnvelope.open.length + '[]'.length + catalogEnvelope.close.length;
  const size: Size = { files: 1, bytes: layout.manifestBytes };
  for (const [catalog, groups] of byGenre) {
    for (const filter of filtersOf(catalog, groups)) {
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
  const input = content.textBytes;
  const limit: Size = outputLimit(input);
  const overBytes = size.bytes > limit.bytes;
  if (!overBytes && size.files <= limit.files) return undefined;

  const source = largestSource(layout, pageBytes, overBytes ? 'bytes' : 'files');
  const count = (n: number) => n.toLocaleString('en-US');
  const over = overBytes
    ? `over the ${byteSize(limit.bytes)} a build may write for it (${count(OUTPUT_LIMIT.factor)} times the content, and never less than ${byteSize(OUTPUT_LIMIT.floorBytes)})`
    : `over the ${count(limit.files)} files a build may write for it (one per ${OUTPUT_LIMIT.bytesPerFile} bytes of content, and never less than ${count(OUTPUT_LIMIT.floorFiles)})`;
  return {
    code: 'output-too-large',
    severity: 'error',
    ...source.at,
    path: source.path,
    message: `the output would be at least ${byteSize(size.bytes)} in ${count(size.files)} files, from ${byteSize(input)} of content: ${over}; ${source.share}`,
    hint: source.hint,
  };
}

/** What contributes most of the bytes (or files) of the output, and where it is written. */
function largestSource(layout: Layout, pageBytes: number, measure: keyof Size) {
  const { content, byGenre, previewSize, envelopes } = layout;
  // Items by their listings on catalog pages and by their own files, catalogs by their pages'
  // own bytes and files: the largest of these is where the output can be made smaller.
  const listed = new Map<Item, { bytes: number; pages: number }>();
  let catalog: { of: Catalog; size: Size } | undefined;
  for (const [of, groups] of byGenre) {
    const size: Size = { files: 0, bytes: 0 };
    for (const filter of filtersOf(of, groups)) {
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
  const count = (n: number) => n.toLocaleString('en-US');
  if (catalog && (!item || catalog.size[measure] >= total(item))) {
    const { of, size } = catalog;
    const genres = of.genres.length;
    return {
      at: of.where(genres > 0 ? ['genres'] : ['id']),
      // Its place among the settings: two catalogs of one type and id are an error, so none is left out.
      path: `catalogs[${content.catalogs.indexOf(of)}].${genres > 0 ? 'genres' : 'id'}`,
      share: `this catalog has ${count(size.files)} pages (${byteSize(size.bytes)} without the items they list), for its ${count(genres)} genres`,
      hint:
        genres > 0
          ? 'offer fewer genres in this catalog: each genre adds at least three pages (its first page, and the empty page that ends it in both orders of extras); with `genres: auto`, its items bring them'
          : 'use fewer catalogs, or make this one smaller',
    };
  }
  if (!item) return { at: {}, path: undefined, share: 'most of it is the manifest', hint: 'use fewer catalogs or genres' };
  const { of, own, listed: on } = item;
  const genres = of.genres?.length ?? 0;
  if (measure === 'bytes' && on.bytes >= own.bytes) {
    return {
      at: of.where(genres > 0 ? ['genres'] : ['id']),
      path: genres > 0 ? 'genres' : 'id',
      share: `this item is listed on ${count(on.pages)} catalog pages, ${byteSize(on.bytes)} in all, each listing ${byteSize(previewSize(of))} with its ${count(genres)} genres${content.baseUrl === undefined ? '' : ' and their links'}`,
      hint:
        genres > 0
          ? 'give the item fewer genres: in a catalog with a genre filter each of them adds pages that list the item, and each listing repeats all of them'
          : 'list the item in fewer catalogs, or give it a shorter preview',
    };
  }
  return {
    at: of.where(['id']),
    path: 'id',
    share: `this item's own files (meta, streams, subtitles) take at least ${byteSize(own.bytes)} in ${count(own.files)} files`,
    hint: 'each stream is written with the subtitles of its item or video: give it fewer streams or subtitles, or split it into several items',
  };
}

/**
 * Subtitles reach the player in two ways: embedded in each stream, and through the subtitles
 * resource. On a host without rewrites the resource answers only requests without extras or with
 * a stream's own hints, and the desktop apps add the video's hash and size: subtitles of a video
 * with no stream of this addon to carry them would never show there.
 */
function subtitlesWithoutStreams(content: Content, hosts: readonly Host[]): Diagnostic[] {
  const strict = hosts.filter((host) => !hasRewrites(host));
  if (strict.length === 0) return [];
  let count = 0;
  let first: { item: Item; path: (string | number)[] } | undefined;
  for (const item of content.items) {
    for (const [index, owner] of streamOwners(item).entries()) {
      if (owner.subtitles.length === 0 || owner.streams.length > 0) continue;
      count++;
      first ??= { item, path: item.videos ? ['videos', index, 'subtitles'] : ['subtitles'] };
    }
  }
  if (!first) return [];
  return [
    {
      code: 'subtitles-need-rewrites',
      severity: 'warning',
      ...first.item.where(first.path),
      path: first.path.join('.'),
      message: `${count} ${count === 1 ? 'item or video has' : 'items and videos have'} subtitles and no stream to carry them: on ${strict.join(' and ')} the Stremio apps ask for subtitles with the video's hash and size, which no file can answer`,
      hint: 'give the video a stream (its subtitles travel in it), or publish on Cloudflare Pages, Netlify or Vercel, whose rewrite answers those requests',
    },
  ];
}

/**
 * The subtitles requests with extras that can be answered by a file: a player without the
 * streaming server (a browser) knows of a video only what its stream's behaviorHints say, and
 * asks with those. The streaming server adds a hash and size of its own, which no build can know.
 */
function playerSubtitlesExtras(owner: StreamOwner): Extra[][] {
  const requests = new Map<string, Extra[]>();
  for (const stream of owner.streams) {
    const extras = subtitlesRequestExtras(stream.behaviorHints ?? {});
    if (extras.length === 0) continue;
    const name = extrasName(extras);
    // A file name no host can hold (a `/` in the file name): only the embedded copy reaches the player.
    if (fileNameProblem(name, false) === undefined) requests.set(name, extras);
  }
  return [...requests.values()];
}

/** The types the manifest declares the subtitles resource for. */
function subtitlesTypes(manifest: Manifest): string[] {
  for (const resource of manifest.resources) {
    if (typeof resource !== 'string' && resource.name === 'subtitles') return resource.types;
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Manifest

function buildManifest(content: Content): Manifest {
  const { addon } = content;
  const itemTypes = typesOf(content, content.items);
  const subtitleTypes = typesOf(
    content,
    content.items.filter((i) => streamOwners(i).some((owner) => owner.subtitles.length > 0)),
  );
  const idPrefixes = content.idPrefixes;
  const resources: ManifestResource[] = [];
  if (content.catalogs.length > 0) resources.push('catalog');
  // Typed resources with idPrefixes: the client asks only for ids this addon has.
  if (itemTypes.length > 0) {
    resources.push({ name: 'meta', types: itemTypes, idPrefixes });
    resources.push({ name: 'stream', types: itemTypes, idPrefixes });
  }
  if (subtitleTypes.length > 0) resources.push({ name: 'subtitles', types: subtitleTypes, idPrefixes });

  return compact({
    id: addon.id,
    version: addon.version,
    name: addon.name,
    description: addon.description,
    logo: addon.logo,
    background: addon.background,
    contactEmail: addon.contactEmail,
    types: content.types,
    resources,
    idPrefixes,
    catalogs: content.catalogs.map(manifestCatalog),
    behaviorHints: addon.behaviorHints,
  }) as Manifest;
}

function manifestCatalog(catalog: Catalog): ManifestCatalog {
  const extra: ExtraProp[] = [];
  if (catalog.genres.length > 0) extra.push({ name: 'genre', isRequired: false, options: catalog.genres });
  // Paging happens only when the catalog declares `skip`.
  extra.push({ name: 'skip', isRequired: false });
  return { type: catalog.type, id: catalog.id, name: catalog.name, extra };
}

/** Types in the addon's declared order, then any others in the order items have them. */
function typesOf(content: Content, items: readonly Item[]): string[] {
  const present = new Set(items.map((i) => i.type));
  return [...new Set([...content.types, ...items.map((i) => i.type)])].filter((t) => present.has(t));
}

// ---------------------------------------------------------------------------------------------
// Items, videos, streams: explicit key order makes output independent of the YAML's order. These
// objects exist only to be serialized: their undefined fields are left for JSON.stringify to drop
// (the client rejects null; absent is the protocol's "not set"). Deleting them first, as
// `compact` does, took 0.3 s of a large build, and objects with deleted keys serialize slower.

type Link = NonNullable<MetaItemPreview['links']>[number];

function metaPreview(item: Item, genreLinks: Link[] | undefined): MetaItemPreview {
  return {
    id: item.id,
    type: item.type,
    name: item.name,
    poster: item.poster,
    posterShape: item.posterShape,
    background: item.background,
    logo: item.logo,
    description: item.description,
    releaseInfo: item.releaseInfo,
    runtime: item.runtime,
    released: item.released,
    genres: item.genres,
    links: item.links || genreLinks ? [...(item.links ?? []), ...(genreLinks ?? [])] : undefined,
    behaviorHints: item.behaviorHints,
  } as MetaItemPreview;
}

function metaItem(item: Item, genreLinks: Link[] | undefined): MetaItem {
  return {
    ...metaPreview(item, genreLinks),
    trailerStreams: item.trailerStreams?.map((s) => wireStream(s, [])),
    videos: item.videos?.map(wireVideo),
  } as MetaItem;
}

function wireVideo(video: Video): WireVideo {
  return {
    id: video.id,
    title: video.title,
    released: video.released,
    overview: video.overview,
    thumbnail: video.thumbnail,
    season: video.season,
    episode: video.episode,
    trailerStreams: video.trailerStreams?.map((s) => wireStream(s, [])),
  } as WireVideo;
}

/** A stream with its owner's subtitles embedded: on a static host that is how they reach the player. */
function wireStream(stream: Stream, ownerSubtitles: readonly Subtitle[]): WireStream {
  const own = stream.subtitles ?? [];
  let subtitles: readonly Subtitle[] = ownerSubtitles;
  if (own.length > 0) {
    // A set of ids, not a search of the stream's for each of the owner's: both lists can be long.
    const ids = new Set(own.map((o) => o.id));
    subtitles = [...own, ...ownerSubtitles.filter((s) => !ids.has(s.id))];
  }
  const hints = stream.behaviorHints;
  return {
    name: stream.name,
    description: stream.description,
    url: stream.url,
    ytId: stream.ytId,
    infoHash: stream.infoHash,
    rarUrls: stream.rarUrls,
    zipUrls: stream.zipUrls,
    '7zipUrls': stream['7zipUrls'],
    tarUrls: stream.tarUrls,
    tgzUrls: stream.tgzUrls,
    fileIdx: stream.fileIdx,
    announce: stream.announce,
    fileMustInclude: stream.fileMustInclude,
    externalUrl: stream.externalUrl,
    androidTvUrl: stream.androidTvUrl,
    tizenUrl: stream.tizenUrl,
    webosUrl: stream.webosUrl,
    playerFrameUrl: stream.playerFrameUrl,
    thumbnail: stream.thumbnail,
    subtitles: subtitles.length > 0 ? subtitles.map(wireSubtitle) : undefined,
    behaviorHints: hints && {
      notWebReady: hints.notWebReady,
      bingeGroup: hints.bingeGroup,
      countryWhitelist: hints.countryWhitelist,
      proxyHeaders: hints.proxyHeaders && { request: hints.proxyHeaders.request, response: hints.proxyHeaders.response },
      filename: hints.filename,
      videoHash: hints.videoHash,
      videoSize: hints.videoSize,
    },
  } as WireStream;
}

function wireSubtitle(subtitle: Subtitle): WireSubtitle {
  return { id: subtitle.id, lang: subtitle.lang, url: subtitle.url };
}

/**
 * Genre links that open this addon's own catalog filtered by the genre. Without them the client
 * turns `genres` into links to Cinemeta. A genre links to the first catalog that lists the item
 * and offers the genre, else to any catalog of the item's type that offers it.
 */
function genreLinks(content: Content): Map<Item, Link[]> {
  const links = new Map<Item, Link[]>();
  const { baseUrl } = content;
  if (baseUrl === undefined) return links;
  // The catalogs that list each item, as their positions in content.catalogs.
  const memberOf = new Map<Item, number[]>();
  content.catalogs.forEach((catalog, index) => {
    for (const item of catalog.items) {
      const positions = memberOf.get(item);
      if (positions) positions.push(index);
      else memberOf.set(item, [index]);
    }
  });
  // Items share their links: one link per catalog and genre, one list per set of links. Lists
  // and URLs of their own took 29 MB in the large benchmark (measured), kept to the end of the build.
  const shared = new Map<Catalog, Map<string, Link>>();
  const linkTo = (catalog: Catalog, genre: string): Link => {
    let byGenre = shared.get(catalog);
    if (!byGenre) shared.set(catalog, (byGenre = new Map()));
    let link = byGenre.get(genre);
    if (!link) byGenre.set(genre, (link = { name: genre, category: 'Genres', url: discoverGenreLink(baseUrl, catalog.type, catalog.id, genre) }));
    return link;
  };
  // Looked up, not searched: an item's genres times a catalog's would be quadratic in genres.
  const offers = new Map<Catalog, ReadonlySet<string>>();
  const offered = (catalog: Catalog) => {
    let genres = offers.get(catalog);
    if (!genres) offers.set(catalog, (genres = new Set(catalog.genres)));
    return genres;
  };
  const lists = new Map<string, Link[]>();
  // An item's links follow from its type, the catalogs that list it and its genres: worked out
  // once for each such kind of item (hundreds in the large benchmark), not for each of 51,000.
  const kinds = new Map<string, Link[]>();
  for (const item of content.items) {
    if (!item.genres?.length || item.links?.some((l) => l.category === 'Genres')) continue;
    const positions = memberOf.get(item) ?? [];
    const kind = `${item.type}\0${positions.join(',')}\0${item.genres.join('\0')}`;
    let itemLinks = kinds.get(kind);
    if (!itemLinks) {
      const candidates = [...positions.map((i) => content.catalogs[i]!), ...content.catalogs.filter((c) => c.type === item.type)];
      const found = item.genres.flatMap((genre): Link[] => {
        const catalog = candidates.find((c) => offered(c).has(genre));
        return catalog ? [linkTo(catalog, genre)] : [];
      });
      const key = found.map((link) => link.url).join('\n');
      itemLinks = lists.get(key);
      if (!itemLinks) lists.set(key, (itemLinks = found));
      kinds.set(kind, itemLinks);
    }
    if (itemLinks.length > 0) links.set(item, itemLinks);
  }
  return links;
}

/** The fingerprint of a text or of bytes, as the bookkeeping keeps it (one call, no Hash object). */
export function sha1(data: string | Uint8Array): string {
  return hash('sha1', data, 'base64url');
}

/**
 * The fingerprint of a content file's text, worked out once: a build's inputs (_last-build.ts)
 * and its files' fingerprints (below) both need it, and hashing the large benchmark's 45 MB of
 * YAML takes about 50 ms.
 */
export function textFingerprint(source: SourceFile): string {
  return (source.textFingerprint ??= sha1(source.text));
}

/**
 * Fingerprints of what files are rendered from. An item's files are rendered from the item,
 * which is its file's text read at its path (local files resolve against it), from the genre
 * links that all catalogs together decide, from the settings, base URL and the values of the
 * variables `${NAME}` replaced, and by the
 * generator's code: nothing else. A catalog page is rendered from the previews of the items it
 * lists, in order (each item's fingerprint with its id: items of one file share a fingerprint),
 * and from the settings (its cache hints).
 */
function inputFingerprints(content: Content, linksOf: (item: Item) => Link[] | undefined, generator: string) {
  const context = sha1(JSON.stringify([generator, content.baseUrl ?? null, content.addon, content.variables]));
  // Each part is worked out once: the large benchmark's 300,000 catalog listings share 51,000
  // items, which share 1,001 files and a few hundred lists of links.
  const sources = new Map<Item['source'], string>();
  const linkLists = new Map<Link[], string>();
  const items = new Map<Item, string>();
  const listings = new Map<Item, string>();
  const source = (of: Item['source']): string => {
    let key = sources.get(of);
    if (key === undefined) sources.set(of, (key = sha1(`${context}\0${of.relative}\0${textFingerprint(of)}`)));
    return key;
  };
  const item = (of: Item): string => {
    let key = items.get(of);
    if (key !== undefined) return key;
    const itemLinks = linksOf(of);
    if (itemLinks) {
      let json = linkLists.get(itemLinks);
      if (json === undefined) linkLists.set(itemLinks, (json = JSON.stringify(itemLinks)));
      key = sha1(`${source(of.source)}\0${json}`);
    } else {
      key = source(of.source);
    }
    items.set(of, key);
    return key;
  };
  const listing = (of: Item): string => {
    let line = listings.get(of);
    if (line === undefined) listings.set(of, (line = `${of.id}\0${item(of)}`));
    return line;
  };
  const page = (listed: readonly Item[]) => sha1(`catalog\0${context}\0${listed.map(listing).join('\n')}`);
  return { item, page };
}

// ---------------------------------------------------------------------------------------------
// Bodies

/** What a resource's value is wrapped in: `{"<field>":` before it, the cache hints and `}` after. */
interface Envelope {
  open: string;
  close: string;
}

/** Made once per resource: a quarter of a million files share five. */
function envelope(field: string, cache: CacheHints): Envelope {
  const hints = JSON.stringify(cache).slice(1, -1);
  return { open: `{${JSON.stringify(field)}:`, close: hints === '' ? '}' : `,${hints}}` };
}

/**
 * Two files at one path, or at paths that differ only in letter case or in Unicode normalization
 * (`é` as one character, or as `e` and a combining accent): case-insensitive file systems and
 * hosts (Windows, macOS, S3 website behind some CDNs, a checkout on a laptop) merge the first,
 * and macOS and some hosts the second, and one addon would silently serve the other's file.
 */
function conflicts(files: readonly OutputFile[]): Diagnostic[] {
  // One map by folded path finds all three: a quarter of a million paths, so only one.
  const byFolded = new Map<string, OutputFile>();
  const diagnostics = new DiagnosticList();
  const reportedPairs = new Map<Item, Set<Item>>();
  const locate = (f: OutputFile) => f.origin?.where(['id']);
  const where = (f: OutputFile) => {
    const at = locate(f);
    return at ? `${at.file}:${at.line}:${at.column}` : f.resource;
  };
  // In the file of the later item, within its limit: 200,000 ids that differ from those of
  // another file only in case cost little more than counting them.
  const report = (file: OutputFile, build: () => Diagnostic) => {
    if (file.origin) diagnostics.add(file.origin.where.file, 'error', build);
    else diagnostics.push(build());
  };
  for (const file of files) {
    const folded = foldPath(file.path);
    const earlier = byFolded.get(folded);
    if (!earlier) {
      byFolded.set(folded, file);
      continue;
    }
    if (earlier.path === file.path) {
      report(file, () => ({
        code: 'output-conflict',
        severity: 'error',
        ...locate(file),
        message: `${file.path} would be written twice: by ${where(earlier)} and by ${where(file)}`,
        hint: 'an item id and a video id (or two video ids) of the same type are equal; make them distinct',
      }));
      continue;
    }
    // One report per pair of items, not one per file they both have (meta, streams, subtitles).
    if (file.origin && earlier.origin) {
      const pairs = reportedPairs.get(file.origin) ?? new Set();
      if (pairs.has(earlier.origin)) continue;
      reportedPairs.set(file.origin, pairs.add(earlier.origin));
    }
    report(file, () => ({
      code: 'case-conflict',
      severity: 'error',
      ...locate(file),
      message: `${file.path} (by ${where(file)}) and ${earlier.path} (by ${where(earlier)}) differ only in ${howTheyDiffer(file.path, earlier.path)}`,
      hint: 'file systems and hosts that ignore case or Unicode normalization would make them one file: change one of the ids (or genres) by more than that',
    }));
  }
  return diagnostics.list();
}

/**
 * A path as file systems that ignore case and Unicode normalization see it. Most paths are
 * ASCII, which has one normalization: only the others pay for normalizing.
 */
function foldPath(path: string): string {
  const lower = path.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize('NFC') : lower;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/** What makes two paths that fold alike different: letter case, normalization, or both. */
function howTheyDiffer(a: string, b: string): string {
  const sameText = a.normalize('NFC') === b.normalize('NFC');
  if (!sameText && a.toLowerCase() === b.toLowerCase()) return 'letter case';
  const example = composedExample(a, b);
  const normalization = `Unicode normalization (${example ? `"${example.composed}" written as one character in one and as "${example.base}" plus a combining mark in the other` : 'accented letters written as one character in one and as a letter plus a combining mark in the other'})`;
  return sameText ? normalization : `letter case and ${normalization}`;
}

/**
 * Where the paths first differ by more than case, the character that one of them writes
 * composed (`é`), and the letter the other writes before its combining mark (`e`).
 */
function composedExample(a: string, b: string): { composed: string; base: string } | undefined {
  for (let i = 0; i < a.length && i < b.length; ) {
    const charA = String.fromCodePoint(a.codePointAt(i) ?? 0);
    const charB = String.fromCodePoint(b.codePointAt(i) ?? 0);
    if (charA !== charB && charA.toLowerCase() !== charB.toLowerCase()) {
      const composed = charA.normalize('NFD') !== charA ? charA : charB;
      const [base = composed] = composed.normalize('NFD');
      return base === composed ? undefined : { composed, base };
    }
    i += charA.length;
  }
  return undefined;
}

/** Drops undefined fields: the client rejects `null`, and absent is the protocol's "not set". */
function compact<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}
