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
import { configurations, defaultConfiguration, treeCount, type ConfigOption, type Configuration } from '../shared/configurations.js';
import { configuredContent, configurationTree } from './configure.js';
import type { Manifest, ResourceName } from '../validate/schema.js';
import type { Catalog, Content, Item } from '../shared/content.js';
import { addAddonCatalogFiles } from './addon-catalogs.js';
import { addCatalogPageFiles, catalogLists, type CatalogList, type PageRendering } from './catalog-pages.js';
import { conflicts } from './conflicts.js';
import { inputFingerprints } from './fingerprints.js';
import { addItemFiles, itemRendering } from './item-files.js';
import { buildManifest, manifestTooLarge } from './manifest.js';
import type { OutputFile } from './output-file.js';
import { outputTooLarge, searchBudget, type Layout } from './output-size.js';
import { renderPages, type PageTemplates } from './page.js';
import type { PreviewSizes } from './preview-sizes.js';
import { subtitlesWithoutStreams } from './subtitles.js';
import { envelope } from './wire.js';
import { keptPreviews, type Previews } from './previews.js';
import { HOST_FILES } from '../hosts/index.js';

export { catalogPages, PAGE_SIZE } from './catalog-pages.js';
export { MANIFEST_LIMIT_BYTES } from './manifest.js';
export { searchAnswers, type SearchRequest } from './search-answers.js';
export { earlyAnswers, listCatalogs, provisionalContent, sameListings, type BuiltTree } from './early-answers.js';
export { editedFiles, editIndexOf, withRelease, type EditedFiles, type EditIndex, type FileValues } from './edit-index.js';
export { sameOutline } from './edit-checks.js';
export { catalogMembers, withNewFiles } from './edit-members.js';
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
  /** Preview sizes that earlier builds measured, kept by a long-lived caller (serve --watch); used with `generator`. */
  previewSizes?: PreviewSizes;
  /**
   * Keep the catalog pages' previews for the caller (Plan.previews) rather than let them go once
   * every page is rendered: serve's early answers render an edit's pages from them.
   */
  keepPreviews?: boolean;
}

export interface Plan {
  /** Empty when the output would be too large (output-too-large): such a plan is not laid out. */
  files: OutputFile[];
  /** Files for the S3 folder, outside the published tree; empty unless S3 is a chosen host. */
  s3Files: OutputFile[];
  manifest: Manifest;
  diagnostics: Diagnostic[];
  /** With `keepPreviews`, of an addon without configurations: the previews its pages list. */
  previews?: Previews;
  /** Of an addon without configurations: the lists each catalog's pages are written for. */
  lists?: ReadonlyMap<Catalog, readonly CatalogList[]>;
}

export function plan(content: Content, options: PlanOptions = {}): Plan {
  try {
    return planFiles(content, options);
  } finally {
    options.previewSizes?.end();
  }
}

