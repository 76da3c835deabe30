// Stage 1, load: read the content files (see _read.ts) and parse them as YAML. Values come from
// js-yaml, which is an order of magnitude faster, on worker threads for large content (see
// _parse-threads.ts); positions come from the `yaml` package, which keeps every node's range, and
// are computed only for the items that need one (a problem to point at), or for a whole file with
// a syntax error. Hostile YAML (deep nesting, alias bombs, floods of errors) ends as a diagnostic,
// never as an exception, a stack overflow or a process out of memory.
import os from 'node:os';
import path from 'node:path';
import { Composer, isCollection, isMap, isScalar, Lexer, LineCounter, Parser, visit, type CST, type Document } from 'yaml';
import { DiagnosticList, type Diagnostic, type Location } from '../diagnostics/index.js';
import { parseFast, parseInThreads, type DocumentSpan, type FastError, type FastParse } from './parse-threads.js';
import { ADDON_FILE, DEFAULT_MAX_FILE_SIZE, parseByteSize, readContentFiles, type ContentText } from './read.js';

/**
 * How deeply values may nest: js-yaml's own default (it refuses flow lists one level earlier),
 * which the careful path applies too. Content
 * needs about ten levels (item, videos, a video, streams, a stream, behaviorHints, proxyHeaders,
 * request); deeper input is generated or hostile, and the parsers recurse once per level.
 */
export const MAX_DEPTH = 100;

/**
 * Aliases may add at most this many values to a document, each use of an anchor counting its
 * values again: a billion laughs (anchors of aliases of anchors) and a large anchor used many
 * times both go past it at once, while sharing a few streams among many episodes stays far below.
 */
const MAX_ALIAS_VALUES = 100_000;

/** The `yaml` package's own limit, for the rare file it reads and js-yaml does not. */
const MAX_ALIAS_COUNT = 100;

export interface LoadOptions {
  /** Content files larger than this many bytes are refused without being read; default 16 MiB. */
  maxFileSize?: number;
  /**
   * Worker threads that parse item files while the main thread validates; by default one per
   * core beside the main thread's (at most 3) when the item files hold PARSE_THREADS_FROM bytes
   * or more, else none: starting one costs more than it saves.
   */
  parseThreads?: number;
}

const PARSE_THREADS_FROM = 1024 * 1024;

export { ADDON_FILE, DEFAULT_MAX_FILE_SIZE, parseByteSize };

