// The content of one configuration: what is left of the addon when only what its values keep
// is kept. Plan lays out each configuration's content as a tree of its own, like an addon
// without configurations; nothing here touches paths or bodies.
import type { Catalog, Content, ExternalTitle, Item, Stream, StreamOwner, Subtitle, Video } from '../shared/content.js';
import { isIncluded, type ConfigValues, type Configuration, type When } from '../shared/configurations.js';
import { autoGenres } from '../shared/genres.js';
import { declaredTypesAndPrefixes } from '../shared/resources.js';

/**
 * `content` as the configuration with `configuration.values` has it: catalogs, items and titles
 * whose `when` does not match are left out, and so are streams and subtitles. Its base URL is the
 * configuration's own (`{base}{segment}/`), where the client asks for its files, so the genre
 * links of its metas lead to its own catalogs. What nothing in it changes is shared, not copied.
 */
export function configuredContent(content: Content, configuration: Configuration, baseUrl = content.baseUrl): Content {
  const { values } = configuration;
  const items = new Map<Item, Item>();
  for (const item of content.items) if (isIncluded(item.when, values)) items.set(item, configuredItem(item, values));
  const catalogs = content.catalogs
    .filter((catalog) => isIncluded(catalog.when, values))
    .map((catalog): Catalog => {
      const members = catalog.items.flatMap((item) => items.get(item) ?? []);
      return { ...catalog, items: members, ...(catalog.autoGenres && { genres: autoGenres(members) }) };
    });
  const externalTitles = content.externalTitles
    .filter((title) => isIncluded(title.when, values))
    .map((title): ExternalTitle => configuredOwner(title, values));
  const kept = [...items.values()];
  const declared = declaredTypesAndPrefixes(content.addon, catalogs, [...kept, ...externalTitles]);
  return { ...content, ...declared, baseUrl, catalogs, items: kept, externalTitles, configuration };
}

/** The content of a configuration's tree, at `{segment}/` below the root: its URLs lead there. */
export function configurationTree(content: Content, configuration: Configuration): Content {
  const base = content.baseUrl === undefined ? undefined : `${content.baseUrl}${configuration.segment}/`;
  return configuredContent(content, configuration, base);
}

function configuredItem(item: Item, values: ConfigValues): Item {
  const owner = configuredOwner(item, values);
  if (!item.videos) return owner;
  const videos = item.videos.map((video): Video => configuredOwner(video, values));
  return videos.every((video, index) => video === item.videos![index]) ? owner : { ...owner, videos };
}

/** An item, video or title with only the streams and subtitles the configuration keeps. */
function configuredOwner<T extends StreamOwner & { trailerStreams?: Stream[] }>(owner: T, values: ConfigValues): T {
  const streams = kept(owner.streams, values, (stream) => configuredStream(stream, values));
  const subtitles = kept(owner.subtitles, values);
  const trailerStreams = owner.trailerStreams && kept(owner.trailerStreams, values, (stream) => configuredStream(stream, values));
  if (streams === owner.streams && subtitles === owner.subtitles && trailerStreams === owner.trailerStreams) return owner;
  // Trailers that no stream is left of are left out, as an item without them has none.
  const configured = { ...owner, streams, subtitles, trailerStreams };
  if (!trailerStreams?.length) delete configured.trailerStreams;
  return configured;
}

function configuredStream(stream: Stream, values: ConfigValues): Stream {
  if (!stream.subtitles) return stream;
  const subtitles: Subtitle[] = kept(stream.subtitles, values);
  return subtitles === stream.subtitles ? stream : { ...stream, subtitles };
}

/**
 * The members the configuration keeps, each as `map` makes it: the list itself when that changes
 * nothing, so that content without `when` is laid out from the same objects in every tree.
 */
function kept<T extends { when?: When }>(list: T[], values: ConfigValues, map: (member: T) => T = (member) => member): T[] {
  let changed = false;
  const result: T[] = [];
  for (const member of list) {
    if (!isIncluded(member.when, values)) {
      changed = true;
      continue;
    }
    const mapped = map(member);
    if (mapped !== member) changed = true;
    result.push(mapped);
  }
  return changed ? result : list;
}
