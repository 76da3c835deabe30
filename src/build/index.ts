// The pipeline in one place: load -> validate -> plan -> write. Returns values; prints nothing.
import path from 'node:path';
import { checkOptions } from './folders.js';
import { lockOutput } from './lock.js';
import { portableDiagnostics, recordInputs, type BuildRecord } from './last-build.js';
import { buildInputs, lastBuildRead, lastBuildUnread, recordedSources } from './reuse.js';
import { hasErrors, problem, type Diagnostic } from '../diagnostics/index.js';
import { loadContent, type Loaded, type SourceFile } from '../load/index.js';
import { manifestUrl } from '../shared/paths.js';
import { hostReport, HOSTS, unsafeNames, type Host, type HostReport } from '../hosts/index.js';
import type { Previews } from '../plan/previews.js';
import type { OutputFile } from '../plan/index.js';
export { keptBetweenBuilds, type KeptBetweenBuilds } from './kept-store.js';
import type { Environment } from '../validate/secrets.js';
import type { ValidateOptions } from '../validate/index.js';
import { keptBeside, startKeeping, type KeptBetweenBuilds, type Keeping } from './kept-store.js';
import type { keepForEdits } from './edit.js';
import { ownedTotals, type Content } from '../shared/content.js';
import { writeOutput, type WriteResult } from '../write/index.js';
import { readPageTemplates } from '../shared/package.js';
import { configurationCount } from '../shared/configurations.js';
import { eventLoopTurns } from '../shared/turns.js';
import { removedConfigurations, trees } from './configurations.js';
import { addonCollectionCounts } from '../plan/addon-catalogs.js';

export interface BuildOptions {
  contentDir: string;
  /** Output folder; without it nothing is written (validate). */
  outDir?: string;
  /** Overrides `baseUrl` in addon.yaml. */
  baseUrl?: string;
  /** Hosts to write rule files for; default all. */
  hosts?: readonly Host[];
  /** Folder for the S3 files (outside the published tree); default `<outDir>-s3`. */
  s3Dir?: string;
  /** Content files larger than this many bytes are refused unread; default 16 MiB. */
  maxFileSize?: number;
  /** Variables for `${NAME}` in values; default `process.env`. */
  env?: Environment;
  /** Credentials in `proxyHeaders` are a warning instead of an error. */
  allowCredentialsInOutput?: boolean;
  /** Called as each stage starts, and as files are written. */
  onProgress?: (progress: Progress) => void;
  /**
   * End early, with the last build's problems and summary, when every input is as the last
   * complete build into `outDir` found it and its files are all still there; default true.
   * Such a result has no `content` or `files`, and no `sources` when it was found by the content
   * files' stamps, without reading them.
   */
  reuse?: boolean;
  /**
   * What earlier builds found, kept by a long-lived caller (serve --watch) between its builds
   * (keptBetweenBuilds): this build takes what still holds and adds its own. Without it, a build
   * that writes keeps its own beside the output folder (build/kept-store.ts).
   */
  kept?: KeptBetweenBuilds;
  /**
   * The build adds each content file it parses to it (`file`, as load names it): those it does not
   * take from `kept`, among them every one changed since the builds that kept the others; and
   * each file `kept` has that is gone.
   */
  parsed?: Set<string>;
  /** Passed to validate (ValidateOptions): called once each item file is checked, before the checks across them. */
  onItemsChecked?: ValidateOptions['onItemsChecked'];
  /** Called once the content is checked and has no errors, before it is planned. */
  onChecked?: (content: Content) => void;
  /** Passed to plan (PlanOptions): the result's `previews` are the catalog pages'. */
  keepPreviews?: boolean;
  /**
   * Asked once the content is checked and planned with no error, before the output is written:
   * true ends the build there, with nothing written (`stopped`). serve --watch stops a rebuild
   * that a newer save made stale.
   */
  stopBeforeWrite?: () => boolean;
}

const STAGES = ['load', 'validate', 'plan', 'write'] as const;
export type Stage = (typeof STAGES)[number];

export interface Progress {
  stage: Stage;
  /** Files written or found unchanged so far, and of how many (write only). */
  done?: number;
  total?: number;
}

export interface Counts {
  /** Titles this addon describes. */
  items: number;
  /** Titles other addons describe, that it adds streams or subtitles to. */
  externalTitles: number;
  videos: number;
  streams: number;
  subtitles: number;
  /** Configurations of a configurable addon, each a tree of its own; 0 without `config`. */
  configurations: number;
  /** Addon collections and the addons they list (an addon in two, twice); absent without any. */
  addonCollections?: { collections: number; addons: number };
}

