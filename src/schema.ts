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

/** Why a value cannot be a path segment on every host, or undefined when it can. */
export function fileNameProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..') return `is "${value}"`;
  if (/[/\\]/.test(value)) return 'contains "/" or "\\"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'contains a control character';
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  return undefined;
}

/** A string that becomes a file or folder name in the output (ids, types, genres). */
export const fileName = z.string().superRefine((value, ctx) => {
  const problem = fileNameProblem(value);
  if (problem) {
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" ${problem}, so it cannot become a file name on every host`,
      params: { code: 'bad-file-name', hint: 'use letters, digits and -_:. (no slashes), at most 200 bytes' } satisfies IssueParams,
    });
  }
});

const nonNegativeInt = z.number().int().nonnegative();
const threeLetters = (what: string) =>
  z.string().regex(/^[a-z]{3}$/, { message: `expected a three-letter lowercase ${what} code` });

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** A calendar date or date-time to RFC 3339 in UTC, or undefined when no such moment exists (2023-02-30). */
export function toRfc3339(value: string): string | undefined {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
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
  date: z.ZodType<string, any>;
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

function describe(leaves: Leaves) {
  const subtitle = {
    id: z.string().min(1),
    lang: threeLetters('ISO 639-3 language'),
    url: leaves.url,
  };

  const streamBehaviorHints = z.strictObject({
    notWebReady: z.boolean().optional(),
    bingeGroup: z.string().optional(),
    countryWhitelist: z.array(threeLetters('ISO 3166-1 alpha-3 country')).optional(),
    proxyHeaders: z
      .strictObject({
        request: z.record(z.string(), z.string()).optional(),
        response: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
    filename: z.string().optional(),
    videoHash: z.string().optional(),
    videoSize: nonNegativeInt.optional(),
  });

  const archive = z.array(leaves.archiveEntry).min(1).optional();

  const streamShape = {
    url: leaves.url.optional(),
    ytId: z.string().min(1).optional(),
    infoHash: z
      .string()
      .regex(/^[0-9a-fA-F]{40}$/, { message: 'expected exactly 40 hexadecimal digits' })
      .transform((hash) => hash.toLowerCase())
      .optional(),
    // The client reads fileIdx as a 16-bit number.
    fileIdx: nonNegativeInt.max(65535).optional(),
    announce: z.array(z.string().min(1)).optional(),
    fileMustInclude: z.array(z.string().min(1)).optional(),
    rarUrls: archive,
    zipUrls: archive,
    '7zipUrls': archive,
    tarUrls: archive,
    tgzUrls: archive,
    externalUrl: leaves.url.optional(),
    androidTvUrl: leaves.url.optional(),
    tizenUrl: leaves.url.optional(),
    webosUrl: leaves.url.optional(),
    playerFrameUrl: leaves.url.optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    thumbnail: leaves.url.optional(),
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

  const link = z.strictObject({ name: z.string().min(1), category: z.string().min(1), url: absoluteUrl });

  const metaShape = {
    id: fileName,
    type: fileName,
    name: z.string().min(1),
    poster: leaves.url.optional(),
    posterShape: z.enum(['poster', 'square', 'landscape']).optional(),
    background: leaves.url.optional(),
    logo: leaves.url.optional(),
    description: z.string().optional(),
    releaseInfo: leaves.text.optional(),
    runtime: leaves.text.optional(),
    released: leaves.date.optional(),
    genres: z.array(fileName).optional(),
    links: z.array(link).optional(),
    behaviorHints: z
      .strictObject({ defaultVideoId: z.string().min(1).optional(), hasScheduledVideos: z.boolean().optional() })
      .optional(),
  };

  const videoShape = {
    id: fileName,
    title: z.string(),
    released: leaves.date.optional(),
    overview: z.string().optional(),
    thumbnail: leaves.url.optional(),
    season: nonNegativeInt.optional(),
    episode: nonNegativeInt.optional(),
  };

  return { subtitle, streamShape, oneSource, sourceFieldsNeed, metaShape, videoShape };
}

// ---------------------------------------------------------------------------------------------
// Protocol: what addon-gen writes and the client reads

const wire = describe({
  url: absoluteUrl,
  date: protocolDate,
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
  adult: z.boolean().optional(),
  p2p: z.boolean().optional(),
  configurable: z.boolean().optional(),
  configurationRequired: z.boolean().optional(),
});

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const semver = z.string().regex(SEMVER, { message: 'expected a semantic version such as 1.0.0' });
// No regex flags here or in any content schema: JSON Schema patterns have none (see jsonschema.ts).
const reverseDomain = z
  .string()
  .regex(/^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$/, { message: 'expected a reverse-domain id such as org.example.films' });

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
  const input = describe({
    url: urlOrFile,
    date: contentDate,
    text: textOrNumber,
    // A plain URL in YAML is the one-element form the spec writes as [url].
    archiveEntry: z.union([
      archiveUrl.transform((url): [string] => [url]),
      z.tuple([archiveUrl]),
      z.tuple([archiveUrl, nonNegativeInt]),
    ]),
  });

  const subtitle = z.strictObject({ ...input.subtitle, id: input.subtitle.id.optional() });
  const stream = z
    .strictObject({ ...input.streamShape, subtitles: z.array(subtitle).optional() })
    .superRefine(input.oneSource)
    .superRefine(input.sourceFieldsNeed);

  const video = z.strictObject({
    ...input.videoShape,
    // Both default from season and episode (see validate.ts); required otherwise.
    id: input.videoShape.id.optional(),
    title: input.videoShape.title.optional(),
    streams: z.array(stream).optional(),
    subtitles: z.array(subtitle).optional(),
    trailerStreams: z.array(stream).optional(),
  });

  const item = z.strictObject({
    ...input.metaShape,
    trailerStreams: z.array(stream).optional(),
    catalogs: z.array(fileName).optional(),
    streams: z.array(stream).optional(),
    subtitles: z.array(subtitle).optional(),
    videos: z.array(video).optional(),
  });

  const cacheSettings = {
    maxAge: nonNegativeInt.optional(),
    staleRevalidate: nonNegativeInt.optional(),
    staleError: nonNegativeInt.optional(),
  };

  const catalog = z.strictObject({
    id: fileName,
    type: fileName,
    name: z.string().min(1),
    genres: z.union([z.literal('auto'), z.array(fileName)]).optional(),
    sort: z.enum(['name', '-name', 'released', '-released', 'releaseInfo', '-releaseInfo']).optional(),
    items: z.enum(['all', 'listed']).default('all'),
  });

  const addon = z.strictObject({
    id: reverseDomain,
    version: semver,
    name: z.string().min(1),
    description: z.string().default(''),
    logo: urlOrFile.optional(),
    background: urlOrFile.optional(),
    contactEmail: z.email({ message: 'expected an email address' }).optional(),
    types: z.array(fileName).min(1).optional(),
    idPrefixes: z.array(z.string().min(1)).min(1).optional(),
    behaviorHints: ManifestBehaviorHints.optional(),
    baseUrl: baseUrl.optional(),
    cache: z
      .strictObject({
        ...cacheSettings,
        manifest: z.strictObject(cacheSettings).optional(),
        catalog: z.strictObject(cacheSettings).optional(),
        meta: z.strictObject(cacheSettings).optional(),
        stream: z.strictObject(cacheSettings).optional(),
        subtitles: z.strictObject(cacheSettings).optional(),
      })
      .optional(),
    catalogs: z.array(catalog).default([]),
  });

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
