// Content: what people write in YAML.
import { z } from 'zod';
import { describe, STREAM_SOURCES } from './schema-factory.js';
import { RESOURCES } from '../shared/resources.js';
import { DEFAULT_MAX_CONFIGURATIONS, MAX_CONFIGURATIONS_LIMIT } from '../shared/configurations.js';
import { ManifestBehaviorHints } from './protocol-schema.js';
import { addonCatalogSchema } from './addon-catalogs.js';
import {
  contentDate,
  EMAIL,
  fileName,
  genreName,
  isAbsoluteUrl,
  nonNegativeInt,
  reverseDomain,
  semver,
  textOrNumber,
  variableName,
  type IssueParams,
} from './schema-leaves.js';

export const BASE_URL_FORM = 'expected an http:// or https:// URL without a query or fragment, such as https://user.github.io/repo/';
export const BASE_URL_CREDENTIALS =
  'expected a URL without a user name or password: every link and local file URL the build writes would publish them';

/**
 * What is wrong with a base URL, or undefined. The client appends paths to it, so no query or
 * fragment; it is written into every link, so nothing secret.
 */
export function baseUrlProblem(value: string): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  // First: the other messages print the URL back.
  if (url && (url.username !== '' || url.password !== '')) return BASE_URL_CREDENTIALS;
  if (!url || !/^https?:\/\//i.test(value) || url.search !== '' || url.hash !== '') return BASE_URL_FORM;
  // The install URL pasted where its folder belongs: every file would be looked for below it.
  if (/\/manifest\.json$/i.test(url.pathname))
    return "expected the folder the files are published in, not the manifest's URL: leave out manifest.json";
  return undefined;
}

/** Where the output will be published. */
export const baseUrl = z.string().superRefine((value, ctx) => {
  const message = baseUrlProblem(value);
  if (message !== undefined) ctx.addIssue({ code: 'custom', message });
});

/** Turns a local file path, relative to the YAML file, into the public URL it will have. */
export type LocalFileResolver = (path: string) => { url: string } | { message: string; params: IssueParams };

export function contentSchemas(resolveLocalFile: LocalFileResolver) {
  const urlOrFile = urlOrFileSchema(resolveLocalFile);
  const archiveUrl = urlOrFile;
  const urlForm = 'an absolute URL (https://…), or a file relative to this YAML file';
  const input = describe({
    url: urlOrFile,
    urlForm,
    date: contentDate,
    dateForm: 'a date (1922-03-04), a date and time (1922-03-04 20:00), or a date-time with an offset',
    text: textOrNumber,
    // A plain URL in YAML is the one-element form the spec writes as [url].
    archiveEntry: z.union([archiveUrl.transform((url): [string] => [url]), z.tuple([archiveUrl]), z.tuple([archiveUrl, nonNegativeInt])]),
  });
  const { subtitle, stream, video, item } = itemSchemas(input);
  const { catalog, addon } = settingsSchemas(urlOrFile, urlForm);
  return { addon, catalog, item, video, stream, subtitle };
}

/** An absolute URL, or a local file that becomes one. */
function urlOrFileSchema(resolveLocalFile: LocalFileResolver) {
  return z
    .string()
    .min(1)
    .transform((value, ctx) => {
      if (isAbsoluteUrl(value)) return value;
      const resolved = resolveLocalFile(value);
      if ('url' in resolved) return resolved.url;
      ctx.issues.push({ code: 'custom', input: value, message: resolved.message, params: resolved.params });
      return z.NEVER;
    });
}

/** An item file's objects, from the content side's leaves. */
function itemSchemas(input: ReturnType<typeof describe>) {
  const subtitle = z.strictObject({ ...input.subtitle, id: input.subtitle.id.optional(), when: when('this subtitle') }).describe('A subtitle track');
  const subtitles = (whose: string) => z.array(subtitle).optional().describe(`Subtitles ${whose}`);
  const stream = z
    .strictObject({ ...input.streamShape, subtitles: subtitles('for this stream only'), when: when('this stream') })
    .superRefine(input.oneSource)
    .superRefine(input.sourceFieldsNeed)
    .describe(`What plays: exactly one source (${STREAM_SOURCES.join(', ')}); put alternatives in separate streams`);
  const streams = (whose: string) => z.array(stream).optional().describe(whose);

  const video = z
    .strictObject({
      ...input.videoShape,
      // Both default from season and episode (see items.ts); required otherwise.
      id: input.videoShape.id.optional(),
      title: input.videoShape.title.optional(),
      streams: streams('What plays for this video'),
      subtitles: subtitles('of this video, offered for each of its streams'),
      trailerStreams: streams('Trailers: streams of any source'),
    })
    .describe('An episode of a series or a video of a channel');

  const item = z
    .strictObject({
      ...input.metaShape,
      name: input.metaShape.name
        .optional()
        .describe('The title; leave it out to add streams or subtitles to a title another addon describes (Cinemeta, for IMDb ids)'),
      trailerStreams: streams('Trailers: streams of any source'),
      catalogs: z
        .array(fileName)
        .optional()
        .describe('The ids of the catalogs (of its type) it appears in; default: every catalog of its type with items: all'),
      streams: streams('What plays, for an item without videos'),
      subtitles: subtitles('for an item without videos, offered for each of its streams'),
      videos: z.array(video).optional().describe('Episodes of a series or videos of a channel; streams and subtitles then go on each video'),
      when: when('the item'),
    })
    .describe('An item: a film, a series, a channel');
  return { subtitle, stream, video, item };
}