export interface SourceFile extends ContentText {
  /** The documents with node positions, parsed on first use (see `positions`). */
  parsed?: Positions;
  /** Where the fast parser found each document and item: positions then parse only that text. */
  spans?: DocumentSpan[];
  /** The last item parsed alone for its positions, and how many were (see `piece`). */
  piece?: { start: number; end: number; parsed?: Document; base: number; count: number };
  /** Offsets where lines start, for showing a line and turning offsets into lines. */
  lines?: LineCounter;
  /** A hash of the text, once a build asks for it (plan.ts, textFingerprint). */
  textFingerprint?: string;
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

export interface Loaded {
  addon?: SourceValue;
  /**
   * The values of the item files, in file order, parsed up to a few dozen files ahead of the
   * iteration; a file's values are made only when its turn comes, so that few are alive at once.
   * Iterate once. Problems found go to `diagnostics`.
   */
  items: AsyncIterable<SourceValue>;
  files: SourceFile[];
  /** The problems found so far; validate adds its own, within the same limit per file. */
  diagnostics: DiagnosticList;
}

/** Reads and parses every content file below `contentDir`: `addon.yaml` and the item files. */
export async function loadContent(contentDir: string, options: LoadOptions = {}): Promise<Loaded> {
  const read = await readContentFiles(contentDir, options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE);
  const { files } = read;
  const diagnostics = new DiagnosticList();
  for (const problem of read.diagnostics) diagnostics.push(problem);
  const itemFiles = files.filter((source) => source.relative !== ADDON_FILE && !source.unreadable);
  const bytes = itemFiles.reduce((sum, source) => sum + source.text.length, 0);
  const threads = options.parseThreads ?? (bytes >= PARSE_THREADS_FROM ? Math.min(3, Math.max(1, os.availableParallelism() - 1)) : 0);
  const loaded: Loaded = {
    items: {
      async *[Symbol.asyncIterator]() {
        const keep = stringKeeper();
        const texts = itemFiles.map((source) => source.text);
        const parses = threads > 0 ? parseInThreads(texts, threads, MAX_DEPTH) : inline(texts, keep);
        let i = 0;
        for await (const fast of parses) {
          if (threads > 0 && 'values' in fast && !fast.anchored && !fast.shared) fast.values = fast.values.map((value) => shareStrings(value, keep));
          yield* parseValues(itemFiles[i++]!, fast, diagnostics);
        }
      },
    },
    files,
    diagnostics,
  };
  const addonFile = files.find((source) => source.relative === ADDON_FILE);
  if (addonFile && !addonFile.unreadable) {
    const values = [...parseValues(addonFile, parseFast(addonFile.text, MAX_DEPTH, stringKeeper()), diagnostics)];
    if (values.length === 1 && values[0]!.at.length === 0) {
      loaded.addon = values[0];
    } else if (!diagnostics.list().some((d) => d.file === addonFile.file && d.severity === 'error')) {
      diagnostics.push({
        code: 'not-an-item',
        severity: 'error',
        ...locate(addonFile, values[0]?.document ?? 0, []),
        message: 'addon.yaml must hold one mapping of settings',
        hint: 'write `id: …`, `version: …`, `name: …` at the top level; see the README',
      });
    }
  }
  // Reading it may have failed with a problem of its own (unreadable, binary, a link that leaves the folder).
  const addonPath = path.join(contentDir, ADDON_FILE);
  if (!addonFile && !diagnostics.list().some((d) => d.file === addonPath)) {
    diagnostics.push({
      code: 'missing-addon-yaml',
      severity: 'error',
      file: addonPath,
      message: `${addonPath} does not exist`,
      hint: 'every content folder needs an addon.yaml with at least id, version and name; run the build on the folder that holds it',
    });
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface Positions {
  documents: Document[];
  lineCounter: LineCounter;
  /** Syntax errors, whether they belong to a document or to a stream that has none. */
  errors: { code: string; message: string; pos: [number, number] }[];
}

/** The whole file's documents with positions, parsed once: for the careful path, or when items do not do. */
function positions(source: SourceFile): Positions {
  source.parsed ??= source.unreadable ? linesOnly(source.text) : parsePositions(source.text);
  return source.parsed;
}

/**
 * Files larger than this are never parsed whole by the `yaml` package, which takes 140 to 600
 * bytes of memory per byte of YAML and about 2.5 s per MiB of a long flow list (a 16 MiB file of
 * repeated keys took 3.3 GB): their syntax errors are js-yaml's, in its words, and positions come
 * from pieces. Files written by hand are far smaller.
 */
const CAREFUL_MAX = 256 * 1024;

/** Items of one file parsed alone for positions before the whole file is parsed instead. */
const MAX_PIECES = 2_000;

/** After this many syntax errors in a file the parser stops: only the first is reported anyway. */
const MAX_SYNTAX_ERRORS = 100;

type YamlError = Positions['errors'][number];

/**
 * What `parseAllDocuments` does, within bounds. The parser (text to syntax tree) keeps a stack of
 * its own, but composing a document recurses once per level of nesting, so nesting is checked
 * while parsing, before 10,000 `[` overflow the call stack or fill the memory with open
 * collections. The composer's errors are recorded here (the package would capture a stack trace
 * for each), and parsing stops after the first error outside a document or MAX_SYNTAX_ERRORS
 * errors: a file of a million stray `]` or repeated keys would otherwise make a million of them.
 */
function parsePositions(text: string): Positions {
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  const errors: YamlError[] = [];
  let deep: number | undefined;
  const stop = new Error('stop');
  function* tokens(): Generator<CST.Token> {
    lineCounter.addNewLine(0);
    for (const lexeme of new Lexer().lex(text)) {
      for (const token of parser.next(lexeme)) {
        if (!(yield* checked(token))) return;
      }
      // The open collections: the document, then one per level (see tooDeep for the count).
      const open = parser.stack[MAX_DEPTH + 1];
      if (open) {
        deep = open.offset;
        return;
      }
    }
    for (const token of parser.end()) {
      if (!(yield* checked(token))) return;
    }
  }
  /** Yields the token when it may be composed; false when parsing stops there. */
  function* checked(token: CST.Token): Generator<CST.Token, boolean> {
    deep = tooDeep(token);
    if (deep !== undefined) return false;
    yield token;
    return token.type !== 'error';
  }
  // logLevel: the package's warnings (a collection as a key) would go to process.emitWarning.
  const composer = new Composer({ uniqueKeys: true, logLevel: 'error' });
  let stopped = false;
  (composer as unknown as { onError: ErrorHandler }).onError = (source, code, message, warning) => {
    // The package catches what composing a collection throws and reports it here: stop again.
    if (stopped) throw stop;
    if (warning) return;
    errors.push({ code, message, pos: errorPosition(source) });
    stopped = errors.length >= MAX_SYNTAX_ERRORS;
    if (stopped) throw stop;
  };
  let documents: Document[] = [];
  try {
    documents = Array.from(composer.compose(tokens()));
  } catch (error) {
    if (error !== stop) throw error;
  }
  if (deep !== undefined) {
    // The rest of the text was not parsed; its lines are still counted, for showing them.
    const counted = lineCounter.lineStarts.at(-1) ?? 0;
    for (let i = text.indexOf('\n', counted); i !== -1; i = text.indexOf('\n', i + 1)) lineCounter.addNewLine(i + 1);
    const message = `values are nested more than ${MAX_DEPTH} levels deep`;
    return { documents: [], lineCounter, errors: [{ code: 'TOO_DEEP', message, pos: [deep, deep] }] };
  }
  // Errors outside the composer's handler: stray tokens, in the stream or in the documents.
  errors.push(...composer.streamInfo().errors, ...documents.flatMap((d) => d.errors));
  return { documents: errors.length > 0 && documents.length === 0 ? [] : documents, lineCounter, errors };
}

type ErrorHandler = (source: number | [number, number] | { offset: number; source?: unknown }, code: string, message: string, warning?: boolean) => void;

/** Where the composer's error source is, as the package computes it. */
function errorPosition(source: Parameters<ErrorHandler>[0]): [number, number] {
  if (typeof source === 'number') return [source, source + 1];
  if (Array.isArray(source)) return [source[0], source[1]];
  return [source.offset, source.offset + (typeof source.source === 'string' ? source.source.length : 1)];
}

/** Line starts only, for showing a line of a file that is not parsed (binary, not UTF-8). */
function linesOnly(text: string): Positions {
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineCounter.addNewLine(i + 1);
  return { documents: [], lineCounter, errors: [] };
}

/**
 * The offset of the first node nested deeper than MAX_DEPTH in a document's syntax tree (the
 * document's value is level 1, a scalar is a level), or undefined. Walks with a stack of its own:
 * the tree may be far deeper than the call stack.
 */
function tooDeep(token: CST.Token): number | undefined {
  const stack: [CST.Token, number][] = token.type === 'document' && token.value ? [[token.value, 1]] : [];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) return node.offset;
    if (node.type === 'block-map' || node.type === 'block-seq' || node.type === 'flow-collection') {
      const items = node.items as CST.CollectionItem[];
      // Pushed last to first, so that the first too deep node in the text is found first.
      for (let i = items.length - 1; i >= 0; i--) {
        if (items[i]!.value) stack.push([items[i]!.value!, depth + 1]);
        if (items[i]!.key) stack.push([items[i]!.key!, depth + 1]);
      }
    }
  }
  return undefined;
}

/** Strings shorter than this are copied when sliced out of a longer one: V8's SlicedString::kMinLength. */
const SLICE_MIN_LENGTH = 13;

/**
 * Gives each string of a parsed value as the build should keep it. js-yaml slices its strings out
 * of the file's text (a copy of its own), and V8 keeps the whole text alive for any slice: the
 * values of the large benchmark held a second copy of every file's text, 44 MB (measured). Longer
 * strings are copied out; shorter ones are copies already, and many repeat (`movie`, `eng`, genre
 * names): one of each is kept. One keeper per load: it holds every distinct short string.
 */
function stringKeeper(): (text: string) => string {
  const shared = new Map<string, string>();
  return (text) => {
    // A join copies the characters into one new string, unlike `+` or `slice`.
    if (text.length >= SLICE_MIN_LENGTH) return [text.slice(0, 1), text.slice(1)].join('');
    let kept = shared.get(text);
    if (kept === undefined) shared.set(text, (kept = text));
    return kept;
  };
}

/**
 * The value with its short strings replaced by those `keep` gives. A value cloned from a parse
 * thread (one that JSON could not carry) has a string of its own for each `movie`, `eng` or genre
 * name: cloned, the large benchmark's values took 17 MB more heap after validate (measured). Only
 * for values without aliases, which are trees: a walk of one with aliases could take as long as a
 * billion laughs.
 */
function shareStrings(value: unknown, keep: (text: string) => string): unknown {
  if (typeof value === 'string') return value.length < SLICE_MIN_LENGTH ? keep(value) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = shareStrings(value[i], keep);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key in record) record[key] = shareStrings(record[key], keep);
  }
  return value;
}

