// Items: each checked item resolved into an `Item`, with its videos' and subtitles' default ids
// and its videos in the client's order.
import { problem, type DiagnosticList } from '../diagnostics/index.js';
import type { SourceFile } from '../load/index.js';
import type { FileOrigin, Item, Stream, Subtitle, Video } from '../shared/content.js';
import type { Suggest } from './catalogs.js';
import type { Locator } from './issues.js';
import type { ContentItem, ContentStream, ContentSubtitle } from './schema.js';

/** An item as the content has it, with the name that makes it a title this addon describes. */
export type NamedItem = ContentItem & { name: string };

export function hasName(item: ContentItem): item is NamedItem {
  return item.name !== undefined;
}

export function normalizeItem(item: NamedItem, at: Locator, source: SourceFile, diagnostics: DiagnosticList, suggest: Suggest): Item {
  const { videos, streams: _streams, subtitles: _subtitles, trailerStreams, ...meta } = item;
  // Object.assign, not an object spread ({...meta, …}): V8 gives each object a spread makes a
  // hidden class of its own, about 300 bytes per item and per video that a build keeps to its end.
  const normalized: Item = Object.assign(meta, streamsWithIds(item), {
    trailerStreams: trailerStreams?.map((s) => withSubtitleIds(s, item.id)),
    where: at,
    source,
  });
  if (!videos) {
    // Its one video is itself, as Cinemeta's movies say: the client asks for the streams of this id.
    const defaultVideoId = item.behaviorHints?.defaultVideoId;
    if (defaultVideoId !== undefined && defaultVideoId !== item.id) unknownDefaultVideo(item, () => [item.id], at, diagnostics, suggest);
    return normalized;
  }

  // A stream or subtitle on an item with videos would never be requested: the client asks per video.
  for (const field of ['streams', 'subtitles'] as const) {
    if (item[field]?.length) {
      diagnostics.add(at.file, 'error', () => problem('invalid-value', { kind: 'own-field', field }, { ...at([field]), path: field }));
    }
  }

  const seen = new Map<string, number>();
  const normalizedVideos: Video[] = [];
  videos.forEach((video, index) => {
    const hasEpisode = video.season !== undefined && video.episode !== undefined;
    const id = video.id ?? (hasEpisode ? `${item.id}:${video.season}:${video.episode}` : undefined);
    const title = video.title ?? (video.episode !== undefined ? `Episode ${video.episode}` : undefined);
    if (id === undefined || title === undefined) {
      const field = id === undefined ? 'id' : 'title';
      diagnostics.add(at.file, 'error', () =>
        problem('missing-field', { kind: 'field', field, video: true }, { ...at(['videos', index]), path: `videos[${index}].${field}` }),
      );
      return;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      diagnostics.add(at.file, 'error', () =>
        problem(
          'duplicate-video-id',
          { id, first },
          { ...at(['videos', index]), path: `videos[${index}]`, related: [{ ...at(['videos', first]), message: `the first video with id "${id}"` }] },
        ),
      );
      return;
    }
    seen.set(id, index);
    const own = streamsWithIds({ id, streams: video.streams, subtitles: video.subtitles });
    normalizedVideos.push(
      Object.assign({}, video, {
        id,
        title,
        streams: own.streams,
        subtitles: own.subtitles,
        trailerStreams: video.trailerStreams?.map((s) => withSubtitleIds(s, id)),
      }),
    );
  });
  normalized.videos = sortVideos(normalizedVideos);

  const defaultVideoId = item.behaviorHints?.defaultVideoId;
  if (defaultVideoId !== undefined && !seen.has(defaultVideoId)) unknownDefaultVideo(item, () => [...seen.keys()], at, diagnostics, suggest);
  return normalized;
}

