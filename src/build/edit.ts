// Part of the pipeline (build/index.ts): the CLI's build after an edit of a few item files (a
// renamed film, a fixed description) or a release (a new version in addon.yaml), done without the
// other items. A whole build keeps, beside the output folder (write/edit-journal.ts), what such an
// edit needs: the catalog lists with what they sort by (plan/edit-index.ts), each content file's
// stamp and fingerprint, what items were checked against, and its record. An edit reads the files
// whose stamps changed, checks those whose text did on their own, renders the files of their items
// and of their titles other addons describe, splices the catalog pages that list those items from
// the pages written (and the pages after an item added or removed, which move), renders a
// release's manifest and pages, and writes the files whose bytes change, and removes those of
// items removed. Anything it cannot tell is so (another id for an item, a new genre or id prefix,
// a problem, a setting other than those only the manifest shows) takes the whole build, as does
// content it does not keep an index of (plan/edit-index.ts, editIndexOf).
// Until the next whole build, which compares the files edits wrote, no rebuild ends early on the
// last one's record.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TESTED_ON, unsafeNames as unsafeNamesOf } from '../hosts/index.js';
import { ADDON_FILE, contentFileStamps, contentTexts, loadContent, textByteLength, type SourceFile } from '../load/index.js';
import { YAML_NAME } from '../load/file-names.js';
import type { EditedFiles, FileValues, Plan } from '../plan/index.js';
import { MANIFEST_FILE } from '../shared/paths.js';
import { readPageTemplates } from '../shared/package.js';
import type { CheckedItems } from '../validate/index.js';
import { textFingerprint } from '../shared/fingerprint.js';
import { fieldOf } from '../shared/fields.js';
import { settledStamp } from '../load/read.js';
import type { Content, ExternalTitle, Item } from '../shared/content.js';
import { CheckedFiles, storedBytes, storedValues, type StoredValues } from '../validate/checked-files.js';
import type { Environment } from '../validate/secrets.js';
import {
  foldersHold,
  headStamps,
  outputBytes,
  readEditJournal,
  readOutputFiles,
  readStateHead,
  outputPathsFree,
  outputSizes,
  removeOutputFiles,
  stampFolders,
  stateIdentity,
  writeEditJournal,
  writeOutputFiles,
  removeEditJournal,
  type EditJournal,
  EDITED,
  writeStampsSlot,
} from '../write/index.js';
import type { StateHead } from '../write/state.js';
import type { BuildOptions, BuildResult } from './index.js';
import { keptResults } from './kept-store.js';
import { filesHash, localDiagnostics, recordHolds, settingsHash, type BuildRecord } from './last-build.js';
import { generatorFingerprint, s3FolderIntact, settingsOf, type OutputFolders } from './reuse.js';
import { filesSince, keptOf, stored, withIndex, type EditKept, type StoredKept } from './edit-kept.js';
import { countsAfter, outputAfter, releasedRecord, resourceOf, STANDING, writtenSizes } from './edit-record.js';

