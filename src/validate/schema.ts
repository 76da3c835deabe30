// The single source of truth for the protocol's types and for the content format.
// One factory describes each object once; protocol (output) and content (input) differ only in
// their leaves: content URLs may be local files, dates may be bare, archive entries may be plain.
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Leaves shared by both sides

/** Issue parameters that name the diagnostic code a failed check should report. */
export interface IssueParams {
  code?: 'bad-file-name' | 'stream-source' | 'missing-asset' | 'asset-outside-content' | 'base-url-required';
  hint?: string;
}

/** An absolute URL (the client rejects relative ones): a scheme of two or more letters, then a parseable rest. */
export function isAbsoluteUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]+:/i.test(value) && URL.canParse(value);
}

export const absoluteUrl = z.string().refine(isAbsoluteUrl, {
  message: 'expected an absolute URL',
  params: { hint: 'the client rejects relative URLs; write https://… (or a local file path where the field allows one)' },
});

const MAX_NAME_BYTES = 200;

/** Device names Windows reserves, with any extension: `CON`, `nul.json`, `COM1`. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\.|$)/i;

/**
 * Why a value cannot be a path segment on every host, or undefined when it can. `whole` is for
 * values that are a whole file or folder name (ids, types): Windows and the hosts' file systems
 * also refuse device names and strip trailing dots and spaces there. A genre only ends a name
 * (`genre=Drama.json`), so those rules do not apply to it.
 */
export function fileNameProblem(value: string, whole = true): string | undefined {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..') return `is "${value}"`;
  if (/[/\\]/.test(value)) return 'contains "/" or "\\"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'contains a control character';
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (whole && WINDOWS_DEVICE.test(value)) return 'is a device name Windows reserves';
  if (whole && /[. ]$/.test(value)) return 'ends in a dot or a space, which Windows drops';
  return undefined;
}

const nameSchema = (whole: boolean) =>
  z.string().superRefine((value, ctx) => {
    const problem = fileNameProblem(value, whole);
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" ${problem}, so it cannot become a file name on every host`,
        params: {
          code: 'bad-file-name',
          hint: 'use letters, digits and -_:. (no slashes, not ending in a dot or space, not CON, NUL, COM1…), at most 200 bytes',
        } satisfies IssueParams,
      });
    }
  });

/** A string that becomes a file or folder name in the output (ids, types). */
export const fileName = nameSchema(true);
/** A genre: the end of a file name (`genre=Drama.json`). */
export const genreName = nameSchema(false);

const nonNegativeInt = z.number().int().nonnegative();
/** An environment variable's name, as `${NAME}` in values refers to it. */
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected a variable name (letters, digits and _)' });
const threeLetters = (what: string) =>
  z.string().regex(/^[a-z]{3}$/, { message: `expected a three-letter lowercase ${what} code` });

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** A calendar date or date-time to RFC 3339 in UTC, or undefined when no such moment exists (2023-02-30). */
export function toRfc3339(value: string): string | undefined {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h ?? 0), minute = Number(mi), second = Number(s);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  // Most dates in content are plain days: as the Date below would write them, without one (a
  // build has one per item and video; a Date each took about a tenth of a second per 100,000).
  if (h === undefined) return `${y}-${mo}-${d}T00:00:00.000Z`;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 onto 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  return date.toISOString();
}

const contentDate = z.string().transform((value, ctx) => {
  const iso = toRfc3339(value);
  if (iso) return iso;
  ctx.issues.push({
    code: 'custom',
    input: value,
    message: `"${value}" is not a date that exists`,
    params: { hint: 'write a date like 1968-10-01 or a date-time like 1968-10-01T20:00:00Z' } satisfies IssueParams,
  });
  return z.NEVER;
});

const protocolDate = z.string().refine((value) => toRfc3339(value) === value, {
  message: 'expected an RFC 3339 date-time in UTC with milliseconds (1968-10-01T00:00:00.000Z)',
});

/** `releaseInfo` and `runtime` are strings on the wire; YAML turns `1968` into a number. */
const textOrNumber = z.union([z.string(), z.number()]).transform(String);

// ---------------------------------------------------------------------------------------------
// The factory: each protocol object described once