export interface BuildResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  /** The parsed content files, so that diagnostics can show their source lines; none when none was read (`reused`). */
  sources: SourceFile[];
  content?: Content;
  /** The addon's name and version, also when the build ended early (`reused`). */
  addon?: { name: string; version: string };
  files?: OutputFile[];
  /** With `keepPreviews`: the previews the catalog pages list. */
  previews?: Previews;
  /** True when `stopBeforeWrite` ended the build: nothing was written, and `ok` is false without an error. */
  stopped?: boolean;
  /** True when the inputs were those of the last build, which still stands: nothing was parsed or written. */
  reused?: boolean;
  /** True when only a few item files changed, and the build wrote their files without the others' (build/edit.ts). */
  edited?: boolean;
  counts?: Counts;
  manifestUrl?: string;
  write?: WriteResult;
  /** Files and bytes against each chosen host's limits. */
  hosts?: HostReport[];
  /** Seconds per stage. Files are parsed as they are validated: their parsing counts as load. */
  stages: Partial<Record<Stage, number>>;
  seconds: number;
}

/** Runs the pipeline. Throws UsageError for bad options; content problems come back as diagnostics. */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const where = await checkOptions(options, (options.hosts ?? HOSTS).includes('s3'));
  if (where.outDir === undefined) return pipeline(options, where, started);
  // One build at a time per folder, from the look at the last build to the last write: another
  // build that wrote in between would leave a tree that is neither's, or this one's reuse stale.
  const locks = [await lockOutput(where.outDir)];
  try {
    if (where.s3Dir !== undefined) locks.push(await lockOutput(where.s3Dir));
    return await pipeline(options, where, started);
  } finally {
    for (const unlock of locks.reverse()) await unlock();
  }
}

/**
 * The seconds of each stage: `enter` starts one (and tells onProgress, unless not to announce
 * it), `done` ends the last and completes the result with them.
 */
function stageClock(options: BuildOptions, started: number) {
  const stages: BuildResult['stages'] = {};
  let stageStarted = performance.now();
  let current: Stage | undefined;
  const enter = (stage: Stage | undefined, announce = true) => {
    const now = performance.now();
    if (current) stages[current] = (stages[current] ?? 0) + (now - stageStarted) / 1000;
    current = stage;
    stageStarted = now;
    if (stage && announce) options.onProgress?.({ stage });
  };
  const done = (result: Omit<BuildResult, 'seconds' | 'stages'>): BuildResult => {
    enter(undefined);
    // In pipeline order, although the output folder is looked at before validate starts.
    const ordered = STAGES.filter((stage) => stages[stage] !== undefined).map((stage) => [stage, stages[stage]]);
    return { ...result, stages: Object.fromEntries(ordered), seconds: (performance.now() - started) / 1000 };
  };
  return { enter, done };
}

