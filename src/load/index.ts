// Stage 1, load: read the content files (see read.ts) and parse each with the source of its kind
// (see source.ts and sources.ts; YAML in yaml.ts, M3U playlists in m3u.ts, which addon.yaml's
// `playlists` set up first, playlist-settings.ts). Values come fast, on worker threads for
// large content; positions only for the items that need one (a problem to point at). Hostile
// content (deep nesting, alias bombs, floods of errors) ends as a diagnostic, never as an
// exception, a stack overflow or a process out of memory.
import os from 'node:os';
import path from 'node:path';
import { DiagnosticList, problem, type Location } from '../diagnostics/index.js';
import { ADDON_FILE, contentStamps, DEFAULT_MAX_FILE_SIZE, letGoOfText, parseByteSize, readContentFiles, settledStamp } from './read.js';
import { textByteLength } from './text.js';
import type { ContentSource, SourceFile, SourceValue } from './source.js';
import type { Environment } from '../validate/secrets.js';
import { isContentName } from './file-names.js';

export type { ContentSource, SourceFile, SourceValue } from './source.js';

export interface LoadOptions {
  /** Content files larger than this many bytes are refused without being read; default 16 MiB. */
  maxFileSize?: number;
  /**
   * Worker threads that parse item files while the main thread validates; by default one per
   * core beside the main thread's (at most 3) when the item files hold PARSE_THREADS_FROM bytes
   * or more, else none: starting one costs more than it saves.
   */
  parseThreads?: number;
  /** Variables for `${NAME}` in the URLs of `playlists` (as validate expands addon.yaml); default `process.env`. */
  env?: Environment;
  /**
   * Item files whose values the caller already has (validate/checked-files.ts): not parsed, and
   * `items` yields `{ known: file }` in their place. Asked once per item file, as the iteration starts.
   */
  known?: (file: SourceFile) => boolean;
  /**
   * Read only the content files whose path relative to the content folder it takes, and no
   * playlist that addon.yaml names: a CLI edit (build/edit.ts) reads the files it changed.
   */
  only?: (relative: string) => boolean;
}

/** An item file that load did not parse, since the caller has what its values became (LoadOptions.known). */
export interface KnownFile {
  known: SourceFile;
}

const PARSE_THREADS_FROM = 1024 * 1024;

export { ADDON_FILE, DEFAULT_MAX_FILE_SIZE, parseByteSize, textByteLength };

export interface Loaded {
  addon?: SourceValue;
  /**
   * The values of the item files, in file order, parsed up to a few dozen files ahead of the
   * iteration; a file's values are made only when its turn comes, so that few are alive at once.
   * Iterate once. Problems found go to `diagnostics`.
   */
  items: AsyncIterable<SourceValue | KnownFile>;
  files: SourceFile[];
  /** The problems found so far; validate adds its own, within the same limit per file. */
  diagnostics: DiagnosticList;
}

/**
 * The content sources and what they parse with (a YAML parser or two, a CSV parser), loaded by
 * the first loadContent: a rebuild that reads no file (build/reuse.ts) does without them.
 */
let sources: typeof import('./sources.js') | undefined;

/** Reads and parses every content file below `contentDir`: `addon.yaml` and the item files. */
export async function loadContent(contentDir: string, options: LoadOptions = {}): Promise<Loaded> {
  sources ??= await import('./sources.js');
  const { readPlaylists } = await import('./playlist-settings.js');
  const maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const read = await readContentFiles(contentDir, maxFileSize, isContentName, options.only);
  const files: SourceFile[] = read.files;
  const diagnostics = new DiagnosticList();
  for (const problem of read.diagnostics) diagnostics.push(problem);
  let addon: SourceValue | undefined;
  const addonFile = files.find((source) => source.relative === ADDON_FILE);
  if (addonFile && !addonFile.unreadable) {
    const values = [...kindOf(addonFile).parseFile(addonFile, diagnostics)];
    if (values.length === 1 && values[0]!.at.length === 0) {
      addon = values[0];
    } else if (!diagnostics.list().some((d) => d.file === addonFile.file && d.severity === 'error')) {
      diagnostics.push(problem('not-an-item', { addonYaml: true }, locate(addonFile, values[0]?.document ?? 0, [])));
    }
  }
  // Playlists addon.yaml names: their settings, and those read from a URL, after the folder's files.
  const addonPath = path.join(contentDir, ADDON_FILE);
  const fetched = options.only
    ? []
    : await readPlaylists(addon, files, diagnostics, {
        contentDir,
        addonFile: path.resolve(addonPath),
        maxBytes: maxFileSize,
        ...(options.env && { env: options.env }),
        locate: (value, nodePath) => locate(value.source, value.document, [...value.at, ...nodePath]),
      });
  files.push(...fetched);
  const itemFiles = files.filter((source) => source.relative !== ADDON_FILE && !source.unreadable);
  const loaded: Loaded = { items: itemsOf(itemFiles, diagnostics, options), files, diagnostics, ...(addon && { addon }) };
  // Reading it may have failed with a problem of its own (unreadable, binary, a link that leaves the folder).
  if (!addonFile && !diagnostics.list().some((d) => d.file === addonPath)) {
    diagnostics.push(problem('missing-addon-yaml', { path: addonPath }, { file: addonPath }));
  }
  return loaded;
}

