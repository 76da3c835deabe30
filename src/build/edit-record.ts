// What the record says of the output after an edit's build (build/edit.ts): the last build's
// record with the sizes, counts and hosts' limits the edit's files change, and the warnings it
// leaves standing. Pure but for outputAfter's one look at the state file, when the largest file or
// an example of the unsafe names went and what the edit keeps does not tell the next.
import { hostReport, unsafeNames as unsafeNamesOf, unsafeNamesAfter, type UnsafeNames } from '../hosts/index.js';
import type { DiagnosticCode } from '../diagnostics/index.js';
import { ownedTotals, type Content } from '../shared/content.js';
import { MANIFEST_FILE } from '../shared/paths.js';
import { PAGE_PATHS } from '../plan/page.js';
import { manifestTooLarge } from '../plan/manifest.js';
import { outputLimit } from '../shared/output-limit.js';
import type { EditIndex, FileValues } from '../plan/index.js';
import { catalogMembers } from '../plan/edit-members.js';
import type { StoredValues } from '../validate/checked-files.js';
import { addLargest, largestFilesAfter, largestIn, outputFiles, type EditJournal, type LargestFiles, type OutputFiles } from '../write/index.js';
import type { EditKept } from './edit-kept.js';
import { portableDiagnostics, type BuildRecord } from './last-build.js';

/**
 * The warnings a last build may have given and an edit leave as they were, but for those in the
 * files it edits: they come from the ids, types, genres and listings of items, addon.yaml, the
 * manifest, and which titles have subtitles but no stream, which an edit keeps (sameOutline). Any
 * other problem takes the whole build; the hosts' limits are worked out again (writtenAfter), and
 * a release's manifest is measured again (releasedRecord).
 */
export const STANDING: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'unknown-genre',
  'unknown-type',
  'uncovered-type',
  'insecure-base-url',
  'manifest-too-large',
  'subtitles-need-rewrites',
]);

/**
 * The size of each file edits wrote since the whole build and the paths they removed: those
 * recorded, then this edit's `changed` and `removed`.
 */
export function writtenSizes(
  journal: EditJournal,
  changed: ReadonlyMap<string, Buffer>,
  removed: ReadonlySet<string>,
): { sizes: Map<string, number>; removed: Set<string> } {
  const sizes = new Map(journal.unknown.map((file, i) => [file, journal.sizes[i]!]));
  const gone = new Set([...journal.removed, ...removed]);
  for (const file of removed) sizes.delete(file);
  for (const [file, bytes] of changed) {
    sizes.set(file, bytes.length);
    gone.delete(file);
  }
  return { sizes, removed: gone };
}

/** The resource of an output path an edit writes (`meta/movie/x.json`: meta), as the write summary counts it. */
export function resourceOf(file: string): string {
  if (file === MANIFEST_FILE) return 'manifest';
  if (Object.values(PAGE_PATHS).includes(file)) return 'page';
  return file.slice(0, file.indexOf('/'));
}

/**
 * The record once a release gave the addon `addon`'s name and version and the manifest
 * `manifestBody`, which may now be too large, or no longer: where a whole build warns of it, after
 * its other problems and before the hosts' limits.
 */
export function releasedRecord(
  record: BuildRecord,
  addon: Pick<Content['addon'], 'name' | 'version'>,
  manifestBody: string | Buffer,
  contentDir: string,
): BuildRecord {
  const diagnostics = record.diagnostics.filter((d) => d.code !== 'manifest-too-large');
  const tooLarge = manifestTooLarge(Buffer.byteLength(manifestBody));
  const hosts = diagnostics.findIndex((d) => d.code === 'host-limit');
  if (tooLarge) diagnostics.splice(hosts < 0 ? diagnostics.length : hosts, 0, ...portableDiagnostics([tooLarge], contentDir));
  return { ...record, addon: { name: addon.name, version: addon.version }, diagnostics };
}

/**
 * The largest of the output's `files`, as LargestFiles holds them: those the state file holds
 * placed in its order, those edits wrote since with no place. Undefined when one has an unknown size.
 */
export function largestFilesOf({ placed, unplaced }: OutputFiles): LargestFiles | undefined {
  if (placed.some(([, bytes]) => bytes < 0)) return undefined;
  const largest: LargestFiles = { files: [], below: 0 };
  placed.forEach(([path, bytes], place) => addLargest(largest, path, bytes, place));
  for (const [path, bytes] of unplaced) addLargest(largest, path, bytes, -1);
  return largest;
}

/**
 * What the record says of the output once `changed` replaced what was there (`before`, its
 * sizes; none for a file new) and the files `removed` (their sizes) went: the sizes, the hosts'
 * limits against them and their note of the output's unsafe `names`, and the largest files. When
 * the edit made the largest smaller or removed it, or another is as large, the largest files kept
 * tell the next, or else the output's files as the state file gives them (`output`). Undefined when
 * that is not one file, or the output or its catalogs' `listings` would be more than the content
 * may make (shared/output-limit.ts).
 */