interface Leaves {
  /** Image and media URL fields: absolute URLs out; absolute URLs or local files in. */
  url: z.ZodType<string, any>;
  /** How `url` fields may be written, the end of their descriptions (shown by editors). */
  urlForm: string;
  date: z.ZodType<string, any>;
  dateForm: string;
  text: z.ZodType<string, any>;
  archiveEntry: z.ZodType<[string] | [string, number], any>;
}

export const STREAM_SOURCES = [
  'url',
  'ytId',
  'infoHash',
  'rarUrls',
  'zipUrls',
  '7zipUrls',
  'tarUrls',
  'tgzUrls',
  'externalUrl',
  'playerFrameUrl',
] as const;

/** Stream fields that apply only beside one of these sources. */
export const SOURCE_FIELD_NEEDS: readonly (readonly [string, readonly (typeof STREAM_SOURCES)[number][]])[] = [
  ['announce', ['infoHash']],
  ['fileIdx', ['infoHash', 'rarUrls', 'zipUrls', '7zipUrls', 'tarUrls', 'tgzUrls']],
  ['fileMustInclude', ['infoHash', 'rarUrls', 'zipUrls', '7zipUrls', 'tarUrls', 'tgzUrls']],
  ['androidTvUrl', ['externalUrl']],
  ['tizenUrl', ['externalUrl']],
  ['webosUrl', ['externalUrl']],
];

