// The manifest: what the client reads first, to learn which requests this addon answers.
import { problem, type Diagnostic } from '../diagnostics/index.js';
import type { ExtraProp, Manifest, ManifestCatalog, ManifestResource } from '../validate/schema.js';
import type { Catalog, Content, ManifestOnlyField } from '../shared/content.js';
import { offeredResources } from '../shared/resources.js';
import { ALL_GENRES } from '../shared/genres.js';

/** The official SDK refuses larger manifests. */
export const MANIFEST_LIMIT_BYTES = 8 * 1024;

export function buildManifest(content: Content): Manifest {
  const { addon } = content;
  const idPrefixes = content.idPrefixes;
  // Typed resources with idPrefixes: the client asks only for ids this addon has. Written as
  // addon.yaml declares them when it does (validate checked them against the content).
  const declared = new Map<string, { types?: string[]; idPrefixes?: string[] }>();
  for (const r of addon.resources ?? []) declared.set(typeof r === 'string' ? r : r.name, typeof r === 'string' ? {} : r);
  const resources: ManifestResource[] = offeredResources({ ...content, declaredPrefixes: addon.idPrefixes }).map((offered) => {
    if (offered.name === 'catalog' || offered.name === 'addon_catalog') return offered.name;
    const own = declared.get(offered.name);
    return { name: offered.name, types: own?.types ?? offered.types, idPrefixes: own?.idPrefixes ?? offered.idPrefixes };
  });

  return withReleaseFields(addon, {
    id: addon.id,
    types: content.types,
    resources,
    idPrefixes,
    catalogs: content.catalogs.map(manifestCatalog),
    addonCatalogs: content.addonCatalogs.length > 0 ? content.addonCatalogs.map(({ type, id, name }) => ({ type, id, name })) : undefined,
    behaviorHints: addon.behaviorHints,
  });
}

/**
 * `manifest` with the fields only it shows (itemSettings) as `addon` has them, in the manifest's
 * order: a whole build's, and an edit's when a release changed only those (build/edit.ts).
 */
export function withReleaseFields(addon: Pick<Content['addon'], ManifestOnlyField>, manifest: Omit<Manifest, ManifestOnlyField>): Manifest {
  const { id, ...rest } = manifest;
  // Typed, so that a misspelt key is a compile error rather than a field the client ignores.
  const whole: Manifest = {
    id,
    version: addon.version,
    name: addon.name,
    description: addon.description,
    logo: addon.logo,
    background: addon.background,
    contactEmail: addon.contactEmail,
    ...rest,
  };
  return compact(whole);
}

/**
 * A catalog's extras place it (README, "Where catalogs show"): the Board loads catalogs without a
 * required extra; Discover lists those whose required extras all have options, opening on the
 * first; search asks those whose only required extra, if any, is `search`.
 */
function manifestCatalog(catalog: Catalog): ManifestCatalog {
  const extra: ExtraProp[] = [];
  if (catalog.search?.only) extra.push({ name: 'search', isRequired: true });
  else {
    if (!catalog.board) extra.push({ name: 'genre', isRequired: true, options: [ALL_GENRES, ...catalog.genres] });
    else if (catalog.genres.length > 0) extra.push({ name: 'genre', isRequired: false, options: catalog.genres });
    if (catalog.search) extra.push({ name: 'search', isRequired: false });
  }
  // Paging happens only when the catalog declares `skip`.
  extra.push({ name: 'skip', isRequired: false });
  return { type: catalog.type, id: catalog.id, name: catalog.name, extra };
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