/** The pipeline, writing into the folders that `checkOptions` found. */
async function pipeline(options: BuildOptions, where: { outDir?: string; s3Dir?: string }, started: number): Promise<BuildResult> {
  const { enter, done } = stageClock(options, started);
  enter('load');
  const { outDir, s3Dir } = where;
  const outFromS3Dir = s3Dir && path.relative(s3Dir, outDir!).split(path.sep).join('/');
  const env = options.env ?? process.env;
  // Where to look for the last build, unless told not to.
  const folders = outDir === undefined || options.reuse === false ? undefined : { outDir, s3Dir, outFromS3Dir };
  // Every content file with the stamp it had: the last build stands without reading one.
  const unread = folders && (await lastBuildUnread(options, folders, env));
  if (unread?.last) return done({ ...unread.last, sources: [] });
  // What earlier builds kept: the caller's, or else what the last build into the folder stored
  // beside it, read below (load asks only once validate starts), or for an edit of a few item files (edit.ts).
  const beside = outDir !== undefined && !options.kept;
  const edit =
    beside && folders && !unread?.inputsHeld && editable(options) ? await (await import('./edit.js')).editBuild(options, folders, env) : undefined;
  // Looking at the output folder and writing count as write, as for a reused build.
  if (edit) return (enter('write', false), done(edit));
  let kept = options.kept;
  // Asked as validate starts, when `kept` is the one read beside the output (below).
  const known = (file: SourceFile) => isKept(file, kept, options.parsed);
  const loaded = await loadContent(options.contentDir, { maxFileSize: options.maxFileSize, env, known });
  if (options.parsed && kept)
    for (const relative of kept.checkedFiles.goneFrom(loaded.files)) options.parsed.add(path.join(options.contentDir, relative));
  // What reading the files found (links not followed, say): every build reads them again.
  const readProblems = loaded.diagnostics.list();
  const { generator, inputs, settings } = await buildInputs(options, loaded);
  // Unless the stamps said the inputs are the same, and the output was found not all there.
  if (folders && !unread?.inputsHeld) {
    // Looking at the output folder counts as write, though no progress is shown for it.
    enter('write', false);
    const last = await lastBuildRead(options, folders, env, loaded, inputs);
    if (last) return done({ ...last, diagnostics: [...readProblems, ...last.diagnostics], sources: loaded.files });
    enter('load', false);
  }
  if (beside) kept = await keptBeside(outDir, folders !== undefined);
  enter('validate');
  loaded.items = waitsAsLoad(loaded.items, enter);
  // Loaded only by a build that goes past its look at the last one: most of the code, and zod's schemas.
  const [checked, { plan }] = await Promise.all([checkContent(options, loaded, env, kept), import('../plan/index.js')]);
  const { content } = checked;
  if (!content) return done({ ok: false, diagnostics: checked.diagnostics, sources: loaded.files });
  options.onChecked?.(content);

  // What each file became goes beside the output now, while the build holds less than it will
  // (kept-store.ts, Keeping). That counts as write, though no progress is shown for it.
  enter('write', false);
  const keeping = beside && kept ? await startKeeping(outDir, kept) : undefined;
  try {
    enter('plan');
    const templates = await readPageTemplates();
    const planned = plan(content, {
      hosts: options.hosts,
      templates,
      generator,
      outFromS3Dir,
      previewSizes: kept?.previewSizes,
      keepPreviews: options.keepPreviews,
    });
    const diagnostics = [...checked.diagnostics, ...planned.diagnostics];
    const result = {
      diagnostics,
      sources: loaded.files,
      content,
      addon: { name: content.addon.name, version: content.addon.version },
      files: planned.files,
      previews: planned.previews,
      counts: countsOf(content),
      manifestUrl: content.baseUrl && manifestUrl(content.baseUrl),
    };
    // A build with errors writes nothing: the previous output stays exactly as it was.
    if (hasErrors(diagnostics)) return done({ ...result, ok: false });
    if (options.outDir === undefined) return done({ ...result, ok: true });
    if (await stopsBeforeWrite(options)) return done({ ...result, ok: false, stopped: true });
    enter('write');
    const total = planned.files.length;
    // The record is completed once the files are written: it holds the summary and host report.
    const known = await recordInputs(inputs, options.contentDir, content, result, recordedSources(settings, loaded.files, readProblems));
    let report: ReturnType<typeof hostReport> | undefined;
    let record: BuildRecord | undefined;
    const recordOf = (write: WriteResult): BuildRecord => {
      report = hostReport(options.hosts, unsafeNames(planned.files), write, trees(content));
      const reported = [...diagnostics, ...report.diagnostics].filter((d) => !readProblems.includes(d));
      return (record = { ...known, diagnostics: portableDiagnostics(reported, options.contentDir), write: summaryOf(write), hosts: report.hosts });
    };
    const write = await writeOutput(outDir!, planned.files, {
      onFile: (done) => options.onProgress?.({ stage: 'write', done, total }),
      record: recordOf,
    });
    // upload.sh names the output folder as seen from the S3 folder: that too must be as it was.
    if (planned.s3Files.length > 0) await writeOutput(s3Dir!, planned.s3Files, { record: () => ({ inputs, outFromS3Dir }) });
    // Completed after the output, not while it is written: alongside, the write threads waited for the main thread.
    await keepForNext(keeping, beside ? { outDir: outDir!, content, planned, record, files: loaded.files, settings, kept } : undefined);
    const after = [...report!.diagnostics, ...foreignFiles(options.outDir, write.foreign), ...removedConfigurations(write.removedManifests)];
    return done({ ...result, diagnostics: [...diagnostics, ...after], ok: true, write, hosts: report!.hosts });
  } finally {
    await keeping?.close();
  }
}

/** Whether a build may take an edit's way (edit.ts): not one whose caller waits for its stages (serve). */
function editable(options: BuildOptions): boolean {
  return !options.onItemsChecked && !options.onChecked && !options.keepPreviews && !options.stopBeforeWrite && !options.parsed;
}