/** addon.yaml's objects. */
function settingsSchemas(urlOrFile: ReturnType<typeof urlOrFileSchema>, urlForm: string) {
  const seconds = (what: string) => nonNegativeInt.optional().describe(`Seconds ${what}`);
  const cacheSettings = {
    maxAge: seconds('clients and CDNs may keep an answer (cacheMaxAge, max-age)'),
    staleRevalidate: seconds('an old answer may be served while a new one is fetched (stale-while-revalidate)'),
    staleError: seconds('an old answer may be served while the host fails (stale-if-error)'),
  };
  const cacheOf = (resource: string) => z.strictObject(cacheSettings).optional().describe(`Overrides for ${resource}`);

  const catalog = z
    .strictObject({
      id: fileName.describe('Unique with its type; becomes part of file names'),
      type: fileName.describe('The type of the items it lists (movie, series, …)'),
      name: z.string().min(1).describe('The title of its row on the Board and in Discover'),
      genres: z
        .union([z.literal('auto'), z.array(genreName)])
        .optional()
        .describe('A genre filter: a list of genres, or auto for every genre its items carry, sorted'),
      sort: z
        .enum(['name', '-name', 'released', '-released', 'releaseInfo', '-releaseInfo'])
        .optional()
        .describe('The order of its items, a leading - for descending; default: the order they are read in'),
      items: z
        .enum(['all', 'listed'])
        .default('all')
        .describe('all: every item of its type without a catalogs field, and those naming it; listed: only items naming it'),
      board: z.boolean().default(true).describe('false: not a row on the Board, only a list in Discover, which opens on its first genre option, All'),
      search: z
        .union([z.boolean(), z.literal('only')])
        .default(false)
        .describe("true: Stremio's search finds its items too; only: a catalog for search alone, neither on the Board nor in Discover"),
      searchQueries: z
        .enum(['all', 'words', 'names'])
        .optional()
        .describe('Which queries a static host gets result files for: each word of each name, each whole name, or both (all, the default)'),
      when: when('the catalog'),
    })
    .describe('A catalog: a row on the Board and a list in Discover');

  const addon = z
    .strictObject({
      id: reverseDomain.describe('Unique, reverse-domain (org.example.films); never change it once people install the addon'),
      version: semver.describe('A semantic version (1.0.0); raise it when you publish changes'),
      name: z.string().min(1).describe('Shown in the addon list and on the install page'),
      description: z.string().default('').describe('One or two sentences for the addon list'),
      logo: urlOrFile.optional().describe(`A square logo: ${urlForm}`),
      background: urlOrFile.optional().describe(`A background image: ${urlForm}`),
      contactEmail: z.email({ message: 'expected an email address', pattern: EMAIL }).optional().describe('An address for people to write to'),
      types: z.array(fileName).min(1).optional().describe('The types it serves; default: those of its catalogs and items'),
      idPrefixes: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe('What every id starts with; default: derived from the ids, the part up to the first ":"'),
      resources: resourcesSchema(),
      behaviorHints: ManifestBehaviorHints.optional().describe('Hints for the client'),
      baseUrl: baseUrl.optional().describe('The http(s) URL where the output will be published (local files need it); --base-url wins'),
      secrets: z
        .array(variableName)
        .optional()
        .describe('More variables whose values must never be published, besides those named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *AUTH*'),
      publish: z.array(variableName).optional().describe('Variables that look secret and may be published all the same (${NAME} in values)'),
      cache: z
        .strictObject({
          ...cacheSettings,
          manifest: cacheOf('manifest.json'),
          catalog: cacheOf('catalog pages'),
          meta: cacheOf('metas'),
          stream: cacheOf('streams'),
          subtitles: cacheOf('subtitles'),
          addon_catalog: cacheOf('addon collections'),
        })
        .optional()
        .describe('How long clients and CDNs may keep answers'),
      config: z
        .array(configOption)
        .optional()
        .describe('Options people choose on the configure page; every combination is pre-built into a tree of its own'),
      maxConfigurations: z
        .number()
        .int()
        .positive()
        .max(MAX_CONFIGURATIONS_LIMIT)
        .optional()
        .describe(
          `How many configurations (combinations of config values) the build may write; default ${DEFAULT_MAX_CONFIGURATIONS}, at most ${MAX_CONFIGURATIONS_LIMIT}`,
        ),
      catalogs: z.array(catalog).default([]).describe('The catalogs, in the order Stremio shows them'),
      addonCatalogs: z
        .array(addonCatalogSchema)
        .default([])
        .describe('Addon collections: lists of other addons on the Addons screen, in the order Stremio shows them'),
      playlists,
    })
    .describe('The settings of an addon-gen addon (addon.yaml)');

  return { catalog, addon };
}