/** The fast parses of `texts` one by one on this thread, as they are asked for. */
function* inline(texts: readonly string[], keep: (text: string) => string): Generator<FastParse> {
  for (const text of texts) yield parseFast(text, MAX_DEPTH, keep);
}

/**
 * One file's values that should be items, from its fast parse (or the careful one where that
 * failed): a mapping, a list, or several documents. They are made as they are asked for, one at
 * a time: a file of 4 million list entries (all wrong) would otherwise hold 4 million of them at
 * once, half a gigabyte.
 */
function* parseValues(source: SourceFile, fast: FastParse, diagnostics: DiagnosticList): Generator<SourceValue> {
  if (source.unreadable) return;
  let values: unknown[] | undefined;
  try {
    if ('values' in fast) {
      source.spans = fast.spans;
      values = fast.anchored ? fast.values.map((value, index) => checkAliases(source, index, value, diagnostics)) : fast.values;
    } else if (source.text.length > CAREFUL_MAX) {
      diagnostics.push(jsYamlError(source, fast.error));
    } else {
      values = carefulValues(source, diagnostics);
    }
  } catch (error) {
    // Not expected from either parser; one file must not end the whole build.
    diagnostics.push({
      code: 'yaml-syntax',
      severity: 'error',
      file: source.file,
      line: 1,
      column: 1,
      message: `the YAML parser failed on this file: ${(error as Error).message}`,
      hint: 'simplify the file around its unusual parts; please report this with the file',
    });
    return;
  }
  if (values === undefined) return;
  for (const [document, value] of values.entries()) {
    if (value === null || value === undefined) continue; // an empty document
    if (Array.isArray(value)) {
      for (const [index, element] of value.entries()) yield { source, document, at: [index], value: element };
    } else if (typeof value === 'object') {
      yield { source, document, at: [], value };
    } else {
      diagnostics.add(source.file, 'error', () => ({
        code: 'not-an-item',
        severity: 'error',
        ...locate(source, document, []),
        message: 'a content file holds items (mappings), but this document is a single value',
        hint: 'write an item as `id: …`, `type: …`, `name: …`, or a list of such items',
      }));
    }
  }
}