function planFiles(content: Content, options: PlanOptions): Plan {
  const files: OutputFile[] = [];
  const hosts = options.hosts ?? HOSTS;
  const notFound = hosts.includes('cloudflare');
  const configured = content.config.length > 0;
  const required = configured && content.addon.behaviorHints?.configurationRequired === true;
  // An addon without configurations is measured as its tree is laid out. A configurable one is
  // measured first, as its whole content times its trees (each holds at most all of it): counted,
  // not made, since their list, like the files, must not fill memory before the size is checked.
  const trees = treeCount(content.config, required);
  const measure = { trees, pageBytes: configured ? treePageBytes(content, options.templates) : 0 };
  // The previews are kept for an addon without configurations: serve's early answers are for those alone.
  const whole = planTree(files, '', content, options, {
    notFound,
    measure,
    measureOnly: configured,
    keepPreviews: options.keepPreviews && !configured,
  });
  if (whole.tooLarge) return { files: [], s3Files: [], manifest: whole.manifest, diagnostics: [whole.tooLarge] };

  let manifest = whole.manifest;
  // Subtitles that only the subtitles resource carries: in the content, or in a configuration
  // that keeps an item's subtitles and none of its streams.
  let subtitlesAlone = subtitlesWithoutStreams(content, hosts);
  const pages: { prefix: string; manifest: Manifest; current?: Configuration }[] = [{ prefix: '', manifest }];
  if (configured) {
    const hints = (requiredHere: boolean) => ({ ...content.addon.behaviorHints, configurable: true, configurationRequired: requiredHere });
    // The root: the defaults' tree, or, when configuration is required, a manifest to configure from.
    const root = planTree(files, '', configuredContent(content, defaultConfiguration(content.config)), options, {
      notFound,
      manifestOnly: required,
      manifest: (own) => ({ ...own, behaviorHints: hints(required), config: manifestConfig(content.config) }),
    });
    manifest = root.manifest;
    pages[0] = { prefix: '', manifest };
    for (const configuration of configurations(content.config)) {
      const prefix = `${configuration.segment}/`;
      const configurationContent = configurationTree(content, configuration);
      if (subtitlesAlone.length === 0) subtitlesAlone = subtitlesWithoutStreams(configurationContent, hosts);
      const tree = planTree(files, prefix, configurationContent, options, {
        notFound,
        manifest: (own) => ({ ...own, behaviorHints: hints(false) }),
      });
      pages.push({ prefix, manifest: tree.manifest, current: configuration });
    }
  }

  for (const asset of content.assets) files.push({ path: asset.path, resource: 'asset', copyFrom: asset.source });
  if (options.templates) {
    for (const { prefix, manifest: own, current } of pages) {
      const configure = configured ? { options: content.config, required, current } : undefined;
      for (const page of renderPages(options.templates, own, content.baseUrl, configure)) {
        files.push({ ...page, path: prefix + page.path, resource: 'page' });
      }
    }
  }
  const s3Files = addHostFiles(files, content, hosts, options.outFromS3Dir);

  const diagnostics = [...conflicts(files), ...subtitlesAlone];
  const tooLargeManifest = manifestTooLarge(Buffer.byteLength(JSON.stringify(manifest)));
  if (tooLargeManifest) diagnostics.push(tooLargeManifest);
  return { files, s3Files, manifest, diagnostics, previews: whole.previews, ...(!configured && { lists: whole.lists }) };
}

interface TreeOptions {
  /** Check the output's size first: for this many trees like this one, each with these bytes of pages. */
  measure?: { trees: number; pageBytes: number };
  /** Only measure: no files are laid out (a configurable addon's whole content, checked first). */
  measureOnly?: boolean;
  /** Only the manifest (the root of an addon that must be configured before it is installed). */
  manifestOnly?: boolean;
  /** Cloudflare's JSON 404 pages in the folders of the resources the tree's manifest declares. */
  notFound: boolean;
  /** The manifest as the tree has it, from the one its content makes (a configuration's hints). */
  manifest?: (manifest: Manifest) => Manifest;
  /** Keep the pages' previews and return them (PlanOptions.keepPreviews). */
  keepPreviews?: boolean;
}

/**
 * At least the bytes of a configurable addon's pages in each tree: its install page and its
 * configure page, each the template and a form that repeats the options (a title and every value).
 */
function treePageBytes(content: Content, templates: PageTemplates | undefined): number {
  if (!templates) return 0;
  const config = Buffer.byteLength(JSON.stringify(content.config));
  return Buffer.byteLength(templates.install) + Buffer.byteLength(templates.configure) + 4 * config;
}

/**
 * Adds the files of one addon tree to `files`, below `prefix`: the manifest, catalog pages and
 * item files of `content`. Returns its manifest, or the output-too-large error when measured.
 */
