// Protocol: what addon-gen writes and the client reads.
import { z } from 'zod';
import { describe } from './schema-factory.js';
import { absoluteUrl, nonNegativeInt, protocolDate, reverseDomain, semver } from './schema-leaves.js';

const wire = describe({
  url: absoluteUrl,
  urlForm: 'an absolute URL',
  date: protocolDate,
  dateForm: 'an RFC 3339 date-time in UTC with milliseconds',
  text: z.string(),
  archiveEntry: z.union([z.tuple([absoluteUrl]), z.tuple([absoluteUrl, nonNegativeInt])]),
});

export const Subtitle = z.strictObject(wire.subtitle);
const streamObject = z.strictObject({ ...wire.streamShape, subtitles: z.array(Subtitle).optional() });
export const Stream = streamObject.superRefine(wire.oneSource);
export const Video = z.strictObject({ ...wire.videoShape, trailerStreams: z.array(Stream).optional() });
export const MetaItemPreview = z.strictObject(wire.metaShape);
export const MetaItem = z.strictObject({
  ...wire.metaShape,
  trailerStreams: z.array(Stream).optional(),
  videos: z.array(Video).optional(),
});

export const ExtraProp = z.strictObject({
  name: z.string(),
  isRequired: z.boolean().optional(),
  options: z.array(z.string()).optional(),
  optionsLimit: z.number().int().positive().optional(),
});
export const ManifestCatalog = z.strictObject({
  type: z.string(),
  id: z.string(),
  name: z.string(),
  extra: z.array(ExtraProp),
});
export const ManifestResource = z.union([
  z.string(),
  z.strictObject({ name: z.string(), types: z.array(z.string()), idPrefixes: z.array(z.string()).optional() }),
]);
export const ManifestBehaviorHints = z.strictObject({
  adult: z.boolean().optional().describe('true: the addon has adult content'),
  p2p: z.boolean().optional().describe('true: some streams are BitTorrent (peer to peer)'),
  configurable: z.boolean().optional().describe('true: Stremio shows a Configure button that opens {base URL}/configure'),
  configurationRequired: z.boolean().optional().describe('true: the addon cannot be installed until it is configured'),
});

/** An option of a configurable addon, as the official SDK declares it (a checked checkbox: `default: "checked"`). */
export const ManifestConfig = z.strictObject({
  key: z.string(),
  type: z.enum(['text', 'number', 'password', 'checkbox', 'select']),
  title: z.string().optional(),
  options: z.array(z.string()).optional(),
  default: z.string().optional(),
  required: z.boolean().optional(),
});

/** An addon collection in a manifest: the client asks `addon_catalog/{type}/{id}.json`. */
export const ManifestAddonCatalog = z.strictObject({ type: z.string(), id: z.string(), name: z.string() });

export const Manifest = z.strictObject({
  id: reverseDomain,
  version: semver,
  name: z.string().min(1),
  description: z.string(),
  logo: absoluteUrl.optional(),
  background: absoluteUrl.optional(),
  contactEmail: z.string().optional(),
  types: z.array(z.string()),
  resources: z.array(ManifestResource),
  idPrefixes: z.array(z.string()).optional(),
  catalogs: z.array(ManifestCatalog),
  addonCatalogs: z.array(ManifestAddonCatalog).optional(),
  behaviorHints: ManifestBehaviorHints.optional(),
  config: z.array(ManifestConfig).optional(),
});

/** A resource of another addon's manifest: its types and prefixes may be left out. */
const ListedResource = z.union([
  z.string(),
  z.strictObject({ name: z.string(), types: z.array(z.string()).optional(), idPrefixes: z.array(z.string()).optional() }),
]);

/**
 * The part of a listed addon's manifest that an addon collection publishes: stremio-core's
 * ManifestPreview, and `resources`, which the client core of @stremio/stremio-core-web 0.62
 * requires as well (it reads each entry as a whole Manifest, whose `catalogs` default to none,
 * and skips an entry without `resources`).
 */
export const ManifestPreview = z.strictObject({
  id: z.string().min(1),
  version: semver,
  name: z.string(),
  description: z.string().optional(),
  logo: absoluteUrl.optional(),
  background: absoluteUrl.optional(),
  types: z.array(z.string()),
  resources: z.array(ListedResource),
  behaviorHints: ManifestBehaviorHints.optional(),
});
export const AddonDescriptorPreview = z.strictObject({ transportUrl: absoluteUrl, manifest: ManifestPreview });

/**
 * Another addon's manifest, as the client must read it to show the addon in a collection and to
 * install it (stremio-core's Manifest): other fields are the addon's own business. A field that
 * the client reads with a default on error (logo, background) is not checked; one it reads
 * strictly is, since it would make the whole manifest fail there.
 */
export const ListedManifest = z.looseObject({
  id: z.string().min(1),
  version: semver,
  name: z.string(),
  description: z.string().nullish(),
  contactEmail: z.string().nullish(),
  types: z.array(z.string()),
  resources: z.array(
    z.union([z.string(), z.looseObject({ name: z.string(), types: z.array(z.string()).nullish(), idPrefixes: z.array(z.string()).nullish() })]),
  ),
  idPrefixes: z.array(z.string()).nullish(),
  catalogs: z.array(z.looseObject({ id: z.string(), type: z.string(), name: z.string().nullish() })).optional(),
  addonCatalogs: z.array(z.looseObject({ id: z.string(), type: z.string(), name: z.string().nullish() })).optional(),
  behaviorHints: z
    .looseObject({
      adult: z.boolean().optional(),
      p2p: z.boolean().optional(),
      configurable: z.boolean().optional(),
      configurationRequired: z.boolean().optional(),
    })
    .optional(),
});

const cacheHints = {
  cacheMaxAge: nonNegativeInt.optional(),
  staleRevalidate: nonNegativeInt.optional(),
  staleError: nonNegativeInt.optional(),
};

/** Response bodies: exactly one resource field each (the client rejects none or two). */
export const CatalogResponse = z.strictObject({ metas: z.array(MetaItemPreview), ...cacheHints });
export const MetaResponse = z.strictObject({ meta: MetaItem, ...cacheHints });
export const StreamResponse = z.strictObject({ streams: z.array(Stream), ...cacheHints });
export const SubtitlesResponse = z.strictObject({ subtitles: z.array(Subtitle), ...cacheHints });
export const AddonsResponse = z.strictObject({ addons: z.array(AddonDescriptorPreview), ...cacheHints });

export type Subtitle = z.infer<typeof Subtitle>;
export type Stream = z.infer<typeof Stream>;
export type Video = z.infer<typeof Video>;
export type MetaItemPreview = z.infer<typeof MetaItemPreview>;
export type MetaItem = z.infer<typeof MetaItem>;
export type ExtraProp = z.infer<typeof ExtraProp>;
export type ManifestCatalog = z.infer<typeof ManifestCatalog>;
export type ManifestResource = z.infer<typeof ManifestResource>;
export type Manifest = z.infer<typeof Manifest>;
export type ManifestPreview = z.infer<typeof ManifestPreview>;
export type ListedManifest = z.infer<typeof ListedManifest>;
export type CacheHints = { cacheMaxAge?: number; staleRevalidate?: number; staleError?: number };
export type ResourceName = 'manifest' | 'catalog' | 'meta' | 'stream' | 'subtitles' | 'addon_catalog';