/** The `yaml` package's parse: every syntax error with its position, and limits on aliases. */
function carefulValues(source: SourceFile, diagnostics: DiagnosticList): unknown[] | undefined {
  const { documents, errors } = positions(source);
  if (errors.length > 0) {
    for (const error of firstErrors(errors)) diagnostics.push(yamlError(source, error.code, error.message, error.pos[0]));
    return undefined;
  }
  const values: unknown[] = [];
  for (const [index, document] of documents.entries()) {
    const aliasProblem = (message: string, hint: string, at: Location = locate(source, index, [])): void => {
      diagnostics.push({ code: 'yaml-alias', severity: 'error', ...at, message, hint });
      values.push(null);
    };
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      aliasProblem(
        `aliases could not be expanded: ${(error as Error).message}`,
        `write the values out, or use fewer nested aliases (at most ${MAX_ALIAS_COUNT} expansions per document)`,
      );
      continue;
    }
    values.push(checkAliases(source, index, value, diagnostics, document));
  }
  return values;
}

/**
 * The value, or null with a yaml-alias problem when its aliases would make it infinite, deeper
 * than MAX_DEPTH or larger by more than MAX_ALIAS_VALUES values once each use is counted. Both
 * parsers give every alias of an anchor the same value; the checks after load walk each use.
 */