/** The result of an edit's build: the output as a whole build would have made it; undefined when it takes the whole build. */
export async function editBuild(
  options: BuildOptions,
  { outDir, ...s3 }: OutputFolders,
  env: Environment,
): Promise<Omit<BuildResult, 'seconds' | 'stages'> | undefined> {
  const root = path.resolve(outDir);
  const journal = await readEditJournal(root);
  const kept = journal && !journal.pending ? keptOf(journal.kept) : undefined;
  if (!journal || !kept || journal.state !== (await stateIdentity(root))) return undefined;
  const { record } = kept;
  const settings = settingsHash(generatorFingerprint(), settingsOf(options));
  if (kept.settings !== settings || record.diagnostics.some((d) => d.code !== 'host-limit' && !STANDING.has(d.code))) return undefined;
  // The output as the last build or edit left it: every folder with the names it had.
  const head = await readStateHead(root);
  const folders = kept.folders ?? (head && head.complete === true ? headStamps(head) : undefined);
  if (!head || !folders || !(await foldersHold(root, folders, kept.folders ? journal.mtimeNs : head.mtimeNs))) return undefined;
  // An edit writes nothing there: its files must all be where the last whole build put them.
  if (!(await s3FolderIntact(s3))) return undefined;

  const stamps = await contentFileStamps(options.contentDir);
  // Content files added or removed since: a film's file copied, or deleted.
  const since = stamps && filesSince(kept.files, stamps);
  if (!stamps || !since) return undefined;
  const restamped = new Set(stamps.filter(([, stamp], i) => stamp !== since.files[i]![1] || stamp === '').map(([relative]) => relative));
  const loaded = await loadContent(options.contentDir, {
    maxFileSize: options.maxFileSize,
    env,
    only: (relative) => relative === ADDON_FILE || restamped.has(relative),
  });
  if (loaded.diagnostics.list().length > 0 || !loaded.addon || fieldOf(loaded.addon.value, 'playlists') !== undefined) return undefined;
  const texts = () => contentTexts(options.contentDir, options.maxFileSize);
  if (!(await recordHolds(record, record.inputs, options.contentDir, texts, env, options.baseUrl))) return undefined;
  const files = since.files.slice();
  const changes = changedTexts(loaded.files, files, restamped);
  if (!changes) return undefined;
  const { edited, release } = changes;
  const inputs = filesHash(
    settings,
    files.map(([relative, , fingerprint]) => [relative, fingerprint]),
  );
  const outline = { files, textBytes: textBytesOf(files), folders, record: { ...record, inputs } };
  // Only rewritten (a checkout): the last build stands, as when the stamps say so. Kept again only
  // for stamps the next build can trust: a file changed in the two seconds before it was read has none.
  if (edited.length === 0 && !release && since.gone.length === 0) {
    const settled = files.some(([, stamp], i) => stamp !== '' && stamp !== kept.files[i]![1]);
    return finish(options, root, { journal, head }, { ...kept, ...outline }, { keep: settled });
  }
  // What only an edit needs is read only now: the index's columns, and plan's modules (zod's among
  // them). A rebuild after an edit or a checkout that finds nothing edited ends above without them.
  const whole = withIndex(kept);
  if (!whole) return undefined;
  const { index } = whole;
  const after: EditKept = { ...whole, ...outline };
  const { editedFiles, sameOutline, withNewFiles, withRelease } = await import('../plan/index.js');
  // Read again, the edited files alone: the others read were only rewritten (a checkout), and
  // checking them would parse them all.
  const names = new Set(edited.map((file) => file.relative));
  const alone = await loadContent(options.contentDir, {
    maxFileSize: options.maxFileSize,
    env,
    only: (relative) => relative === ADDON_FILE || names.has(relative),
  });
  const firstRead = new Map(loaded.files.map((file) => [file.relative, textFingerprint(file)]));
  const sameText = (file: SourceFile) => firstRead.get(file.relative) === textFingerprint(file);
  const gone = since.gone.map(([relative]) => ({ relative }));
  // Named relative to the content folder, as what is kept names them (FileRange.file).
  const editedNames = new Set([...edited, ...gone, ...(release ? [release] : [])].map((file) => file.relative));
  // A warning in an edited file could now be at another line, or gone: the whole build finds it
  // again. The record names files with forward slashes (last-build.ts, portableDiagnostics).
  const atEdited = (file: string | undefined) => file != null && editedNames.has(path.normalize(file));
  if (record.diagnostics.some((d) => [d, ...(d.related ?? [])].some((at) => atEdited(at.file)))) return undefined;
  const checked = alone.files.every(sameText) ? await checkAlone(options, alone, env, edited) : undefined;
  // New, or holding nothing (keepForEdits), edited or gone: none has items in the index or a result kept.
  const added = new Set(
    [...since.files.filter(([relative]) => names.has(relative)), ...since.gone].filter(([, , , bytes]) => bytes < 0).map(([relative]) => relative),
  );
  const old = checked && (await valuesBefore(root, whole, [...edited, ...gone], added));
  if (!checked || !old || (release && checked.context !== kept.checkContext)) return undefined;
  // What each edited file holds now: a file gone, nothing.
  const now = new Map([...checked.values, ...gone.map(({ relative }): [string, FileValues] => [relative, { items: [], externalTitles: [] }])]);
  for (const [file, values] of now) if (!sameOutline(old.get(file)!, values)) return undefined;
  const order = files.map(([relative]) => relative);
  const values = [...now].map(([file, held]) => ({ file, ...held, before: old.get(file)! }));
  const spliced = editedFiles(withNewFiles(index, order, added), values, (page) => outputBytes(root, page));
  const output = spliced && release ? withRelease(spliced, checked.addon, await readPageTemplates()) : spliced;
  const found = output && (await changedFiles(root, output));
  if (!found) return undefined;
  const { changed, removed } = found;
  // A file that holds nothing now is not measured, as in a whole build (keepForEdits).
  for (const [file, held] of checked.values) if (!holdsAny(held)) files[order.indexOf(file)]![3] = -1;
  after.textBytes = textBytesOf(files);
  const written = await outputAfter(root, journal, whole, output.index, found, after.textBytes, options.contentDir);
  if (!written) return undefined;
  after.unsafeNames = written.unsafeNames;
  after.index = output.index;
  after.results = [...kept.results.filter(([file]) => !editedNames.has(file)), ...checked.stored.values()];
  after.record = { ...after.record, counts: countsAfter(record.counts, old, now), ...written.record };
  if (release) after.record = releasedRecord(after.record, checked.addon, output.bodies.get(MANIFEST_FILE)!, options.contentDir);
  return finish(options, root, { journal, head }, after, { changed, removed: new Set(removed.keys()), keep: true });
}