// Descriptions (`.describe`) are for people writing content: editors show them on hover, from the
// JSON Schemas that `addon-gen schema` generates (jsonschema.ts). They change no check.
function describe(leaves: Leaves) {
  const url = (what: string) => leaves.url.optional().describe(`${what}: ${leaves.urlForm}`);

  const subtitle = {
    id: z.string().min(1).describe('The track id; in content files it defaults to {item or video id}:{lang}'),
    lang: threeLetters('ISO 639-3 language').describe('Language: ISO 639-3, three lowercase letters (eng, fra, deu)'),
    url: leaves.url.describe(`The subtitle file (.srt, .vtt): ${leaves.urlForm}`),
  };

  const streamBehaviorHints = z
    .strictObject({
      notWebReady: z.boolean().optional().describe('true: the web player must transcode it (not MP4 or not HTTPS)'),
      bingeGroup: z
        .string()
        .optional()
        .describe('The same group on the next episode\'s stream lets the player go on to it by itself'),
      countryWhitelist: z
        .array(threeLetters('ISO 3166-1 alpha-3 country'))
        .optional()
        .describe('The only countries where it plays: ISO 3166-1 alpha-3, lowercase (usa, gbr)'),
      proxyHeaders: z
        .strictObject({
          request: z.record(z.string(), z.string()).optional().describe('Headers the streaming server sends with its requests'),
          response: z.record(z.string(), z.string()).optional().describe('Headers the streaming server returns to the player'),
        })
        .optional()
        .describe('Headers for the streaming server (the Stremio desktop and Android apps)'),
      filename: z.string().optional().describe('The video\'s file name, for subtitle lookups'),
      videoHash: z.string().optional().describe('The OpenSubtitles hash of the video'),
      videoSize: nonNegativeInt.optional().describe('The video\'s size in bytes'),
    })
    .describe('Hints for the player');

  const archive = (kind: string) =>
    z
      .array(leaves.archiveEntry)
      .min(1)
      .optional()
      .describe(`Source: a ${kind} archive, its parts in order, each a URL or [URL, bytes]; ${leaves.urlForm}`);

  const streamShape = {
    url: url('Source: a video file'),
    ytId: z.string().min(1).optional().describe('Source: a YouTube video id (the 11 characters after watch?v=)'),
    infoHash: z
      .string()
      .regex(/^[0-9a-fA-F]{40}$/, { message: 'expected exactly 40 hexadecimal digits' })
      .transform((hash) => hash.toLowerCase())
      .optional()
      .describe('Source: a BitTorrent info hash, 40 hexadecimal digits'),
    // The client reads fileIdx as a 16-bit number.
    fileIdx: nonNegativeInt
      .max(65535)
      .optional()
      .describe('Which file of the torrent or archive to play, from 0; for infoHash and archive sources'),
    announce: z
      .array(z.string().min(1))
      .optional()
      .describe('Where to find peers: "tracker:" and a tracker URL, or "dht:" and the info hash; for infoHash'),
    fileMustInclude: z
      .array(z.string().min(1))
      .optional()
      .describe('Regular expressions: the first file whose name matches one plays; for infoHash and archive sources'),
    rarUrls: archive('RAR'),
    zipUrls: archive('ZIP'),
    '7zipUrls': archive('7-Zip'),
    tarUrls: archive('tar'),
    tgzUrls: archive('gzipped tar'),
    externalUrl: url('Source: a link opened outside the player (a browser, or the app that handles it)'),
    androidTvUrl: url('With externalUrl: the link Android TV opens instead'),
    tizenUrl: url('With externalUrl: the link Samsung (Tizen) TVs open instead'),
    webosUrl: url('With externalUrl: the link LG (webOS) TVs open instead'),
    playerFrameUrl: url('Source: a web page with a player, shown inside the client'),
    name: z.string().optional().describe('A short source name, shown in the stream list'),
    description: z.string().optional().describe('The text under the name (streams have no title)'),
    thumbnail: url('A thumbnail image'),
    behaviorHints: streamBehaviorHints.optional(),
  };

  /** The client tries the sources in order and takes the first: require exactly one. */
  const oneSource = (stream: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const sources = STREAM_SOURCES.filter((key) => stream[key] !== undefined);
    if (sources.length === 1) return;
    ctx.addIssue({
      code: 'custom',
      message:
        sources.length === 0
          ? 'a stream needs exactly one source, and this one has none'
          : `a stream needs exactly one source, and this one has ${sources.length}: ${sources.join(', ')}`,
      params: {
        code: 'stream-source',
        hint: `give exactly one of ${STREAM_SOURCES.join(', ')}; put alternatives in separate streams`,
      } satisfies IssueParams,
    });
  };

  const sourceFieldsNeed = (stream: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const [field, sources] of SOURCE_FIELD_NEEDS) {
      if (stream[field] !== undefined && !sources.some((s) => stream[s] !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `\`${field}\` only applies to a stream whose source is ${sources.join(' or ')}`,
        });
      }
    }
  };

  const link = z.strictObject({
    name: z.string().min(1).describe('The link text'),
    category: z.string().min(1).describe('The heading it is listed under (Wikipedia, Cast, Directors)'),
    url: absoluteUrl.describe('An absolute URL'),
  });

  const released = leaves.date.optional().describe(`The release date: ${leaves.dateForm}`);

  const metaShape = {
    id: fileName.describe('A unique id, which becomes a file name: no / or \\, no trailing dot or space, not CON or NUL, at most 200 bytes (pd:nosferatu-1922)'),
    type: fileName.describe('movie, series, channel, tv, or a type of your own'),
    name: z.string().min(1).describe('The title'),
    poster: url('The poster image'),
    posterShape: z.enum(['poster', 'square', 'landscape']).optional().describe('poster (2:3, the default), square or landscape'),
    background: url('The background image of the details page'),
    logo: url('A logo, shown on the details page instead of the name'),
    description: z.string().optional().describe('The summary on the details page'),
    releaseInfo: leaves.text.optional().describe('The text under the poster, such as 1922 or 1941–1943'),
    runtime: leaves.text.optional().describe('The running time as text, such as 94 min'),
    released,
    genres: z.array(genreName).optional().describe('Genres; each becomes an entry of its catalogs\' genre filter'),
    links: z.array(link).optional().describe('Links shown on the details page'),
    behaviorHints: z
      .strictObject({
        defaultVideoId: z
          .string()
          .min(1)
          .optional()
          .describe('The id of one of the item\'s videos: opening the item shows that video\'s streams at once'),
        hasScheduledVideos: z.boolean().optional().describe('true: videos with a future release date show as upcoming'),
      })
      .optional()
      .describe('Hints for the client'),
  };

  const videoShape = {
    id: fileName.describe('Unique within the item; default {item id}:{season}:{episode}, required without them'),
    title: z.string().describe('The title; default "Episode {episode}", required without an episode'),
    released,
    overview: z.string().optional().describe('The summary'),
    thumbnail: url('A thumbnail image'),
    season: nonNegativeInt.optional().describe('A whole number from 0; season 0 holds specials, shown last'),
    episode: nonNegativeInt.optional().describe('A whole number from 0'),
  };

  return { subtitle, streamShape, oneSource, sourceFieldsNeed, metaShape, videoShape };
}