function checkAliases(source: SourceFile, index: number, value: unknown, diagnostics: DiagnosticList, document?: Document): unknown {
  const problem = (message: string, hint: string, where = () => locate(source, index, [])) => {
    diagnostics.add(source.file, 'error', () => ({ code: 'yaml-alias', severity: 'error', ...where(), message, hint }));
    return null;
  };
  const expanded = expansion(value);
  if (expanded === 'cycle') {
    return problem(
      'an alias is inside the value of its own anchor, which would make the value infinite',
      'remove the alias, or write out the part it stands for',
      () => {
        // Where the alias is only the careful parser knows; a file too large for it gets its document's start.
        const parsed = document ?? (source.text.length > CAREFUL_MAX ? undefined : positions(source).documents[index]);
        return parsed ? cycleAt(source, parsed, index) : locate(source, index, []);
      },
    );
  }
  if (expanded === 'deep') {
    return problem(`aliases nest the values more than ${MAX_DEPTH} levels deep`, 'write the values out; aliases are for sharing a few values, not for building large ones');
  }
  if (expanded.added > MAX_ALIAS_VALUES) {
    return problem(
      `aliases repeat ${expanded.added < 1e15 ? expanded.added : `about 10^${Math.floor(Math.log10(expanded.added))}`} values in this document, more than the ${MAX_ALIAS_VALUES} allowed`,
      'write the values out; aliases are for sharing a few values, not for building large ones',
    );
  }
  return value;
}

/** js-yaml's error, for a file too large for the careful parser: its reason at its mark. */
function jsYamlError(source: SourceFile, error: FastError): Diagnostic {
  const { reason, mark } = error;
  const message = reason ?? error.message;
  const code = /duplicated mapping key/.test(message)
    ? 'duplicate-key'
    : /maxDepth/.test(message)
      ? 'yaml-too-deep'
      : /alias/.test(message)
        ? 'yaml-alias'
        : 'yaml-syntax';
  return {
    code,
    severity: 'error',
    file: source.file,
    line: (mark?.line ?? 0) + 1,
    column: (mark?.column ?? 0) + 1,
    message: code === 'yaml-too-deep' ? `values are nested more than ${MAX_DEPTH} levels deep` : message,
    hint:
      code === 'duplicate-key'
        ? 'remove one of the two keys; a later value would silently replace the earlier one'
        : /tab/.test(message)
          ? SYNTAX_HINTS.TAB_AS_INDENT
          : code === 'yaml-too-deep'
            ? SYNTAX_HINTS.TOO_DEEP
            : undefined,
  };
}

/**
 * After a syntax error the parser guesses how to go on, and what it reports next is mostly the
 * same mistake again: the duplicate keys before the file's first other error, and that error.
 */
function firstErrors<E extends { code: string; pos: [number, number] }>(errors: readonly E[]): E[] {
  const kept: E[] = [];
  for (const error of [...errors].sort((a, b) => a.pos[0] - b.pos[0])) {
    kept.push(error);
    if (error.code !== 'DUPLICATE_KEY') break;
  }
  return kept;
}

/**
 * How many values aliases add to a document (each use of an anchor counts its value again),
 * 'cycle' when an alias is inside its own anchor, 'deep' when aliases nest values past MAX_DEPTH.
 */
function expansion(root: unknown): { added: number } | 'cycle' | 'deep' {
  // Each object once: its expanded size and height, so that a shared value costs one walk.
  const measured = new Map<object, { size: number; height: number }>();
  const open = new Set<object>();
  let written = 0;
  const measure = (value: unknown, depth: number): { size: number; height: number } | 'cycle' | 'deep' => {
    if (value === null || typeof value !== 'object') return { size: 1, height: 1 };
    const known = measured.get(value);
    if (known) return depth + known.height - 1 > MAX_DEPTH ? 'deep' : known;
    if (open.has(value)) return 'cycle';
    if (depth > MAX_DEPTH) return 'deep';
    open.add(value);
    const total = { size: 1, height: 1 };
    written++;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      const m = measure(child, depth + 1);
      if (typeof m === 'string') return m;
      if (child === null || typeof child !== 'object') written++;
      total.size += m.size;
      total.height = Math.max(total.height, m.height + 1);
    }
    open.delete(value);
    measured.set(value, total);
    return total;
  };
  const total = measure(root, 1);
  return typeof total === 'string' ? total : { added: total.size - Math.max(written, 1) };
}