/**
 * The item files whose texts changed among those read again (`read`, the files `restamped`), and
 * addon.yaml when its text did (a release, if the items' settings are as they were: checkAlone);
 * each one's entry in `files` (filesSince's) updated to what was read. Undefined when one cannot
 * take an edit's way.
 */
function changedTexts(read: readonly SourceFile[], files: EditKept['files'], restamped: ReadonlySet<string>) {
  const edited: SourceFile[] = [];
  let release: SourceFile | undefined;
  const places = new Map(files.map(([relative], at) => [relative, at]));
  for (const file of read) {
    const at = places.get(file.relative);
    if (at === undefined || !restamped.has(file.relative)) continue;
    const [relative, , fingerprint, bytes] = files[at]!;
    const same = textFingerprint(file) === fingerprint;
    // The same text is measured as it was: not at all when it holds nothing (keepForEdits).
    files[at] = [relative, settledStamp(file) ?? '', textFingerprint(file), same ? bytes : textByteLength(file)];
    if (same) continue;
    // A new playlist's channels merge with others', a new table's rows are its items: only YAML,
    // for a file new or that held nothing.
    if (bytes < 0 && !YAML_NAME.test(file.relative)) return undefined;
    if (file.relative === ADDON_FILE) release = file;
    else edited.push(file);
  }
  return { edited, release };
}

/** Whether a file holds an item or a title: one that holds neither keeps no result and is not measured (keepForEdits). */
function holdsAny(values: FileValues): boolean {
  return values.items.length + values.externalTitles.length > 0;
}

/** The bytes of the texts the output is built from (Content.textBytes): those of the files measured. */
function textBytesOf(files: EditKept['files']): number {
  return files.reduce((sum, [, , , bytes]) => sum + Math.max(bytes, 0), 0);
}

/**
 * The files of `output` whose bytes are not those written, and the bytes each had (none for one
 * new), and the size of each file it removes; undefined when one cannot be read, or a new one
 * cannot be written where it goes (plan/conflicts.ts: a file there whose path differs only in case).
 */
async function changedFiles(root: string, output: EditedFiles) {
  // A path both new and gone (a video id that another item now has) is a file rewritten.
  const created = new Set([...output.created].filter((file) => !output.removed.has(file)));
  const gone = new Set([...output.removed].filter((file) => !output.created.has(file)));
  if (created.size > 0 && !(await outputPathsFree(root, created, gone))) return undefined;
  const removed = await outputSizes(root, gone);
  // The item files are read to compare; the pages' bytes changed (editedFiles).
  const existing = await readOutputFiles(
    root,
    [...output.bodies.keys()].filter((file) => !output.pagesBefore.has(file) && !created.has(file)),
  );
  if (!existing || !removed) return undefined;
  const before = new Map([...existing].map(([file, bytes]) => [file, bytes.length]));
  const changed = new Map<string, Buffer>();
  let last: { body: string | Buffer; bytes: Buffer } | undefined;
  for (const [file, body] of output.bodies) {
    // A page written in both orders of its extras: one body, encoded once.
    if (last?.body !== body) last = { body, bytes: typeof body === 'string' ? Buffer.from(body) : body };
    const was = existing.get(file);
    if (was === undefined && output.pagesBefore.has(file)) before.set(file, output.pagesBefore.get(file)!);
    if (!was?.equals(last.bytes)) changed.set(file, last.bytes);
  }
  return { changed, before, removed };
}

