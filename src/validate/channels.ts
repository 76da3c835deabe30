// Channels that several playlists list under one id: one item with the streams of each.
import type { Item } from '../shared/content.js';
import { uniqueInOrder } from './ids.js';

/**
 * `items`, changed in place and returned, with the channels of several playlists that share an id
 * and a type merged into the first of them: one item with the streams of each, in file order, the genres of all, and the
 * catalogs of all (all of its type when one of them names none). Items of other files, and
 * channels of one id and different types, are left as they are, for checkUniqueIds to report.
 */
export function mergePlaylistChannels(items: Item[]): Item[] {
  const merged: Item[] = [];
  const channelAt = new Map<string, number>();
  for (const item of items) {
    if (item.source.playlist === undefined) {
      merged.push(item);
      continue;
    }
    const at = channelAt.get(item.id);
    const first = at === undefined ? undefined : merged[at]!;
    if (at === undefined || !first || first.type !== item.type || first.source === item.source) {
      if (at === undefined) channelAt.set(item.id, merged.length);
      merged.push(item);
      continue;
    }
    merged[at] = {
      ...first,
      streams: [...first.streams, ...item.streams],
      genres: union(first.genres, item.genres),
      catalogs: first.catalogs && item.catalogs ? union(first.catalogs, item.catalogs) : undefined,
      alsoFrom: [...(first.alsoFrom ?? []), item.source],
    };
  }
  if (merged.length === items.length) return items;
  // Pushed one by one: a spread of a quarter of a million items would overflow the stack.
  items.length = 0;
  for (const item of merged) items.push(item);
  return items;
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  return a || b ? uniqueInOrder([...(a ?? []), ...(b ?? [])]) : undefined;
}