// ---------------------------------------------------------------------------------------------
// Protocol: what addon-gen writes and the client reads

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

// Dot-separated parts are matched as "no `..` anywhere, no dot at either end", never as a
// repeated group (`(\.[a-z]+)+`): V8 keeps a backtracking entry for each repetition of a group,
// and a value of a few MiB of `a.` overflowed its stack, which ended the build with a RangeError.
// Each pattern below matches the same strings as the grouped one it replaces.
const SEMVER =
  /^(?!.*\.\.)(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-](?:[0-9A-Za-z.-]*[0-9A-Za-z-])?)?(?:\+[0-9A-Za-z-](?:[0-9A-Za-z.-]*[0-9A-Za-z-])?)?$/;
const semver = z.string().regex(SEMVER, { message: 'expected a semantic version such as 1.0.0' });
// No regex flags here or in any content schema: JSON Schema patterns have none (see jsonschema.ts).
const reverseDomain = z
  .string()
  .regex(/^(?!.*\.\.)[a-zA-Z0-9-]+\.[a-zA-Z0-9.-]*[a-zA-Z0-9-]$/, { message: 'expected a reverse-domain id such as org.example.films' });
/**
 * zod's email pattern, `^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`,
 * without its repeated groups (see SEMVER): no `..`, no label that starts with `-`.
 */
const EMAIL = /^(?!.*\.\.)(?![^@]*@.*\.-)(?:[A-Za-z0-9_'+\-][A-Za-z0-9_'+\-.]*)?[A-Za-z0-9_+-]@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,}$/;

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
  behaviorHints: ManifestBehaviorHints.optional(),
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

export type Subtitle = z.infer<typeof Subtitle>;
export type Stream = z.infer<typeof Stream>;
export type Video = z.infer<typeof Video>;
export type MetaItemPreview = z.infer<typeof MetaItemPreview>;
export type MetaItem = z.infer<typeof MetaItem>;
export type ExtraProp = z.infer<typeof ExtraProp>;
export type ManifestCatalog = z.infer<typeof ManifestCatalog>;
export type ManifestResource = z.infer<typeof ManifestResource>;
export type Manifest = z.infer<typeof Manifest>;
export type CacheHints = { cacheMaxAge?: number; staleRevalidate?: number; staleError?: number };

// ---------------------------------------------------------------------------------------------
// Content: what people write in YAML

/** Where the output will be published: http(s), no query or fragment (the client appends paths). */
export const baseUrl = z.string().refine(
  (value) => {
    if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return false;
    const url = new URL(value);
    return url.search === '' && url.hash === '';
  },
  { message: 'expected an http:// or https:// URL without a query or fragment, such as https://user.github.io/repo/' },
);

/** Turns a local file path, relative to the YAML file, into the public URL it will have. */
export type LocalFileResolver = (path: string) => { url: string } | { message: string; params: IssueParams };