/**
 * Writes the files an edit `changed` (none: the content is as the last build or edit left it)
 * and, to `keep`, what the next edit needs; the result, as the last build's (lastBuild in
 * reuse.ts) but for what was written.
 */
async function finish(
  options: BuildOptions,
  root: string,
  { journal, head }: { journal: EditJournal; head: StateHead },
  after: EditKept | StoredKept,
  edit: { changed?: ReadonlyMap<string, Buffer>; removed?: ReadonlySet<string>; keep: boolean },
): Promise<Omit<BuildResult, 'seconds' | 'stages'> | undefined> {
  const { changed = new Map<string, Buffer>(), removed = new Set<string>(), keep } = edit;
  const since = writtenSizes(journal, changed, removed);
  const [unknown, written, gone] = [[...since.sizes.keys()], [...since.sizes.values()], [...since.removed]];
  let { state } = journal;
  if (changed.size > 0 || removed.size > 0) {
    // Before the first write, the state file says edits wrote since (its record of them could go
    // missing), and the record of edits which files: should this stop half way, the next build
    // compares them.
    if (head.stamps !== EDITED) {
      if ((await writeStampsSlot(head, EDITED)) === undefined) return undefined;
      state = (await stateIdentity(root)) ?? '';
    }
    if ((await writeEditJournal(root, { state, pending: true, unknown, sizes: written, removed: gone, kept: undefined })) === undefined)
      return undefined;
    await writeOutputFiles(root, changed);
    await removeOutputFiles(root, removed);
  }
  // The folders' stamps, kept for the next edit when the record is written after their last change
  // (stamps.ts, stampOutput): a folder changed later within the same tick would keep its times.
  const stamped =
    after.folders &&
    (await stampFolders(
      root,
      after.folders.map(([dir]) => dir),
    ));
  after.folders = stamped?.stamps;
  for (let tries = 0; keep; tries++) {
    const time = await writeEditJournal(root, { state, pending: false, unknown, sizes: written, removed: gone, kept: stored(after) });
    // One that cannot be written leaves the last in place: after a write, the pending one, which
    // makes the next build compare what this one wrote.
    if (time === undefined || !stamped || !after.folders || time > stamped.latest) break;
    // Written once more without them: the next edit takes the whole build.
    if (tries === 100) after.folders = undefined;
    else await sleep(1);
  }
  const { record } = after;
  const byResource = Object.fromEntries(
    Object.entries(record.write.byResource).map(([resource, r]) => [
      resource,
      { ...r, written: [...changed.keys()].filter((file) => resourceOf(file) === resource).length },
    ]),
  );
  return {
    ok: true,
    ...(edit.changed ? { edited: true } : { reused: true }),
    diagnostics: localDiagnostics(record.diagnostics, options.contentDir),
    sources: [],
    addon: record.addon,
    counts: record.counts,
    manifestUrl: record.manifestUrl,
    write: {
      ...record.write,
      byResource,
      written: changed.size,
      unchanged: record.write.files - changed.size,
      removed: removed.size,
      foreign: [],
      removedManifests: [],
    },
    hosts: record.hosts.map((report) => ({ ...report, tested: TESTED_ON[report.host] })),
  };
}

/**
 * Keeps what the CLI's edits after this whole build need (EditKept); removes what edits kept
 * before, when this content has no index (editIndexOf) or a file was read from a URL.
 */
