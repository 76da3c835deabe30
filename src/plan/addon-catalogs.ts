// Addon collections: one file per collection, `addon_catalog/{type}/{id}.json`, holding
// `{"addons": [...]}`, the descriptors the Addons screen lists and installs from.
import type { AddonCatalog, ListedAddon } from '../shared/content.js';
import { resourcePath } from '../shared/paths.js';
import type { ManifestPreview } from '../validate/schema.js';
import type { OutputFile } from './output-file.js';
import type { Envelope } from './wire.js';

/**
 * Adds each collection's file. No `inputs`: the manifests are read again by every build and may
 * have changed, so the files are rendered each time and written when their bytes differ.
 */
export function addAddonCatalogFiles(files: OutputFile[], collections: readonly AddonCatalog[], addons: Envelope): void {
  for (const collection of collections) {
    const body = () => addons.open + JSON.stringify(collection.addons.flatMap(descriptor)) + addons.close;
    files.push({ path: resourcePath('addon_catalog', collection.type, collection.id), resource: 'addon_catalog', body });
  }
}

/** `{transportUrl, manifest}` in a fixed key order: the client's descriptor of an addon it may install. */
function descriptor(addon: ListedAddon): { transportUrl: string; manifest: ManifestPreview }[] {
  const manifest = addon.manifest;
  if (!manifest) return [];
  return [
    {
      transportUrl: addon.transportUrl,
      manifest: {
        id: manifest.id,
        version: manifest.version,
        name: manifest.name,
        description: manifest.description,
        logo: manifest.logo,
        background: manifest.background,
        types: manifest.types,
        resources: manifest.resources,
        behaviorHints: manifest.behaviorHints,
      },
    },
  ];
}

/** The build summary's count of collections and of the addons they list (one in two, twice); nothing without any. */
export function addonCollectionCounts(collections: readonly AddonCatalog[]): { addonCollections?: { collections: number; addons: number } } {
  if (collections.length === 0) return {};
  return { addonCollections: { collections: collections.length, addons: collections.reduce((n, c) => n + c.addons.length, 0) } };
}
