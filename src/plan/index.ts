// Stage 3, plan: a pure function from checked content to the list of files the addon consists of.
// Every decision about paths, pages, key order and bodies is made here; nothing touches the disk.
import type { Diagnostic } from '../diagnostics/index.js';
import {
  cacheHints,
  headerRules,
  HOSTS,
  notFoundPages,
  renderHeadersFile,
  renderRedirectsFile,
  renderS3Cors,
  renderS3Upload,
  renderVercelJson,
  rewrites,
  type Host,
} from '../hosts/index.js';
import { MANIFEST_FILE } from '../shared/paths.js';
import { configurationCount, configurations, defaultValues, segmentOf, type ConfigOption, type Configuration } from '../shared/configurations.js';
import { configuredContent } from './configure.js';
import type { Manifest, ResourceName } from '../validate/schema.js';
import type { Content, Item } from '../shared/content.js';
import { addCatalogPageFiles, membersByGenre, type PageRendering } from './catalog-pages.js';
import { conflicts } from './conflicts.js';
import { inputFingerprints } from './fingerprints.js';
import { addItemFiles, type ItemRendering } from './item-files.js';
import { buildManifest, manifestTooLarge } from './manifest.js';
import type { OutputFile } from './output-file.js';
import { outputTooLarge, type Layout } from './output-size.js';
import { renderPages, type PageTemplates } from './page.js';
import { subtitlesWithoutStreams } from './subtitles.js';
import { envelope, genreLinks, metaPreview, type Link } from './wire.js';
import { HOST_FILES } from '../hosts/index.js';

export { catalogPages, PAGE_SIZE } from './catalog-pages.js';
export { sha1, textFingerprint } from './fingerprints.js';
export { MANIFEST_LIMIT_BYTES } from './manifest.js';
export type { OutputFile } from './output-file.js';

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
  const hosts = options.hosts ?? HOSTS;
  const notFound = hosts.includes('cloudflare');
  const configured = content.config.length > 0;
  const required = configured && content.addon.behaviorHints?.configurationRequired === true;
  // Counted before any configuration is made: their list, like the files, must not fill memory
  // before the output's size is checked.
  const trees = configured ? configurationCount(content.config) + (required ? 0 : 1) : 1;
  const first = planTree(content, options, { trees, notFound, measureOnly: configured });
  if (first.tooLarge) return { files: [], s3Files: [], manifest: first.manifest, diagnostics: [first.tooLarge] };

  let manifest = first.manifest;
  const pages: { prefix: string; manifest: Manifest; current?: Configuration }[] = [];
  if (!configured) {
    files.push(...first.files);
    pages.push({ prefix: '', manifest });
  } else {
    const all = configurations(content.config);
    const defaults = all.find((c) => segmentOf(content.config, c.values) === segmentOf(content.config, defaultValues(content.config)))!;
    const hints = (requiredHere: boolean) => ({ ...content.addon.behaviorHints, configurable: true, configurationRequired: requiredHere });
    // The root: the defaults' tree, or, when configuration is required, a manifest to configure from.
    const root = planTree(configuredContent(content, defaults), options, { notFound, manifestOnly: required });
    manifest = { ...root.manifest, behaviorHints: hints(required), config: manifestConfig(content.config) };
    root.files[0] = manifestFile(manifest, '');
    for (const file of root.files) files.push(file);
    pages.push({ prefix: '', manifest });
    for (const configuration of all) {
      const prefix = `${configuration.segment}/`;
      const treeBase = content.baseUrl === undefined ? undefined : content.baseUrl + prefix;
      const tree = planTree(configuredContent(content, configuration, treeBase), options, { notFound });
      const own = { ...tree.manifest, behaviorHints: hints(false) };
      tree.files[0] = manifestFile(own, '');
      for (const file of tree.files) {
        file.path = prefix + file.path;
        files.push(file);
      }
      pages.push({ prefix, manifest: own, current: configuration });
    }
  }

  for (const asset of content.assets) files.push({ path: asset.path, resource: 'asset', copyFrom: asset.source });
  if (options.templates) {
    const configure = configured ? { options: content.config, configurations: configurations(content.config), required } : undefined;
    for (const { prefix, manifest: own, current } of pages) {
      const pageConfigure = configure && { ...configure, current };
      for (const page of renderPages(options.templates, own, content.baseUrl, pageConfigure)) {
        files.push({ ...page, path: prefix + page.path, resource: 'page' });
      }
    }
  }
  const s3Files = addHostFiles(files, content, hosts, options.outFromS3Dir);

  const diagnostics = [...conflicts(files), ...subtitlesWithoutStreams(content, hosts)];
  const tooLargeManifest = manifestTooLarge(Buffer.byteLength(JSON.stringify(manifest)));
  if (tooLargeManifest) diagnostics.push(tooLargeManifest);
  return { files, s3Files, manifest, diagnostics };
}

interface TreeOptions {
  /** How many trees like this one the addon has: its output size is checked for all of them. */
  trees?: number;
  /** Only measure: no files are laid out (the size of a configurable addon's trees, checked first). */
  measureOnly?: boolean;
  /** Only the manifest (the root of an addon that must be configured before it is installed). */
  manifestOnly?: boolean;
  /** Cloudflare's JSON 404 pages in the folders of the resources the tree's manifest declares. */
  notFound: boolean;
}

interface Tree {
  /** The manifest first, then the tree's files, paths relative to the tree. */
  files: OutputFile[];
  manifest: Manifest;
  tooLarge?: Diagnostic;
}

