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
  REWRITES,
  type Host,
} from '../hosts/index.js';
import { MANIFEST_FILE } from '../shared/paths.js';
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
  const previewBytes = new Map<Item, number>();
  const previewSize = (item: Item) => {
    let bytes = previewBytes.get(item);
    if (bytes === undefined) previewBytes.set(item, (bytes = Buffer.byteLength(previewOf(item))));
    return bytes;
  };
  const layout: Layout = {
    content,
    byGenre,
    previewSize,
    catalogEnvelope,
    envelopes: rendering.envelopes,
    manifestBytes: Buffer.byteLength(manifestBody),
  };
  const tooLarge = outputTooLarge(layout);
  if (tooLarge) return { files: [], s3Files: [], manifest, diagnostics: [tooLarge] };

  const pages: PageRendering = { envelope: catalogEnvelope, previewOf, forgetPreviews: () => previews.clear(), fingerprintOf: fingerprints?.page };
  addCatalogPageFiles(files, byGenre, pages);
  addItemFiles(files, content, manifest, rendering, fingerprints?.item);

  for (const asset of content.assets) files.push({ path: asset.path, resource: 'asset', copyFrom: asset.source });

  if (options.templates) {
    for (const page of renderPages(options.templates, manifest, content.baseUrl)) files.push({ ...page, resource: 'page' });
  }
  const hosts = options.hosts ?? HOSTS;
  const s3Files = addHostFiles(files, content, manifest, hosts, options.outFromS3Dir);

  const diagnostics = [...conflicts(files), ...subtitlesWithoutStreams(content, hosts)];
  const tooLargeManifest = manifestTooLarge(layout.manifestBytes);
  if (tooLargeManifest) diagnostics.push(tooLargeManifest);
  return { files, s3Files, manifest, diagnostics };
}

/** Adds the rule files of the hosts that publish into the output folder; returns those of the S3 folder. */
function addHostFiles(
  files: OutputFile[],
  content: Content,
  manifest: Manifest,
  hosts: readonly Host[],
  outFromS3Dir: string | undefined,
): OutputFile[] {
  const rules = headerRules(content);
  const hostFile = (path: string, body: string) => files.push({ path, resource: 'host', body });
  if (hosts.includes('cloudflare') || hosts.includes('netlify')) {
    hostFile(HOST_FILES.headers, renderHeadersFile(rules));
    hostFile(HOST_FILES.redirects, renderRedirectsFile(REWRITES));
  }
  if (hosts.includes('cloudflare')) {
    for (const page of notFoundPages(manifest.resources.map((r) => (typeof r === 'string' ? r : r.name)))) hostFile(page.path, page.body);
  }
  if (hosts.includes('vercel')) hostFile(HOST_FILES.vercel, renderVercelJson(rules, REWRITES));
  if (hosts.includes('github-pages')) hostFile(HOST_FILES.nojekyll, '');
  return hosts.includes('s3')
    ? [
        { path: 'cors.json', resource: 'host', body: renderS3Cors() },
        { path: 'upload.sh', resource: 'host', body: renderS3Upload(rules, outFromS3Dir ?? '../dist') },
      ]
    : [];
}