/**
 * An entry of `playlists`: a playlist file of the content folder or a URL, and the settings of its
 * channels. Those load reads (load/playlist-settings.ts), once this schema passes.
 */
const playlistSettings = z
  .strictObject({
    file: z
      .string()
      .regex(/\.m3u8?$/i, { message: 'expected the path of a .m3u or .m3u8 file, relative to addon.yaml' })
      .optional()
      .describe('A playlist file of the content folder, relative to addon.yaml'),
    url: z
      .string()
      .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), { message: 'expected an http:// or https:// URL' })
      .optional()
      .describe('A playlist read over HTTP(S) at every build; the build fails when it cannot be read'),
    type: fileName.optional().describe('The type of its channels; default tv'),
    // The start of every channel's id, so of a file name: checked here once, not in each channel's id.
    idPrefix: genreName.min(1).optional().describe('What its channel ids start with; default iptv:'),
    catalog: fileName.optional().describe('The catalog its channels are listed in (declared in catalogs); default: every catalog of their type'),
  })
  .refine((entry) => (entry.file === undefined) !== (entry.url === undefined), { message: 'expected exactly one of file and url' })
  .describe('A playlist and the settings of its channels');

const playlists = z
  .array(playlistSettings)
  .optional()
  .describe('M3U playlists: settings of those in the content folder (file), and those read at build time (url)');

/** A value of a config option as written: a number is the text it reads as (`options: [720, 1080]`). */
const configValue = z.union([z.string(), z.number().transform(String), z.boolean()]);

/** `when`: per config key, the value or the values it is kept for; every key must match. */
function when(what: string) {
  return z
    .record(z.string(), z.union([configValue, z.array(configValue).min(1)]))
    .optional()
    .describe(`Keeps ${what} only in the configurations that match: per config key, a value or a list of values`);
}

/**
 * An option of `config`, as the official SDK declares them. text, number and password are read so
 * that validate can say why they cannot be pre-built, rather than "expected select or checkbox".
 */
const configOption = z
  .strictObject({
    key: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, { message: 'expected a key of letters, digits, _ and -, starting with a letter (quality)' })
      .describe("The name `when` uses, and part of each configuration's folder"),
    type: z.enum(['select', 'checkbox', 'text', 'number', 'password']).describe('select or checkbox: the kinds whose values are known at build time'),
    title: z.string().min(1).optional().describe('The label on the configure page; default: the key'),
    options: z
      .array(z.union([z.string().min(1), z.number().transform(String)]))
      .min(1)
      .optional()
      .describe("A select's values"),
    default: configValue.optional().describe("The value of the root tree and the configure page's first choice; default: the first option, or false"),
    required: z.boolean().optional().describe('As in the SDK; a pre-built option always has a value'),
  })
  .describe('A configuration option');

/** `resources` in addon.yaml: names, or objects with the types and prefixes, as a manifest has them. */
function resourcesSchema() {
  const name = z.enum(RESOURCES).describe('catalog, meta, stream, subtitles or addon_catalog');
  const typed = z
    .strictObject({
      name,
      types: z.array(fileName).min(1).optional().describe('The types it is offered for; default: those the content has'),
      idPrefixes: z.array(z.string().min(1)).min(1).optional().describe("What its requests' ids start with; default: derived from the ids"),
    })
    .describe('A resource with its types and id prefixes');
  return z
    .array(z.union([name, typed]))
    .min(1)
    .optional()
    .describe('What the addon offers (catalog, meta, stream, subtitles); default: what the content has, and checked against it when written');
}

export type ContentSchemas = ReturnType<typeof contentSchemas>;
export type AddonSettings = z.output<ContentSchemas['addon']>;
export type CatalogSettings = z.output<ContentSchemas['catalog']>;
export type ContentItem = z.output<ContentSchemas['item']>;
export type ContentVideo = z.output<ContentSchemas['video']>;
export type ContentStream = z.output<ContentSchemas['stream']>;
export type ContentSubtitle = z.output<ContentSchemas['subtitle']>;
export type CacheSettings = NonNullable<AddonSettings['cache']>;
export type ConfigOptionSettings = NonNullable<AddonSettings['config']>[number];

/** Fields renamed between spec versions or object kinds, for "did you mean" hints. */
export const RENAMED_FIELDS: Record<string, string> = {
  title: "a stream's text is `description`; only videos have `title`",
  name: "a video's name is `title`",
  stream: 'write `streams`, a list',
  subtitle: 'write `subtitles`, a list',
  genre: 'write `genres`, a list',
  trailers: 'write `trailerStreams`, a list of streams',
};