export async function keepForEdits(
  outDir: string,
  built: { content: Content; planned: Plan; record: BuildRecord; files: readonly SourceFile[]; settings: string; checkContext?: string },
): Promise<void> {
  const { content, planned: plan, checkContext } = built;
  const { editIndexOf } = await import('../plan/index.js');
  const index = plan.lists && editIndexOf(content, plan.manifest, plan.lists);
  const state = await stateIdentity(outDir);
  if (!index || !state || !checkContext || built.files.some((file) => file.kind !== undefined || file.unreadable)) return removeEditJournal(outDir);
  const files = built.files.map((file): EditKept['files'][number] => [
    file.relative,
    settledStamp(file) ?? '',
    textFingerprint(file),
    // Measured for the files that hold items (shared/output-limit.ts), which alone an edit changes.
    file.textBytes ?? -1,
  ]);
  const kept: EditKept = {
    index,
    settings: built.settings,
    checkContext,
    files,
    textBytes: content.textBytes,
    record: built.record,
    unsafeNames: unsafeNamesOf(plan.files),
    results: [],
  };
  if ((await writeEditJournal(outDir, { state, pending: false, unknown: [], sizes: [], removed: [], kept: stored(kept) })) === undefined)
    await removeEditJournal(outDir);
}

/** The edited files checked each on its own, as a whole build checks them before it checks across them; undefined on any problem. */
async function checkAlone(options: BuildOptions, loaded: Awaited<ReturnType<typeof loadContent>>, env: Environment, edited: readonly SourceFile[]) {
  const { validate } = await import('../validate/index.js');
  const checkedFiles = new CheckedFiles();
  let checked: CheckedItems | undefined;
  await validate(loaded, {
    contentDir: options.contentDir,
    baseUrl: options.baseUrl,
    env,
    allowCredentialsInOutput: options.allowCredentialsInOutput,
    checkedFiles,
    // The checks across items that follow see these files alone: what they would find in the
    // whole content, with every id, type and file as before (sameOutline), is what it found.
    onItemsChecked: (values) => {
      if (loaded.diagnostics.list().length === 0) checked = values;
    },
  });
  if (!checked) return undefined;
  // Kept: a file that gave no problem and holds no variable, guarded value or local file.
  const stored = new Map([...checkedFiles.stored()].map((kept) => [kept.file, [kept.file, kept.fingerprint, storedBytes(kept)] as const]));
  const values = new Map(edited.map((file) => [file.relative, { items: [] as Item[], externalTitles: [] as ExternalTitle[] }]));
  for (const item of checked.items) values.get(item.source.relative)?.items.push(item);
  for (const title of checked.externalTitles) values.get(title.source.relative)?.externalTitles.push(title);
  // A file that holds nothing has nothing to keep.
  if (edited.some((file) => !stored.has(file.relative) && holdsAny(values.get(file.relative)!))) return undefined;
  const context = checkedFiles.storedContext;
  const kept = edited.filter((file) => stored.has(file.relative)).map((file) => [file.relative, stored.get(file.relative)!] as const);
  return { values, stored: new Map(kept), addon: checked.addon, context };
}

/** What the edited files' items and titles were, as the last build or edit kept them (with the text fingerprint `kept.files` has). */
async function valuesBefore(
  root: string,
  kept: EditKept,
  edited: readonly Pick<SourceFile, 'relative'>[],
  added: ReadonlySet<string>,
): Promise<Map<string, StoredValues> | undefined> {
  const fingerprintOf = new Map(kept.files.map(([relative, , fingerprint]) => [relative, fingerprint]));
  const results = new Map(kept.results.map(([file, fingerprint, bytes]) => [file, { fingerprint, bytes }]));
  const missing = new Set(edited.map((file) => file.relative).filter((file) => !results.has(file) && !added.has(file)));
  if (missing.size > 0) for (const [file, result] of await keptResults(root, missing)) results.set(file, result);
  const before = new Map<string, StoredValues>();
  for (const { relative } of edited) {
    // A file new since held nothing.
    if (added.has(relative)) {
      before.set(relative, { items: [], externalTitles: [] });
      continue;
    }
    const result = results.get(relative);
    const values = result && result.fingerprint === fingerprintOf.get(relative) ? storedValues(result.bytes) : undefined;
    if (!values) return undefined;
    before.set(relative, values);
  }
  return before;
}