export async function writtenAfter(
  record: BuildRecord,
  listings: number,
  files: { changed: ReadonlyMap<string, Buffer>; before: ReadonlyMap<string, number>; removed: ReadonlyMap<string, number>; names: UnsafeNames },
  textBytes: number,
  contentDir: string,
  output: () => Promise<OutputFiles | undefined>,
): Promise<Pick<BuildRecord, 'write' | 'hosts' | 'diagnostics'> | undefined> {
  const byResource = Object.fromEntries(Object.entries(record.write.byResource).map(([resource, r]) => [resource, { ...r }]));
  let { bytes, largest, files: count } = record.write;
  let largestFiles = largestFilesAfter(
    record.write.largestFiles,
    [...files.changed].map(([file, now]) => [file, now.length]),
    files.removed.keys(),
  );
  let known = true;
  const tally = (file: string, delta: number, files: number) => {
    const of = byResource[resourceOf(file)];
    if (!of) return false;
    [of.bytes, of.files, bytes, count] = [of.bytes + delta, of.files + files, bytes + delta, count + files];
    return true;
  };
  for (const [file, now] of files.changed) {
    const was = files.before.get(file);
    const delta = now.length - (was ?? 0);
    if (!tally(file, delta, was === undefined ? 1 : 0)) return undefined;
    if ((file === largest.path && delta < 0) || (file !== largest.path && now.length === largest.bytes)) known = false;
    if (now.length > largest.bytes) largest = { path: file, bytes: now.length };
  }
  for (const [file, was] of files.removed) {
    if (!tally(file, -was, -1)) return undefined;
    if (file === largest.path) known = false;
  }
  if (!known) {
    // The largest kept cannot tell: made again from the state file's sizes.
    if (!largestIn(largestFiles)) {
      const all = await output();
      const made = all && largestFilesOf(all);
      if (!made) return undefined;
      largestFiles = made;
    }
    const found = largestIn(largestFiles);
    if (!found) return undefined;
    largest = found;
  }
  const limit = outputLimit(textBytes);
  if (bytes > limit.bytes || count > limit.files || listings > limit.listings) return undefined;
  const write = { files: count, bytes, largest, largestFiles, byResource };
  const report = hostReport(
    record.hosts.map((host) => host.host),
    files.names,
    write,
  );
  const { hosts } = report;
  const standing = record.diagnostics.filter((d) => d.code !== 'host-limit');
  return { write, hosts, diagnostics: [...standing, ...portableDiagnostics(report.diagnostics, contentDir)] };
}

/** The counts once the edited files' items and titles (`old`, by file) are those of `now`. */
export function countsAfter(
  counts: BuildRecord['counts'],
  old: ReadonlyMap<string, StoredValues>,
  now: ReadonlyMap<string, FileValues>,
): BuildRecord['counts'] {
  let { items, externalTitles, videos, streams, subtitles } = counts;
  const tally = (values: StoredValues | FileValues, sign: number) => {
    items += sign * values.items.length;
    externalTitles += sign * values.externalTitles.length;
    for (const item of values.items) videos += sign * (item.videos?.length ?? 0);
    for (const total of [...values.items, ...values.externalTitles].map(ownedTotals)) {
      [streams, subtitles] = [streams + sign * total.streams, subtitles + sign * total.subtitles];
    }
  };
  for (const values of old.values()) tally(values, -1);
  for (const values of now.values()) tally(values, 1);
  return { ...counts, items, externalTitles, videos, streams, subtitles };
}

/**
 * What the record says of the output once an edit wrote the files `changed` and removed those
 * `removed` (writtenAfter), and the unsafe names it has; undefined when that is not known.
 */
export async function outputAfter(
  root: string,
  journal: EditJournal,
  kept: EditKept,
  index: EditIndex,
  files: { changed: ReadonlyMap<string, Buffer>; before: ReadonlyMap<string, number>; removed: ReadonlyMap<string, number> },
  textBytes: number,
  contentDir: string,
) {
  const { changed, before, removed } = files;
  // What validate measures against the content's size too (catalogs.ts, tooManyListings): each catalog's members.
  const listings = index.catalogs.reduce((sum, _, at) => sum + catalogMembers(index, at).length, 0);
  const since = writtenSizes(journal, changed, new Set(removed.keys()));
  // The state file holds the others' sizes and paths, read once, when the largest file shrank or
  // went (or another is as large) and the largest kept are not enough to tell the next, or an
  // example of the unsafe names went.
  let read: Promise<OutputFiles | undefined> | undefined;
  const output = () => (read ??= outputFiles(root, since.sizes, since.removed));
  const created = [...changed.keys()].filter((file) => !before.has(file));
  const fromOutput = async () => {
    const all = await output();
    return all && unsafeNamesOf([...all.placed, ...all.unplaced].map(([path]) => ({ path })));
  };
  const unsafeNames = unsafeNamesAfter(kept.unsafeNames, created, removed.keys()) ?? (await fromOutput());
  const record = unsafeNames && (await writtenAfter(kept.record, listings, { ...files, names: unsafeNames }, textBytes, contentDir, output));
  return record && unsafeNames ? { record, unsafeNames } : undefined;
}