/** Where the alias that closes a cycle is: the first alias inside its own anchor's node. */
function cycleAt(source: SourceFile, document: Document, index: number): Location {
  let offset: number | undefined;
  visit(document, {
    Alias(_key, node, ancestors) {
      const target = node.resolve(document);
      if (target && ancestors.includes(target as never)) {
        offset = node.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (offset === undefined) return locate(source, index, []);
  const { line, col } = positions(source).lineCounter.linePos(offset);
  return { file: source.file, line, column: col };
}

/** Hints for the parser's errors that have one fix. */
const SYNTAX_HINTS: Record<string, string> = {
  TAB_AS_INDENT: 'YAML does not allow tabs in indentation: indent with spaces (most editors can insert spaces for .yaml files)',
  BAD_SCALAR_START: 'put the value in quotes: a plain value cannot start with @ or a backquote',
  BLOCK_AS_IMPLICIT_KEY: 'a value that contains ": " needs quotes: name: "Nosferatu: A Symphony of Horror"',
  BAD_DQ_ESCAPE: 'in double quotes a backslash starts an escape such as \\n or \\u00e9; write \\\\ for a backslash, or use single quotes',
  KEY_OVER_1024_CHARS: 'a key that is not quoted may be at most 1024 characters long: a `:` missing a space, or a key that runs on?',
  TOO_DEEP: `content needs about ten levels; a file this deep is generated wrongly, or hostile (the limit is ${MAX_DEPTH})`,
};

function yamlError(source: SourceFile, code: string, message: string, offset: number): Diagnostic {
  // The yaml package's messages end with a position we already give.
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  const indented = indentationError(source, code, text, offset);
  const { line, col } = positions(source).lineCounter.linePos(indented?.offset ?? offset);
  const duplicate = code === 'DUPLICATE_KEY';
  return {
    code: duplicate ? 'duplicate-key' : code === 'TOO_DEEP' ? 'yaml-too-deep' : 'yaml-syntax',
    severity: 'error',
    file: source.file,
    line,
    column: col,
    message: indented?.message ?? text,
    hint: indented?.hint ?? (duplicate ? 'remove one of the two keys; a later value would silently replace the earlier one' : SYNTAX_HINTS[code]),
  };
}

/** One line of a file: where it starts, its text, the column of its first character, its key and the key's column. */
/** The longest line searched for its key by the indentation hints. */
const MAX_KEY_LINE = 1000;

interface LineInfo {
  number: number;
  start: number;
  text: string;
  /** 1-based column of the first character that is not a space. */
  indent: number;
  /** The key the line starts with, after any `- ` of list entries, and its 1-based column. */
  key?: { name: string; column: number };
}

function lineInfo(source: SourceFile, number: number): LineInfo | undefined {
  const lines = positions(source).lineCounter.lineStarts;
  const start = lines[number - 1];
  if (start === undefined) return undefined;
  const newline = source.text.indexOf('\n', start);
  const text = source.text.slice(start, newline === -1 ? source.text.length : newline).replace(/\r$/, '');
  const indent = text.search(/[^ ]/) + 1;
  // Lines written by hand are short; a long one (generated, or hostile) is not searched for a key.
  const key = text.length > MAX_KEY_LINE ? null : /^((?: *- +)*|\s*)([^\s#'"{[\-][^:#]*?|"[^"]*"|'[^']*'):(?:\s|$)/.exec(text);
  return { number, start, text, indent, key: key ? { name: key[2]!.trim(), column: key[1]!.length + 1 } : undefined };
}

/** The nearest line before `number` that holds something: not blank, not only a comment. */
function previousContent(source: SourceFile, number: number): LineInfo | undefined {
  for (let n = number - 1; n >= 1 && n > number - 50; n--) {
    const info = lineInfo(source, n);
    if (info && info.indent > 0 && !info.text.trimStart().startsWith('#')) return info;
  }
  return undefined;
}

/**
 * A syntax error caused by indentation, told as such, at the line whose indentation is wrong:
 * - a key indented further than the key above it (`name: B` then `  poster: …`) makes one
 *   plain value of both lines, which the parser reports at the value above, as a mapping in a
 *   compact mapping; the line to fix is the next one;
 * - keys of one mapping that start in different columns, or a line between a list's `-` and its
 *   entry's keys: the parser's line, with both columns in the hint;
 * - a line without a key, which went on with the value above but starts as far left as a key.
 */
function indentationError(source: SourceFile, code: string, message: string, offset: number): { offset: number; message?: string; hint: string } | undefined {
  const lineCounter = positions(source).lineCounter;
  const here = lineInfo(source, lineCounter.linePos(offset).line);
  if (!here || here.indent === 0) return undefined;
  if (code === 'BLOCK_AS_IMPLICIT_KEY' || code === 'MULTILINE_IMPLICIT_KEY') {
    if (here.text.length > MAX_KEY_LINE) return undefined;
    const before = /^((?: *- +)*|\s*)([^\s#][^:#]*?): +$/.exec(here.text.slice(0, offset - here.start));
    if (!before || /:(?:\s|$)/.test(here.text.slice(offset - here.start).replace(/\s#.*$/, ''))) return undefined;
    const column = before[1]!.length + 1;
    for (let n = here.number + 1; n < here.number + 50; n++) {
      const next = lineInfo(source, n);
      if (!next) return undefined;
      if (next.indent === 0 || next.text.trimStart().startsWith('#')) continue;
      if (next.indent <= column || !next.key || next.key.column !== next.indent) return undefined;
      const [key, above] = [next.key.name, before[2]!.trim()];
      return {
        offset: next.start + next.indent - 1,
        message: `"${key}" is indented further than "${above}" above it, so YAML reads this line as more of the value of "${above}"`,
        hint: `keys of one mapping start in the same column: indent "${key}" as far as "${above}" (column ${column})`,
      };
    }
    return undefined;
  }
  // The parser's own column (the line's start) stays: the hint gives the columns that matter.
  const first = offset;
  const mapping = (code === 'BAD_INDENT' && /^All mapping items/.test(message)) || (code === 'MISSING_CHAR' && /without - indicator/.test(message));
  if (mapping) {
    const above = previousContent(source, here.number);
    const where = above?.key ? `, and "${above.key.name}" on line ${above.number} in column ${above.key.column}` : '';
    return { offset: first, hint: `keys of one mapping start in the same column: this line starts in column ${here.indent}${where}; indent with spaces to line them up` };
  }
  if (code === 'BAD_INDENT' && /^All sequence items/.test(message)) {
    return { offset: first, hint: `the "-" of one list's entries start in the same column: this one is in column ${here.indent}; indent with spaces to line them up` };
  }
  if (code === 'MISSING_CHAR' && /Implicit map keys/.test(message) && !here.key) {
    const above = previousContent(source, here.number);
    const of = above?.key ? ` of "${above.key.name}" (line ${above.number})` : '';
    return {
      offset: first,
      hint: `a line without "key:" continues the value above it, so it must be indented further than that value's key: indent it to continue the value${of}, or add the ":" a key needs`,
    };
  }
  return undefined;
}

/**
 * The location of the node at `nodePath` in a document, or of its nearest ancestor that exists
 * (a missing field points at the mapping that lacks it). With `key`, the location of that key.
 * A file the fast parser read is parsed again only in part, the item or document concerned, so
 * that a typo in a file of 16 MiB costs milliseconds, not seconds and gigabytes.
 */
export function locate(source: SourceFile, documentIndex: number, nodePath: readonly (string | number)[], key?: string): Location {
  const at = (offset: number): Location => {
    const { line, col } = linesOf(source).linePos(offset);
    return { file: source.file, line, column: col };
  };
  const span = source.spans?.[documentIndex];
  const large = source.text.length > CAREFUL_MAX;
  // Past a few thousand items with problems, parsing the whole file once is cheaper, unless it is large.
  if (span && (large || (source.piece?.count ?? 0) < MAX_PIECES)) {
    const index = typeof nodePath[0] === 'number' ? nodePath[0] : undefined;
    const element = index !== undefined && span.elements && 2 * index + 1 < span.elements.length;
    const [start, end] = element ? [span.elements![2 * index!]!, span.elements![2 * index! + 1]!] : [span.start, span.end];
    // The start of an item or document needs no parse when nothing but spaces comes before its
    // text (an anchor, tag or comment would: the parse knows where the node begins then).
    const rest = element ? nodePath.length - 1 : nodePath.length;
    if (rest === 0 && key === undefined) {
      const from = start === 0 && source.text.startsWith('\ufeff') ? 1 : start; // a byte order mark that starts the file
      const first = source.text.slice(from, from + 200).search(/[^ \t\r\n]/);
      if (first !== -1 && !'&!#%\ufeff'.includes(source.text[from + first]!)) return at(from + first);
    }
    const parsed = piece(source, start, end);
    // Offsets in the piece are offsets in the file from `base`, the start of its line when padded.
    if (parsed) return at(parsed.base + offsetIn(parsed.document, element ? nodePath.slice(1) : nodePath, key));
    // An item that does not parse alone, in a file too large to parse whole: its start.
    if (large) return at(start);
  }
  const document = positions(source).documents[documentIndex];
  return at(document ? offsetIn(document, nodePath, key) : 0);
}

/** The offset of the node at `nodePath` in a document, or of its nearest ancestor; with `key`, of that key. */
function offsetIn(document: Document, nodePath: readonly (string | number)[], key?: string): number {
  if (key !== undefined) {
    const node = document.getIn(nodePath, true);
    if (isMap(node)) {
      // A collection as a key (`? [a, b]`) is the text of its value to js-yaml: `a,b`.
      const text = (k: unknown) => (isScalar(k) ? String(k.value) : isCollection(k) ? String(k.toJS(document)) : undefined);
      const pair = node.items.find((p) => text(p.key) === key);
      const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
      if (range) return range[0];
    }
  }
  for (let length = nodePath.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(nodePath.slice(0, length), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) return range[0];
  }
  return 0;
}

/**
 * Columns up to which a piece is padded. Block content is indented far less (a top-level list's
 * elements start in column 3); a piece that starts further right is in a flow collection, where
 * the spaces before it mean nothing. Padded to its column, each item located near the end of a
 * one-line flow list parsed all the spaces before it again (bench/README.md, "Scanners").
 */
const MAX_PADDING = 256;

/**
 * The text from `start` to `end` parsed alone, with its first line padded with spaces to keep
 * its columns (when it starts within MAX_PADDING of its line's start), and the offset in the file
 * of the piece's offset 0; undefined when it does not parse alone (then the whole file is parsed,
 * unless it is large) or is large itself. The last one is kept: the problems of an item come together.
 */
function piece(source: SourceFile, start: number, end: number): { document: Document; base: number } | undefined {
  if (end - start > CAREFUL_MAX) return undefined; // one large item: as costly as a large file
  if (source.piece?.start !== start || source.piece.end !== end) {
    // The line's start from the line table, made once per file: not a search back from each piece.
    const lines = linesOf(source);
    const lineStart = lines.lineStarts[lines.linePos(start).line - 1] ?? 0;
    const base = start - lineStart <= MAX_PADDING ? lineStart : start;
    const { documents, errors } = parsePositions(' '.repeat(start - base) + source.text.slice(start, end));
    const parsed = errors.length === 0 && documents.length === 1 ? documents[0] : undefined;
    source.piece = { start, end, parsed, base, count: (source.piece?.count ?? 0) + 1 };
  }
  return source.piece.parsed && { document: source.piece.parsed, base: source.piece.base };
}

/** Where each line of the file starts: from the parse when there is one, else by a scan. */
function linesOf(source: SourceFile): LineCounter {
  source.lines ??= source.parsed?.lineCounter ?? linesOnly(source.text).lineCounter;
  return source.lines;
}

/** The text of one line of a loaded file, for printing it under a diagnostic. */
export function sourceLineOf(files: readonly SourceFile[]): (file: string, line: number) => string | undefined {
  const byName = new Map(files.map((f) => [f.file, f]));
  return (file, line) => {
    const source = byName.get(file);
    if (!source) return undefined;
    const start = line === 1 ? 0 : linesOf(source).lineStarts[line - 1];
    if (start === undefined) return undefined;
    const newline = source.text.indexOf('\n', start);
    const end = newline === -1 ? source.text.length : newline;
    // Not a regular expression: `\r$` looks at every character of a line of megabytes.
    return source.text.slice(start, end > start && source.text[end - 1] === '\r' ? end - 1 : end);
  };
}
