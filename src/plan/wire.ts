// The objects of the protocol that files hold, and the envelopes they are written in.
import { discoverGenreLink } from '../shared/paths.js';
import type {
  CacheHints,
  MetaItem,
  MetaItemPreview,
  Stream as WireStream,
  Subtitle as WireSubtitle,
  Video as WireVideo,
} from '../validate/schema.js';
import type { Catalog, Content, Item, Stream, Subtitle, Video } from '../shared/content.js';

// ---------------------------------------------------------------------------------------------
// Items, videos, streams: explicit key order makes output independent of the YAML's order. These
// objects exist only to be serialized: their undefined fields are left for JSON.stringify to drop
// (the client rejects null; absent is the protocol's "not set"). Deleting them first, as
// `compact` does, costs a large build measurable time (bench/README.md, 'Undefined fields left
// to JSON.stringify'), and objects with deleted keys serialize slower.

export type Link = NonNullable<MetaItemPreview['links']>[number];

export function metaPreview(item: Item, genreLinks: Link[] | undefined): MetaItemPreview {
  return {
    id: item.id,
    type: item.type,
    name: item.name,
    poster: item.poster,
    posterShape: item.posterShape,
    background: item.background,
    logo: item.logo,
    description: item.description,
    releaseInfo: item.releaseInfo,
    runtime: item.runtime,
    released: item.released,
    genres: item.genres,
    links: item.links || genreLinks ? [...(item.links ?? []), ...(genreLinks ?? [])] : undefined,
    behaviorHints: item.behaviorHints,
  };
}

export function metaItem(item: Item, genreLinks: Link[] | undefined): MetaItem {
  return {
    ...metaPreview(item, genreLinks),
    trailerStreams: item.trailerStreams?.map((s) => wireStream(s, [])),
    videos: item.videos?.map(wireVideo),
  };
}

function wireVideo(video: Video): WireVideo {
  return {
    id: video.id,
    title: video.title,
    released: video.released,
    overview: video.overview,
    thumbnail: video.thumbnail,
    season: video.season,
    episode: video.episode,
    trailerStreams: video.trailerStreams?.map((s) => wireStream(s, [])),
  };
}

/** A stream with its owner's subtitles embedded: on a static host that is how they reach the player. */
export function wireStream(stream: Stream, ownerSubtitles: readonly Subtitle[]): WireStream {
  const own = stream.subtitles ?? [];
  let subtitles: readonly Subtitle[] = ownerSubtitles;
  if (own.length > 0) {
    // A set of ids, not a search of the stream's for each of the owner's: both lists can be long.
    const ids = new Set(own.map((o) => o.id));
    subtitles = [...own, ...ownerSubtitles.filter((s) => !ids.has(s.id))];
  }
  const hints = stream.behaviorHints;
  return {
    name: stream.name,
    description: stream.description,
    url: stream.url,
    ytId: stream.ytId,
    infoHash: stream.infoHash,
    rarUrls: stream.rarUrls,
    zipUrls: stream.zipUrls,
    '7zipUrls': stream['7zipUrls'],
    tarUrls: stream.tarUrls,
    tgzUrls: stream.tgzUrls,
    fileIdx: stream.fileIdx,
    announce: stream.announce,
    fileMustInclude: stream.fileMustInclude,
    externalUrl: stream.externalUrl,
    androidTvUrl: stream.androidTvUrl,
    tizenUrl: stream.tizenUrl,
    webosUrl: stream.webosUrl,
    playerFrameUrl: stream.playerFrameUrl,
    thumbnail: stream.thumbnail,
    subtitles: subtitles.length > 0 ? subtitles.map(wireSubtitle) : undefined,
    behaviorHints: hints && {
      notWebReady: hints.notWebReady,
      bingeGroup: hints.bingeGroup,
      countryWhitelist: hints.countryWhitelist,
      proxyHeaders: hints.proxyHeaders && { request: hints.proxyHeaders.request, response: hints.proxyHeaders.response },
      filename: hints.filename,
      videoHash: hints.videoHash,
      videoSize: hints.videoSize,
    },
  };
}

