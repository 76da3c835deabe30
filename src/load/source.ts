// Part of stage 1, load: what a kind of content file is to the rest of the build. A source (YAML,
// yaml.ts; M3U playlists, m3u.ts) says which files it takes, turns their text into values that should be items,
// and locates a value's parts for diagnostics; load consults the list in sources.ts by file name,
// so that a new kind of file is a new source there, not edits across stages.
import type { LineCounter, Document } from 'yaml';
import type { TableLayout } from './csv.js';
import type { DiagnosticList, Location } from '../diagnostics/index.js';
import type { PlaylistChannels, PlaylistSettings } from './m3u.js';
import type { DocumentSpan } from './parse-threads.js';
import type { ContentText } from './read.js';
import type { Positions } from './yaml-positions.js';

export interface SourceFile extends ContentText {
  /** The documents with node positions, parsed on first use (see `positions`). */
  parsed?: Positions;
  /** Where the fast parser found each document and item: positions then parse only that text. */
  spans?: DocumentSpan[];
  /** The last item parsed alone for its positions, and how many were (see `piece`). */
  piece?: { start: number; end: number; parsed?: Document; base: number; count: number };
  /** Offsets where lines start, for showing a line and turning offsets into lines. */
  lines?: LineCounter;
  /** A table's columns and where each item's rows are (csv.ts), set when it is parsed. */
  table?: TableLayout;
  /** The bytes of the text in UTF-8, once the content's size is measured (shared/output-limit.ts, contentBytes). */
  textBytes?: number;
  /** The source that parses it when its name does not say: a playlist read from a URL. */
  kind?: ContentSource;
  /** A playlist's settings from addon.yaml (`playlists`), set by load before it is parsed (m3u.ts). */
  playlistSettings?: PlaylistSettings;
  /** A playlist's entries and channels, read on first use (m3u.ts). */
  playlist?: PlaylistChannels;
}

/** One YAML value that should be an item (or the addon settings), with the means to locate its parts. */
export interface SourceValue {
  source: SourceFile;
  /** Index of the document in its file. */
  document: number;
  /** Path of this value inside its document: [] for a document that is one item, [i] in a list. */
  at: (string | number)[];
  value: unknown;
}

/** One kind of content file: how its files are found, parsed and pointed into. */
export interface ContentSource {
  /** Whether a file of this name (the last part of its path) is content of this kind. */
  takes(name: string): boolean;
  /**
   * The values of item files, one iterable for each file in order, each made as it is asked for.
   * The source may parse ahead, on up to `threads` worker threads, until the iteration ends.
   */
  parseItemFiles(files: readonly SourceFile[], diagnostics: DiagnosticList, threads: number): AsyncIterable<Iterable<SourceValue>>;
  /** The values of one file, parsed on this thread (the addon settings). */
  parseFile(file: SourceFile, diagnostics: DiagnosticList): Iterable<SourceValue>;
  /**
   * The location of the node at `nodePath` in a document, or of its nearest ancestor that exists
   * (a missing field points at the mapping that lacks it). With `key`, the location of that key.
   */
  locate(file: SourceFile, documentIndex: number, nodePath: readonly (string | number)[], key?: string): Location;
  /** Offsets where the file's lines start, for showing a line under a diagnostic. */
  lineStarts(file: SourceFile): readonly number[];
}