function planTree(
  files: OutputFile[],
  prefix: string,
  content: Content,
  options: PlanOptions,
  tree: TreeOptions,
): { manifest: Manifest; tooLarge?: Diagnostic; previews?: Previews; lists?: ReadonlyMap<Catalog, readonly CatalogList[]> } {
  // Genre links are worked out when first needed: by the first preview, measured before anything is laid out.
  const rendering = itemRendering(content);
  const { linksOf } = rendering;
  const cache = (resource: ResourceName) => cacheHints(content, resource);

  const manifest = (tree.manifest ?? ((own: Manifest) => own))(buildManifest(content));
  const manifestBody = JSON.stringify(manifest);
  // Paths are made relative to the tree, then placed below its prefix as they are added.
  const own: OutputFile[] = tree.measureOnly ? [] : prefix === '' ? files : [];
  own.push({ path: MANIFEST_FILE, resource: 'manifest', body: manifestBody });
  const done = () => {
    if (tree.notFound) {
      for (const page of notFoundPages(manifest.resources.map((r) => (typeof r === 'string' ? r : r.name)))) {
        own.push({ path: page.path, resource: 'host', body: page.body });
      }
    }
    if (own !== files) {
      for (const file of own) {
        file.path = prefix + file.path;
        files.push(file);
      }
    }
    return { manifest };
  };
  // A manifest that must be configured first still declares its resources: a client that asks
  // anyway gets the specification's JSON 404 under them, as everywhere else.
  if (tree.manifestOnly) return done();

  const fingerprints = options.generator === undefined ? undefined : inputFingerprints(content, linksOf, options.generator);
  // Rendered once per item, when the output is measured (below), and used by the pages that list
  // it; a page rendered again after they are let go of (a file written twice, a caller's second
  // look) only renders them again.
  const previews = keptPreviews(linksOf);
  const catalogEnvelope = envelope('metas', cache('catalog'));

  // Measured before anything is laid out: hostile content can ask for millions of pages, and
  // the list of them would fill memory before a limit on it was checked. The previews it
  // renders to measure pages are the ones the pages are rendered from.
  // Measured trees bound their search results first: a configuration's tree is measured as part
  // of the whole content, before it is laid out.
  const budget = tree.measure && { listings: searchBudget(content, tree.measure.trees) };
  const lists = new Map(content.catalogs.map((catalog) => [catalog, catalogLists(catalog, budget)]));
  if (tree.measure) {
    const previewBytes = new Map<Item, number>();
    // Kept between builds by what a preview is rendered from: an edit renders few again.
    const kept = options.previewSizes && fingerprints && { sizes: options.previewSizes, fingerprintOf: fingerprints.item };
    const measure = (item: Item) => previews.bytesOf(item);
    const previewSize = (item: Item) => {
      let bytes = previewBytes.get(item);
      if (bytes === undefined) {
        bytes = kept ? kept.sizes.sizeOf(item.id, kept.fingerprintOf(item), () => measure(item)) : measure(item);
        previewBytes.set(item, bytes);
      }
      return bytes;
    };
    const manifestBytes = Buffer.byteLength(manifestBody);
    const layout: Layout = { content, lists, previewSize, catalogEnvelope, envelopes: rendering.envelopes, manifestBytes, ...tree.measure };
    const tooLarge = outputTooLarge(layout);
    if (tooLarge) return { manifest, tooLarge };
    if (tree.measureOnly) return { manifest };
  }

  const pages: PageRendering = {
    envelope: catalogEnvelope,
    previewOf: previews.previewOf,
    forgetPreviews: tree.keepPreviews ? () => {} : previews.forget,
    fingerprintOf: fingerprints?.page,
  };
  addCatalogPageFiles(own, lists, pages);
  addItemFiles(own, content, manifest, rendering, fingerprints?.item);
  addAddonCatalogFiles(own, content.addonCatalogs, envelope('addons', cache('addon_catalog')));
  return { ...done(), lists, ...(tree.keepPreviews && { previews }) };
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
