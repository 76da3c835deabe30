// Stage 3, plan: a pure function from checked content to the list of files the addon consists of.
// Every decision about paths, pages, key order and bodies is made here; nothing touches the disk.
import { hash } from 'node:crypto';
import { DiagnosticList, type Diagnostic } from './diagnostics.js';
import {
  cacheHints,
  headerRules,
  HOSTS,
  renderHeadersFile,
  renderRedirectsFile,
  renderS3Cors,
  renderS3Upload,
  renderVercelJson,
  REWRITES,
  type Host,
} from './hosts.js';
import type { SourceFile } from './load.js';
import { renderPages, type PageTemplates } from './page.js';
import { discoverGenreLink, MANIFEST_FILE, resourcePath, type Extra } from './paths.js';
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
} from './schema.js';
import { streamOwners, type Catalog, type Content, type Item, type Stream, type StreamOwner, type Subtitle, type Video } from './validate.js';

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
  files: OutputFile[];
  /** Files for the S3 folder, outside the published tree; empty unless S3 is a chosen host. */
  s3Files: OutputFile[];
  manifest: Manifest;
  diagnostics: Diagnostic[];
}

export function plan(content: Content, options: PlanOptions = {}): Plan {
  const files: OutputFile[] = [];
  // Worked out when first rendered or fingerprinted: `validate` does neither, and its plan stage
  // of the large benchmark takes 0.43 instead of 0.68 s without them (medians of five pairs).
  let links: Map<Item, Link[]> | undefined;
  const linksOf = (item: Item) => (links ??= genreLinks(content)).get(item);
  const cache = (resource: ResourceName) => cacheHints(content, resource);

  const manifest = buildManifest(content);
  // The manifest is the object itself, without an envelope or cache hints.
  const manifestBody = JSON.stringify(manifest);
  files.push({ path: MANIFEST_FILE, resource: 'manifest', body: manifestBody });

  const fingerprints = options.generator === undefined ? undefined : inputFingerprints(content, linksOf, options.generator);
  // Rendered once per item, and only when a page that lists it is rendered. An item is on several
  // pages, so previews are kept until every page has been rendered once (write renders the pages
  // first), then forgotten: those of the large benchmark take 39 MB (measured). A page rendered
  // again after that (a file written twice, a caller's second look) only renders them again.
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
  for (const catalog of content.catalogs) {
    const filters: (Extra | undefined)[] = [undefined, ...catalog.genres.map((g): Extra => ['genre', g])];
    const byGenre = membersByGenre(catalog);
    for (const genre of filters) {
      const members = genre ? (byGenre.get(genre[1]) ?? []) : catalog.items;
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

  const rendering: ItemRendering = {
    linksOf,
    envelopes: { meta: envelope('meta', cache('meta')), stream: envelope('streams', cache('stream')), subtitles: envelope('subtitles', cache('subtitles')) },
  };
  for (const item of content.items) {
    const inputs = fingerprints?.item(item);
    const file = (resource: ItemFile['resource'], owner: StreamOwner) => {
      files.push(new ItemFile(resourcePath(resource, item.type, owner.id, []), resource, item, owner, inputs, rendering));
    };
    file('meta', item);
    for (const owner of streamOwners(item)) {
      file('stream', owner);
      if (owner.subtitles.length > 0) file('subtitles', owner);
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
  if (hosts.includes('vercel')) hostFile('vercel.json', renderVercelJson(rules, REWRITES));
  if (hosts.includes('github-pages')) hostFile('.nojekyll', '');
  const s3Files: OutputFile[] = hosts.includes('s3')
    ? [
        { path: 'cors.json', resource: 'host', body: renderS3Cors() },
        { path: 'upload.sh', resource: 'host', body: renderS3Upload(rules, options.outFromS3Dir ?? '../dist') },
      ]
    : [];

  const diagnostics = [...conflicts(files)];
  const manifestBytes = Buffer.byteLength(manifestBody);
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
    item.genres?.forEach((genre, index) => {
      // Once per genre, however often the item names it (a Set per item took longer than this).
      if (item.genres!.indexOf(genre) !== index) return;
      const group = groups.get(genre);
      if (group) group.push(item);
      else groups.set(genre, [item]);
    });
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
  const subtitles = [...own, ...ownerSubtitles.filter((s) => !own.some((o) => o.id === s.id))];
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
        const catalog = candidates.find((c) => c.genres.includes(genre));
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
 * Two files at one path, or at paths that differ only in letter case: case-insensitive file
 * systems (Windows, macOS) and hosts (S3 website behind some CDNs, a checkout on a laptop) would
 * merge them, and one addon would silently serve the other's file.
 */
function conflicts(files: readonly OutputFile[]): Diagnostic[] {
  // One map by case-folded path finds both: a quarter of a million paths, so only one.
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
    const folded = file.path.toLowerCase();
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
      message: `${file.path} (by ${where(file)}) and ${earlier.path} (by ${where(earlier)}) differ only in letter case`,
      hint: 'case-insensitive file systems and hosts would make them one file: change one of the ids (or genres) by more than case',
    }));
  }
  return diagnostics.list();
}

/** Drops undefined fields: the client rejects `null`, and absent is the protocol's "not set". */
function compact<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}