function manifestFile(manifest: Manifest, prefix: string): OutputFile {
  // The manifest is the object itself, without an envelope or cache hints.
  return { path: prefix + MANIFEST_FILE, resource: 'manifest', body: JSON.stringify(manifest) };
}

/** The files of one addon tree: the manifest, catalog pages and item files of `content`. */
function planTree(content: Content, options: PlanOptions, tree: TreeOptions): Tree {
  const files: OutputFile[] = [];
  // Worked out when first needed: by the first preview, measured before anything is laid out.
  let links: Map<Item, Link[]> | undefined;
  const linksOf = (item: Item) => (links ??= genreLinks(content)).get(item);
  const cache = (resource: ResourceName) => cacheHints(content, resource);

  const manifest = buildManifest(content);
  const manifestBody = JSON.stringify(manifest);
  files.push({ path: MANIFEST_FILE, resource: 'manifest', body: manifestBody });
  const addNotFoundPages = () => {
    if (!tree.notFound) return;
    for (const page of notFoundPages(manifest.resources.map((r) => (typeof r === 'string' ? r : r.name)))) {
      files.push({ path: page.path, resource: 'host', body: page.body });
    }
  };
  // A manifest that must be configured first still declares its resources: a client that asks
  // anyway gets the specification's JSON 404 under them, as everywhere else.
  if (tree.manifestOnly) {
    addNotFoundPages();
    return { files, manifest };
  }

  const fingerprints = options.generator === undefined ? undefined : inputFingerprints(content, linksOf, options.generator);
  // Rendered once per item, when the output is measured (below), and used by the pages that list
  // it. An item is on several pages, so previews are kept until every page has been rendered once
  // (write renders the pages first), then forgotten: kept to the end they weigh on the build's
  // peak memory (figures: bench/README.md, 'Previews kept until every page is rendered'). A page
  // rendered again after that (a file written twice, a caller's second look) only renders them again.
  const previews = new Map<Item, string>();
  const previewOf = (item: Item) => {
    let preview = previews.get(item);
    if (preview === undefined) previews.set(item, (preview = JSON.stringify(metaPreview(item, linksOf(item)))));
    return preview;
  };
  const catalogEnvelope = envelope('metas', cache('catalog'));
  const rendering: ItemRendering = {
    linksOf,
    envelopes: {
      meta: envelope('meta', cache('meta')),
      stream: envelope('streams', cache('stream')),
      subtitles: envelope('subtitles', cache('subtitles')),
    },
  };

  // Measured before anything is laid out: hostile content can ask for millions of pages, and
  // the list of them would fill memory before a limit on it was checked. The previews it
  // renders to measure pages are the ones the pages are rendered from.
  const byGenre = new Map(content.catalogs.map((catalog) => [catalog, membersByGenre(catalog)]));
  if (tree.trees !== undefined) {
    const previewBytes = new Map<Item, number>();
    const previewSize = (item: Item) => {
      let bytes = previewBytes.get(item);
      if (bytes === undefined) previewBytes.set(item, (bytes = Buffer.byteLength(previewOf(item))));
      return bytes;
    };
    const manifestBytes = Buffer.byteLength(manifestBody);
    const layout: Layout = { content, byGenre, previewSize, catalogEnvelope, envelopes: rendering.envelopes, manifestBytes, trees: tree.trees };
    const tooLarge = outputTooLarge(layout);
    if (tooLarge) return { files: [], manifest, tooLarge };
    if (tree.measureOnly) return { files: [], manifest };
  }

  const pages: PageRendering = { envelope: catalogEnvelope, previewOf, forgetPreviews: () => previews.clear(), fingerprintOf: fingerprints?.page };
  addCatalogPageFiles(files, byGenre, pages);
  addItemFiles(files, content, manifest, rendering, fingerprints?.item);
  addNotFoundPages();
  return { files, manifest };
}

/** The manifest's `config`, as the official SDK declares options (a checked checkbox: `default: "checked"`). */
function manifestConfig(options: readonly ConfigOption[]): NonNullable<Manifest['config']> {
  return options.map((option) =>
    option.type === 'select'
      ? { key: option.key, type: 'select', title: option.title, options: option.options, default: option.default }
      : { key: option.key, type: 'checkbox', title: option.title, ...(option.default && { default: 'checked' }) },
  );
}

/** Adds the rule files of the hosts that publish into the output folder; returns those of the S3 folder. */
function addHostFiles(files: OutputFile[], content: Content, hosts: readonly Host[], outFromS3Dir: string | undefined): OutputFile[] {
  const rules = headerRules(content);
  const hostFile = (path: string, body: string) => files.push({ path, resource: 'host', body });
  if (hosts.includes('cloudflare') || hosts.includes('netlify')) {
    hostFile(HOST_FILES.headers, renderHeadersFile(rules));
    hostFile(HOST_FILES.redirects, renderRedirectsFile(rewrites(content)));
  }
  if (hosts.includes('vercel')) hostFile(HOST_FILES.vercel, renderVercelJson(rules, rewrites(content)));
  if (hosts.includes('github-pages')) hostFile(HOST_FILES.nojekyll, '');
  return hosts.includes('s3')
    ? [
        { path: 'cors.json', resource: 'host', body: renderS3Cors() },
        { path: 'upload.sh', resource: 'host', body: renderS3Upload(rules, outFromS3Dir ?? '../dist') },
      ]
    : [];
}