/** Relative path and stamp of each content file: what tells a later build that none changed. */
export type ContentStamps = [relative: string, stamp: string][];

/**
 * The stamps of the files `loadContent` read, in its order, when a later build can trust them in
 * place of the bytes: every file was read from the content folder, as text, and had not changed
 * for a while (load/read.ts, settledStamp). Undefined otherwise.
 */
export function settledStamps(files: readonly SourceFile[]): ContentStamps | undefined {
  const stamps: ContentStamps = [];
  for (const source of files) {
    const stamp = source.kind === undefined && !source.unreadable ? settledStamp(source) : undefined;
    if (stamp === undefined) return undefined;
    stamps.push([source.relative, stamp]);
  }
  return stamps;
}

/** The stamps of the content files as they are now, found without reading them; undefined when one cannot be read. */
export function contentFileStamps(contentDir: string): Promise<ContentStamps | undefined> {
  return contentStamps(contentDir, isContentName);
}

/**
 * The texts of the content files as loadContent reads them (without parsing them), in its order;
 * undefined when one could not be read as text.
 */
export async function contentTexts(contentDir: string, maxFileSize = DEFAULT_MAX_FILE_SIZE): Promise<string[] | undefined> {
  const read = await readContentFiles(contentDir, maxFileSize, isContentName);
  return read.diagnostics.length > 0 ? undefined : read.files.map((file) => file.text);
}

/**
 * Lets go of the texts of the files read from the content folder once their values are checked
 * (read.ts, letGoOfText): read again if a diagnostic needs them. A playlist read from a URL keeps its own.
 */
export function letGoOfTexts(files: readonly SourceFile[]): void {
  for (const source of files) if (source.kind === undefined) letGoOfText(source);
}

/** The source of a file that was read (by loadContent, which loaded the sources): read.ts reads only files some source takes. */
function kindOf(file: SourceFile): ContentSource {
  const source = file.kind ?? sources?.sourceOf(file.relative);
  if (!sources && !file.kind) throw new Error(`${file.relative} was not read by loadContent, which loads the content sources`);
  if (!source) throw new Error(`no content source takes ${file.relative}`);
  return source;
}

/**
 * The values of the item files in file order: each source parses its own files (ahead, as it
 * sees fit), and they are taken in turn; a file the caller knows stands for its values. Parsing
 * starts when the iteration does, and each source's parse ends when it does, however it ends.
 */
function itemsOf(itemFiles: readonly SourceFile[], diagnostics: DiagnosticList, options: LoadOptions): AsyncIterable<SourceValue | KnownFile> {
  return {
    async *[Symbol.asyncIterator]() {
      const parsed = itemFiles.map((file) => !options.known?.(file));
      const bytes = itemFiles.reduce((sum, source, i) => sum + (parsed[i] ? source.text.length : 0), 0);
      const threads = options.parseThreads ?? (bytes >= PARSE_THREADS_FROM ? Math.min(3, Math.max(1, os.availableParallelism() - 1)) : 0);
      const filesOf = new Map<ContentSource, SourceFile[]>();
      const kinds = itemFiles.map(kindOf);
      for (const [i, kind] of kinds.entries()) {
        if (!parsed[i]) continue;
        let files = filesOf.get(kind);
        if (!files) filesOf.set(kind, (files = []));
        files.push(itemFiles[i]!);
      }
      const parses = new Map<ContentSource, AsyncIterator<Iterable<SourceValue>>>();
      for (const [kind, files] of filesOf) parses.set(kind, kind.parseItemFiles(files, diagnostics, threads)[Symbol.asyncIterator]());
      try {
        for (const [i, kind] of kinds.entries()) {
          if (!parsed[i]) {
            yield { known: itemFiles[i]! };
            continue;
          }
          const next = await parses.get(kind)!.next();
          if (next.done) return;
          yield* next.value;
        }
      } finally {
        await Promise.all([...parses.values()].map((parse) => parse.return?.()));
      }
    },
  };
}

/**
 * The location of the node at `nodePath` in a document, or of its nearest ancestor that exists
 * (a missing field points at the mapping that lacks it). With `key`, the location of that key.
 */
export function locate(source: SourceFile, documentIndex: number, nodePath: readonly (string | number)[], key?: string): Location {
  return kindOf(source).locate(source, documentIndex, nodePath, key);
}

/** The text of one line of a loaded file, for printing it under a diagnostic. */
export function sourceLineOf(files: readonly SourceFile[]): (file: string, line: number) => string | undefined {
  const byName = new Map(files.map((f) => [f.file, f]));
  return (file, line) => {
    const source = byName.get(file);
    if (!source) return undefined;
    const start = line === 1 ? 0 : kindOf(source).lineStarts(source)[line - 1];
    if (start === undefined) return undefined;
    const newline = source.text.indexOf('\n', start);
    const end = newline === -1 ? source.text.length : newline;
    // Not a regular expression: `\r$` looks at every character of a line of megabytes.
    return source.text.slice(start, end > start && source.text[end - 1] === '\r' ? end - 1 : end);
  };
}