function unknownDefaultVideo(item: ContentItem, ids: () => string[], at: Locator, diagnostics: DiagnosticList, suggest: Suggest) {
  diagnostics.add(at.file, 'error', () => {
    const id = item.behaviorHints!.defaultVideoId!;
    const params = { id, suggestion: suggest(id, ids), hasVideos: item.videos !== undefined };
    return problem('unknown-default-video', params, { ...at(['behaviorHints', 'defaultVideoId']), path: 'behaviorHints.defaultVideoId' });
  });
}

/**
 * The client's order (stremio-core sorts videos this way when it reads a meta): episodes by season
 * with specials (season 0) after the others, then episode; videos without season and episode after
 * all episodes, by release date (oldest first when the item has episodes, newest first when it has
 * none, as in a channel), undated ones last. Array.prototype.sort is stable, like the client's.
 */
export function sortVideos(videos: Video[]): Video[] {
  const isEpisode = (v: Video) => v.season !== undefined && v.episode !== undefined;
  const hasEpisodes = videos.some(isEpisode);
  const season = (v: Video) => (v.season === 0 ? Number.MAX_SAFE_INTEGER : v.season!);
  return videos.sort((a, b) => {
    if (isEpisode(a) && isEpisode(b)) return season(a) - season(b) || a.episode! - b.episode!;
    if (isEpisode(a) || isEpisode(b)) return isEpisode(a) ? -1 : 1;
    if (a.released && b.released) {
      const older = Date.parse(a.released) - Date.parse(b.released);
      return hasEpisodes ? older : -older;
    }
    return a.released ? -1 : b.released ? 1 : 0;
  });
}

function subtitleIds(subtitles: ContentSubtitle[], ownerId: string): Subtitle[] {
  const used = new Set<string>();
  // The number each language's search goes on from: ids once used stay used, so the numbers
  // below it are taken, and a thousand subtitles of one language are not a million lookups.
  const next = new Map<string, number>();
  return subtitles.map((s) => {
    let id = s.id;
    if (id === undefined) {
      id = `${ownerId}:${s.lang}`;
      let n = next.get(s.lang) ?? 2;
      if (used.has(id)) while (used.has((id = `${ownerId}:${s.lang}:${n}`))) n++;
      next.set(s.lang, n);
    }
    used.add(id);
    return s.when === undefined ? { id, lang: s.lang, url: s.url } : { id, lang: s.lang, url: s.url, when: s.when };
  });
}

/** The streams and subtitles of an item or video, each subtitle with its id (by default from the owner's). */
export function streamsWithIds(owner: { id: string; streams?: ContentStream[]; subtitles?: ContentSubtitle[] }): {
  streams: Stream[];
  subtitles: Subtitle[];
} {
  return { streams: (owner.streams ?? []).map((s) => withSubtitleIds(s, owner.id)), subtitles: subtitleIds(owner.subtitles ?? [], owner.id) };
}

function withSubtitleIds(stream: ContentStream, ownerId: string): Stream {
  // Most streams have no subtitles of their own: they are kept as checked, not copied.
  if (hasNoSubtitles(stream)) return stream;
  const { subtitles, ...rest } = stream;
  return Object.assign(rest, { subtitles: subtitleIds(subtitles ?? [], ownerId) });
}

/** A stream without subtitles of its own is a `Stream` as it is: it has no subtitle ids to give. */
function hasNoSubtitles(stream: ContentStream): stream is ContentStream & { subtitles?: undefined } {
  return stream.subtitles === undefined;
}

export function checkUniqueIds(items: Iterable<FileOrigin>, diagnostics: DiagnosticList) {
  const first = new Map<string, FileOrigin>();
  for (const item of items) {
    const earlier = first.get(item.id);
    if (!earlier) {
      first.set(item.id, item);
      continue;
    }
    // Reported in the later item's file, within its limit: 200,000 items that repeat the ids of
    // another file show 100 of them, and cost no more to count than the rest.
    diagnostics.add(item.where.file, 'error', () =>
      problem(
        'duplicate-id',
        { id: item.id },
        { ...item.where(['id']), path: 'id', related: [{ ...earlier.where(['id']), message: `the other item with id "${item.id}"` }] },
      ),
    );
  }
}
