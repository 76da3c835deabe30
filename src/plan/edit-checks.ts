// Whether an edit's items and titles leave the manifest and the checks across them as a whole
// build would find them (validate/index.ts): those it keeps by their outline, those it adds or
// removes by what the index holds of all the others. Anything else takes the whole build (build/edit.ts).
import { streamOwners, type ExternalTitle, type Item, type StreamOwner } from '../shared/content.js';
import { offeringKeys, type Offerer } from '../shared/resources.js';
import { prefixMatcher } from '../shared/id-prefixes.js';
import { uniqueInOrder } from '../validate/ids.js';
import type { StoredItem, StoredTitle, StoredValues } from '../validate/checked-files.js';
import { sameListings } from './early-answers.js';
import { playerSubtitlesExtras } from './subtitles.js';
import type { CatalogFrame, EditIndex, FileValues } from './edit-index.js';
import { catalogMembers, listsItem, type Reindexed, type Retitled } from './edit-members.js';

/**
 * Whether the items and titles described elsewhere of a file have the same files, list where they
 * did and leave the manifest and the checks across them as they were: each item there before and
 * after (by id; plan/edit-members.ts checks their order) with the same listings (sameListings),
 * type and videos, each video (or the item) with subtitles or none as before, and the same
 * subtitles requests its streams answer; each title there before and after of the same type, with
 * streams or none as before (the stream resource declares those with) and subtitles as the item's
 * (items and titles added or removed, editedFiles checks); no video or item with subtitles and no
 * stream, before or after, which a whole build counts in a warning (plan/subtitles.ts,
 * subtitles-need-rewrites). A title keeps both as they were, so that warning, when titles gave it,
 * stands as the last build gave it.
 */
export function sameOutline(old: StoredValues, now: FileValues): boolean {
  const layout = (owners: readonly StreamOwner[], elsewhere: boolean) =>
    JSON.stringify(owners.map((o) => [o.id, o.subtitles.length > 0, elsewhere && o.streams.length > 0, playerSubtitlesExtras(o)]));
  const carried = (items: readonly StoredItem[]) =>
    items.every((item) => streamOwners(item).every((owner) => owner.streams.length > 0 || owner.subtitles.length === 0));
  const items = new Map(now.items.map((item) => [item.id, item]));
  const titles = new Map(now.externalTitles.map((title) => [title.id, title]));
  return (
    old.items.every((item) => {
      const same = items.get(item.id);
      return !same || (sameListings(item, same) && layout(streamOwners(item), false) === layout(streamOwners(same), false));
    }) &&
    old.externalTitles.every((title) => {
      const same = titles.get(title.id);
      return !same || (title.type === same.type && layout([title], true) === layout([same], true));
    }) &&
    carried(old.items) &&
    carried(now.items)
  );
}

/**
 * Whether the items an edit added (`edit`) and `removed`, and the titles described elsewhere it
 * added (`titles`) and `removedTitles`, leave the manifest and the checks across them as they were
 * (validate/index.ts): each id added taken by no other item or title; each item added and removed
 * listed by a catalog (or it is warned of, uncovered-type), with genres its catalogs offer (or they
 * are warned of, unknown-genre, or an automatic list grows); each title added adding streams or
 * subtitles, its id not like the items', and of a type an item has if a catalog lists every item
 * of it (titlesDescribedElsewhere), neither added nor removed with subtitles and no stream (counted in a
 * warning); the titles' types first found in the same order (the manifest's types, unless
 * declared); and the same offeringKeys given by some item or title. The counts of those keys after
 * the edit; undefined when one does not hold.
 */
export function addedAndRemoved(
  index: EditIndex,
  edit: Reindexed,
  removed: readonly StoredItem[],
  titles: Retitled,
  removedTitles: readonly StoredTitle[],
): Map<string, number> | undefined {
  const { added, now } = edit;
  if (added.size === 0 && removed.length === 0 && titles.added.length === 0 && removedTitles.length === 0) return index.offerings;
  const addedItems = [...added].map((i) => now.get(i)!);
  const ids = new Set([...edit.index.ids, ...titles.titleIds]);
  if (ids.size !== edit.index.ids.length + titles.titleIds.length) return undefined;
  const listed = (item: Pick<Item, 'type' | 'catalogs' | 'genres'>) => {
    const catalogs = index.catalogs.filter((catalog) => listsItem(catalog, undefined, item));
    const offered = (catalog: CatalogFrame) =>
      (!catalog.autoGenres && !catalog.fixedGenres) || (item.genres ?? []).every((g) => catalog.genres.includes(g));
    return catalogs.length > 0 && catalogs.every(offered);
  };
  if (![...addedItems, ...removed].every(listed)) return undefined;
  const likeItems = prefixMatcher(index.describedPrefixes);
  const carried = (title: StreamOwner) => title.streams.length > 0 || title.subtitles.length === 0;
  const plain = (title: ExternalTitle) =>
    (title.streams.length > 0 || title.subtitles.length > 0) &&
    likeItems(title.id) === undefined &&
    // A catalog that lists every item of its type: some item must be of it (one such catalog lists it).
    (!index.catalogs.some((catalog) => catalog.listsAll && catalog.type === title.type) ||
      index.catalogs.some((catalog, at) => catalog.type === title.type && catalogMembers(index, at).length > 0));
  if (!titles.added.every((title) => plain(title) && carried(title)) || !removedTitles.every(carried)) return undefined;
  const firstTypes = (types: readonly string[]) => JSON.stringify(uniqueInOrder(types));
  if (index.addon.types === undefined && firstTypes(index.titleTypes) !== firstTypes(titles.titleTypes)) return undefined;
  const declared = index.addon.idPrefixes;
  const changed = [...addedItems, ...titles.added, ...removed, ...removedTitles];
  let offerings = countOfferings(new Map(index.offerings), [...addedItems, ...titles.added], declared, 1);
  offerings = countOfferings(offerings, [...removed, ...removedTitles], declared, -1);
  const keyOf = offeringKeys(declared);
  for (const value of changed) {
    const key = keyOf(value);
    if (offerings.has(key) !== index.offerings.has(key)) return undefined;
  }
  return offerings;
}

/** `counts` with the offeringKey of each of `items` counted `by` more (counts that reach 0 go). */
export function countOfferings(
  counts: Map<string, number>,
  items: readonly Offerer[],
  declared: readonly string[] | undefined,
  by: number,
): Map<string, number> {
  const keyOf = offeringKeys(declared);
  for (const item of items) {
    const key = keyOf(item);
    const count = (counts.get(key) ?? 0) + by;
    if (count > 0) counts.set(key, count);
    else counts.delete(key);
  }
  return counts;
}
