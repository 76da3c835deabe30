// The manifest: what the client reads first, to learn which requests this addon answers.
import { problem, type Diagnostic } from '../diagnostics/index.js';
import type { ExtraProp, Manifest, ManifestCatalog, ManifestResource } from '../validate/schema.js';
import { streamOwners, type Catalog, type Content, type Item } from '../shared/content.js';

/** The official SDK refuses larger manifests. */
export const MANIFEST_LIMIT_BYTES = 8 * 1024;

export function buildManifest(content: Content): Manifest {
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

  // Typed, so that a misspelt key is a compile error rather than a field the client ignores.
  const manifest: Manifest = {
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
  };
  return compact(manifest);
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

/** The manifest-too-large warning when the manifest's body is over what the official SDK accepts. */
export function manifestTooLarge(manifestBytes: number): Diagnostic | undefined {
  if (manifestBytes <= MANIFEST_LIMIT_BYTES) return undefined;
  return problem('manifest-too-large', { bytes: manifestBytes, limit: MANIFEST_LIMIT_BYTES }, {});
}

/** Drops undefined fields: the client rejects `null`, and absent is the protocol's "not set". */
function compact<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}