export function contentSchemas(resolveLocalFile: LocalFileResolver) {
  const urlOrFile = z
    .string()
    .min(1)
    .transform((value, ctx) => {
      if (isAbsoluteUrl(value)) return value;
      const resolved = resolveLocalFile(value);
      if ('url' in resolved) return resolved.url;
      ctx.issues.push({ code: 'custom', input: value, message: resolved.message, params: resolved.params });
      return z.NEVER;
    });
  const archiveUrl = urlOrFile;
  const urlForm = 'an absolute URL (https://…), or a file relative to this YAML file';
  const input = describe({
    url: urlOrFile,
    urlForm,
    date: contentDate,
    dateForm: 'a date (1922-03-04), a date and time (1922-03-04 20:00), or a date-time with an offset',
    text: textOrNumber,
    // A plain URL in YAML is the one-element form the spec writes as [url].
    archiveEntry: z.union([
      archiveUrl.transform((url): [string] => [url]),
      z.tuple([archiveUrl]),
      z.tuple([archiveUrl, nonNegativeInt]),
    ]),
  });

  const subtitle = z.strictObject({ ...input.subtitle, id: input.subtitle.id.optional() }).describe('A subtitle track');
  const subtitles = (whose: string) => z.array(subtitle).optional().describe(`Subtitles ${whose}`);
  const stream = z
    .strictObject({ ...input.streamShape, subtitles: subtitles('for this stream only') })
    .superRefine(input.oneSource)
    .superRefine(input.sourceFieldsNeed)
    .describe(`What plays: exactly one source (${STREAM_SOURCES.join(', ')}); put alternatives in separate streams`);
  const streams = (whose: string) => z.array(stream).optional().describe(whose);

  const video = z
    .strictObject({
      ...input.videoShape,
      // Both default from season and episode (see validate.ts); required otherwise.
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
      trailerStreams: streams('Trailers: streams of any source'),
      catalogs: z
        .array(fileName)
        .optional()
        .describe('The ids of the catalogs (of its type) it appears in; default: every catalog of its type with items: all'),
      streams: streams('What plays, for an item without videos'),
      subtitles: subtitles('for an item without videos, offered for each of its streams'),
      videos: z
        .array(video)
        .optional()
        .describe('Episodes of a series or videos of a channel; streams and subtitles then go on each video'),
    })
    .describe('An item: a film, a series, a channel');

  const seconds = (what: string) => nonNegativeInt.optional().describe(`Seconds ${what}`);
  const cacheSettings = {
    maxAge: seconds('clients and CDNs may keep an answer (cacheMaxAge, max-age)'),
    staleRevalidate: seconds('an old answer may be served while a new one is fetched (stale-while-revalidate)'),
    staleError: seconds('an old answer may be served while the host fails (stale-if-error)'),
  };
  const cacheOf = (resource: string) =>
    z.strictObject(cacheSettings).optional().describe(`Overrides for ${resource}`);

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
      behaviorHints: ManifestBehaviorHints.optional().describe('Hints for the client'),
      baseUrl: baseUrl
        .optional()
        .describe('The http(s) URL where the output will be published (local files need it); --base-url wins'),
      secrets: z
        .array(variableName)
        .optional()
        .describe('More variables whose values must never be published, besides those named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *AUTH*'),
      publish: z
        .array(variableName)
        .optional()
        .describe('Variables that look secret and may be published all the same (${NAME} in values)'),
      cache: z
        .strictObject({
          ...cacheSettings,
          manifest: cacheOf('manifest.json'),
          catalog: cacheOf('catalog pages'),
          meta: cacheOf('metas'),
          stream: cacheOf('streams'),
          subtitles: cacheOf('subtitles'),
        })
        .optional()
        .describe('How long clients and CDNs may keep answers'),
      catalogs: z.array(catalog).default([]).describe('The catalogs, in the order Stremio shows them'),
    })
    .describe('The settings of an addon-gen addon (addon.yaml)');

  return { addon, catalog, item, video, stream, subtitle };
}

export type ContentSchemas = ReturnType<typeof contentSchemas>;
export type AddonSettings = z.output<ContentSchemas['addon']>;
export type CatalogSettings = z.output<ContentSchemas['catalog']>;
export type ContentItem = z.output<ContentSchemas['item']>;
export type ContentVideo = z.output<ContentSchemas['video']>;
export type ContentStream = z.output<ContentSchemas['stream']>;
export type ContentSubtitle = z.output<ContentSchemas['subtitle']>;
export type CacheSettings = NonNullable<AddonSettings['cache']>;
export type ResourceName = 'manifest' | 'catalog' | 'meta' | 'stream' | 'subtitles';

/** Fields renamed between spec versions or object kinds, for "did you mean" hints. */
export const RENAMED_FIELDS: Record<string, string> = {
  title: 'a stream\'s text is `description`; only videos have `title`',
  name: 'a video\'s name is `title`',
  stream: 'write `streams`, a list',
  subtitle: 'write `subtitles`, a list',
  genre: 'write `genres`, a list',
  trailers: 'write `trailerStreams`, a list of streams',
};