export function wireSubtitle(subtitle: Subtitle): WireSubtitle {
  return { id: subtitle.id, lang: subtitle.lang, url: subtitle.url };
}

/** What genre links are worked out from: a catalog's id, type, genres and members. */
export type LinkedCatalog = Pick<Catalog, 'id' | 'type' | 'genres' | 'items'>;
export interface LinkedContent extends Pick<Content, 'baseUrl' | 'items'> {
  catalogs: readonly LinkedCatalog[];
}

/**
 * Genre links that open this addon's own catalog filtered by the genre. Without them the client
 * turns `genres` into links to Cinemeta. A genre links to the first catalog that lists the item
 * and offers the genre, else to any catalog of the item's type that offers it. For every item of
 * `content`, or `only` those.
 */
export function genreLinks(content: LinkedContent, only?: readonly Item[]): Map<Item, Link[]> {
  const links = new Map<Item, Link[]>();
  const { baseUrl } = content;
  if (baseUrl === undefined) return links;
  // The catalogs that list each item, as their positions in content.catalogs.
  const memberOf = new Map<Item, number[]>();
  const wanted = only && new Set(only);
  content.catalogs.forEach((catalog, index) => {
    for (const item of catalog.items) {
      if (wanted && !wanted.has(item)) continue;
      const positions = memberOf.get(item);
      if (positions) positions.push(index);
      else memberOf.set(item, [index]);
    }
  });
  // Items share their links: one link per catalog and genre, one list per set of links. Lists
  // and URLs of their own would be kept to the end of the build (figures: bench/README.md,
  // 'Shared links').
  const shared = new Map<LinkedCatalog, Map<string, Link>>();
  const linkTo = (catalog: LinkedCatalog, genre: string): Link => {
    let byGenre = shared.get(catalog);
    if (!byGenre) shared.set(catalog, (byGenre = new Map()));
    let link = byGenre.get(genre);
    if (!link) byGenre.set(genre, (link = { name: genre, category: 'Genres', url: discoverGenreLink(baseUrl, catalog.type, catalog.id, genre) }));
    return link;
  };
  // Looked up, not searched: an item's genres times a catalog's would be quadratic in genres.
  const offers = new Map<LinkedCatalog, ReadonlySet<string>>();
  const offered = (catalog: LinkedCatalog) => {
    let genres = offers.get(catalog);
    if (!genres) offers.set(catalog, (genres = new Set(catalog.genres)));
    return genres;
  };
  const lists = new Map<string, Link[]>();
  // An item's links follow from its type, the catalogs that list it and its genres: worked out
  // once for each such kind of item (hundreds in the large benchmark), not for each of 51,000.
  const kinds = new Map<string, Link[]>();
  for (const item of only ?? content.items) {
    if (!item.genres?.length || item.links?.some((l) => l.category === 'Genres')) continue;
    const positions = memberOf.get(item) ?? [];
    const kind = `${item.type}\0${positions.join(',')}\0${item.genres.join('\0')}`;
    let itemLinks = kinds.get(kind);
    if (!itemLinks) {
      const candidates = [...positions.map((i) => content.catalogs[i]!), ...content.catalogs.filter((c) => c.type === item.type)];
      const found = item.genres.flatMap((genre): Link[] => {
        const catalog = candidates.find((c) => offered(c).has(genre));
        return catalog ? [linkTo(catalog, genre)] : [];
      });
      const key = found.map((link) => link.url).join('\n');
      itemLinks = lists.get(key);
      if (!itemLinks) lists.set(key, (itemLinks = found));
      kinds.set(kind, itemLinks);
    }
    if (itemLinks.length > 0) links.set(item, itemLinks);
  }
  return links;
}

// ---------------------------------------------------------------------------------------------
// Bodies

/** What a resource's value is wrapped in: `{"<field>":` before it, the cache hints and `}` after. */
export interface Envelope {
  open: string;
  close: string;
}

/** Made once per resource: a quarter of a million files share five. */
export function envelope(field: string, cache: CacheHints): Envelope {
  const hints = JSON.stringify(cache).slice(1, -1);
  return { open: `{${JSON.stringify(field)}:`, close: hints === '' ? '}' : `,${hints}}` };
}
