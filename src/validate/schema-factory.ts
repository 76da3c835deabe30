// The factory: each protocol object described once, around the leaves of one side.
import { z } from 'zod';
import { absoluteUrl, codedIssue, fileName, genreName, nonNegativeInt, threeLetters } from './schema-leaves.js';

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
// JSON Schemas that `addon-gen schema` generates (json-schema.ts). They change no check.
export function describe(leaves: Leaves) {
  const subtitle = {
    id: z.string().min(1).describe('The track id; in content files it defaults to {item or video id}:{lang}'),
    lang: threeLetters('ISO 639-3 language').describe('Language: ISO 639-3, three lowercase letters (eng, fra, deu)'),
    url: leaves.url.describe(`The subtitle file (.srt, .vtt): ${leaves.urlForm}`),
  };
  return { subtitle, streamShape: streamShape(leaves), oneSource, sourceFieldsNeed, ...metaShapes(leaves) };
}

/** An optional `url` field, described with how it may be written. */
function optionalUrl(leaves: Leaves) {
  return (what: string) => leaves.url.optional().describe(`${what}: ${leaves.urlForm}`);
}

function streamBehaviorHints() {
  return z
    .strictObject({
      notWebReady: z.boolean().optional().describe('true: the web player must transcode it (not MP4 or not HTTPS)'),
      bingeGroup: z.string().optional().describe("The same group on the next episode's stream lets the player go on to it by itself"),
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
      filename: z.string().optional().describe("The video's file name, for subtitle lookups"),
      videoHash: z.string().optional().describe('The OpenSubtitles hash of the video'),
      videoSize: nonNegativeInt.optional().describe("The video's size in bytes"),
    })
    .describe('Hints for the player');
}

function streamShape(leaves: Leaves) {
  const url = optionalUrl(leaves);
  const behaviorHints = streamBehaviorHints();
  const archive = (kind: string) =>
    z
      .array(leaves.archiveEntry)
      .min(1)
      .optional()
      .describe(`Source: a ${kind} archive, its parts in order, each a URL or [URL, bytes]; ${leaves.urlForm}`);

  return {
    url: url('Source: a video file'),
    ytId: z.string().min(1).optional().describe('Source: a YouTube video id (the 11 characters after watch?v=)'),
    infoHash: z
      .string()
      .regex(/^[0-9a-fA-F]{40}$/, { message: 'expected exactly 40 hexadecimal digits' })
      .transform((hash) => hash.toLowerCase())
      .optional()
      .describe('Source: a BitTorrent info hash, 40 hexadecimal digits'),
    // The client reads fileIdx as a 16-bit number.
    fileIdx: nonNegativeInt.max(65535).optional().describe('Which file of the torrent or archive to play, from 0; for infoHash and archive sources'),
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
    behaviorHints: behaviorHints.optional(),
  };
}

/** The client tries the sources in order and takes the first: require exactly one. */
function oneSource(stream: Record<string, unknown>, ctx: z.RefinementCtx) {
  const sources = STREAM_SOURCES.filter((key) => stream[key] !== undefined);
  if (sources.length === 1) return;
  ctx.addIssue({ code: 'custom', ...codedIssue('stream-source', { sources, allowed: STREAM_SOURCES }) });
}

function sourceFieldsNeed(stream: Record<string, unknown>, ctx: z.RefinementCtx) {
  for (const [field, sources] of SOURCE_FIELD_NEEDS) {
    if (stream[field] !== undefined && !sources.some((s) => stream[s] !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `\`${field}\` only applies to a stream whose source is ${sources.join(' or ')}`,
      });
    }
  }
}

function metaShapes(leaves: Leaves) {
  const url = optionalUrl(leaves);
  const link = z.strictObject({
    name: z.string().min(1).describe('The link text'),
    category: z.string().min(1).describe('The heading it is listed under (Wikipedia, Cast, Directors)'),
    url: absoluteUrl.describe('An absolute URL'),
  });

  const released = leaves.date.optional().describe(`The release date: ${leaves.dateForm}`);

  const metaShape = {
    id: fileName.describe(
      'A unique id, which becomes a file name: no / or \\, no trailing dot or space, not CON or NUL, at most 200 bytes (pd:nosferatu-1922)',
    ),
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
    genres: z.array(genreName).optional().describe("Genres; each becomes an entry of its catalogs' genre filter"),
    links: z.array(link).optional().describe('Links shown on the details page'),
    behaviorHints: z
      .strictObject({
        defaultVideoId: z
          .string()
          .min(1)
          .optional()
          .describe(
            "The id of one of the item's videos (of an item without videos, its own id): opening the item shows that video's streams at once",
          ),
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

  return { metaShape, videoShape };
}