/** What the next builds take from this one: what each file became (kept-store.ts), and what the CLI's edits need (edit.ts). */
async function keepForNext(keeping: Keeping | undefined, edits: EditsFrom | undefined): Promise<void> {
  await keeping?.finish();
  const { outDir, record, settings, kept } = edits ?? {};
  const checkContext = kept?.checkedFiles.storedContext;
  // Without a record (nothing written) or settings (validate), there is nothing to edit.
  if (edits && outDir && record && settings) await (await import('./edit.js')).keepForEdits(outDir, { ...edits, record, settings, checkContext });
}

/** What keepForEdits takes, as the pipeline has it. */
type EditsFrom = Omit<Parameters<typeof keepForEdits>[1], 'record' | 'settings' | 'checkContext'> & {
  outDir: string;
  record?: BuildRecord;
  settings?: string;
  kept?: KeptBetweenBuilds;
};

/** Stage 2, and the manifests that addon collections list (load/addon-manifests.ts): the content, or the problems. */
async function checkContent(options: BuildOptions, loaded: Loaded, env: Environment, kept: KeptBetweenBuilds | undefined) {
  const [{ validate }, { withAddonManifests }] = await Promise.all([import('../validate/index.js'), import('../load/addon-manifests.js')]);
  const validated = await validate(loaded, {
    contentDir: options.contentDir,
    baseUrl: options.baseUrl,
    env,
    allowCredentialsInOutput: options.allowCredentialsInOutput,
    checkedFiles: kept?.checkedFiles,
    onItemsChecked: options.onItemsChecked,
  });
  if (!validated.content) return { diagnostics: validated.diagnostics };
  // A problem with a listed manifest writes nothing, as any other.
  const listed = await withAddonManifests(validated.content, { contentDir: options.contentDir, env });
  if (listed.diagnostics.length > 0) return { diagnostics: [...validated.diagnostics, ...listed.diagnostics] };
  return { content: listed.content, diagnostics: validated.diagnostics };
}

/**
 * Whether `stopBeforeWrite` ends the build, asked after two turns of the event loop: plan works
 * without a pause, and what came meanwhile (a save, in serve) is seen first.
 */
async function stopsBeforeWrite(options: BuildOptions): Promise<boolean> {
  if (!options.stopBeforeWrite) return false;
  await eventLoopTurns();
  return options.stopBeforeWrite();
}

/** Whether what `file` became is in `kept`; if not, it is parsed, and added to `parsed`. */
function isKept(file: SourceFile, kept: KeptBetweenBuilds | undefined, parsed: Set<string> | undefined): boolean {
  if (kept?.checkedFiles.has(file) === true) return true;
  parsed?.add(file.file);
  return false;
}

/** Validate waits for the next file's values now and then: that counts as load. */
function waitsAsLoad<T>(items: AsyncIterable<T>, enter: (stage: Stage, announce: boolean) => void): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      const iterator = items[Symbol.asyncIterator]();
      for (;;) {
        enter('load', false);
        const next = await iterator.next();
        enter('validate', false);
        if (next.done) return;
        yield next.value;
      }
    },
  };
}

function summaryOf(write: WriteResult): BuildRecord['write'] {
  const { files, bytes, largest, largestFiles } = write;
  const byResource = Object.fromEntries(Object.entries(write.byResource).map(([resource, r]) => [resource, { files: r.files, bytes: r.bytes }]));
  return { files, bytes, largest, largestFiles, byResource };
}

/** Others' files in the output folder, the first time they are seen: the build leaves them alone. */
function foreignFiles(outDir: string, foreign: readonly string[]): Diagnostic[] {
  if (foreign.length === 0) return [];
  const examples = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? ', …' : '');
  return [problem('foreign-files', { count: foreign.length, outDir, examples }, {})];
}

function countsOf(content: Content): Counts {
  const owned = [...content.items, ...content.externalTitles].map(ownedTotals);
  return {
    items: content.items.length,
    externalTitles: content.externalTitles.length,
    videos: content.items.reduce((n, i) => n + (i.videos?.length ?? 0), 0),
    streams: owned.reduce((n, o) => n + o.streams, 0),
    subtitles: owned.reduce((n, o) => n + o.subtitles, 0),
    configurations: content.config.length > 0 ? configurationCount(content.config) : 0,
    ...addonCollectionCounts(content.addonCatalogs),
  };
}
