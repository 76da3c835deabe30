// Part of stage 1, load, the YAML source: positions. The `yaml` package keeps every node's
// range; it parses a whole file only when it is small (the careful path, and syntax errors), else
// only the item or document a diagnostic points into. Nesting is bounded before the package's
// recursion could overflow the stack.
import { createRequire } from 'node:module';
import type { CST, Document, LineCounter } from 'yaml';
import type { Location } from '../diagnostics/index.js';
import type { SourceFile } from './source.js';

/**
 * The `yaml` package, loaded when first asked for: positions are asked for by a problem, or by a
 * file the fast parser did not take, so a build whose content checks (and an edit) does without
 * it, and the time it takes to load (figures: bench/README.md, "An edit's start").
 */
export function yamlPackage(): typeof import('yaml') {
  return (loaded ??= createRequire(import.meta.url)('yaml'));
}

let loaded: typeof import('yaml') | undefined;

/**
 * How deeply values may nest: js-yaml's own default (it refuses flow lists one level earlier),
 * which the careful path applies too. Content
 * needs about ten levels (item, videos, a video, streams, a stream, behaviorHints, proxyHeaders,
 * request); deeper input is generated or hostile, and the parsers recurse once per level.
 */
export const MAX_DEPTH = 100;

export interface Positions {
  documents: Document[];
  lineCounter: LineCounter;
  /** Syntax errors, whether they belong to a document or to a stream that has none. */
  errors: { code: string; message: string; pos: [number, number] }[];
}

/** The whole file's documents with positions, parsed once: for the careful path, or when items do not do. */
export function positions(source: SourceFile): Positions {
  source.parsed ??= source.unreadable ? linesOnly(source.text) : parsePositions(source.text);
  return source.parsed;
}

/**
 * Files larger than this are never parsed whole by the `yaml` package, which takes a hundred
 * times their size or more in memory and seconds per MiB of a long flow list (figures:
 * bench/README.md, 'The careful parser's limit'): their syntax errors are js-yaml's, in its words,
 * and positions come from pieces. Files written by hand are far smaller.
 */
export const CAREFUL_MAX = 256 * 1024;

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
export function parsePositions(text: string): Positions {
  const { LineCounter, Parser } = yamlPackage();
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  const errors: YamlError[] = [];
  let deep: number | undefined;
  const stop = new Error('stop');
  function* tokens(): Generator<CST.Token> {
    lineCounter.addNewLine(0);
    for (const lexeme of new (yamlPackage().Lexer)().lex(text)) {
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
  const composer = new (yamlPackage().Composer)({ uniqueKeys: true, logLevel: 'error' });
  let stopped = false;
  // The package has no option for its error handler (the field is private): set like any field.
  const onError: ErrorHandler = (source, code, message, warning) => {
    // The package catches what composing a collection throws and reports it here: stop again.
    if (stopped) throw stop;
    if (warning) return;
    errors.push({ code, message, pos: errorPosition(source) });
    stopped = errors.length >= MAX_SYNTAX_ERRORS;
    if (stopped) throw stop;
  };
  Reflect.set(composer, 'onError', onError);
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

type ErrorHandler = (
  source: number | [number, number] | { offset: number; source?: unknown },
  code: string,
  message: string,
  warning?: boolean,
) => void;

/** Where the composer's error source is, as the package computes it. */
function errorPosition(source: Parameters<ErrorHandler>[0]): [number, number] {
  if (typeof source === 'number') return [source, source + 1];
  if (Array.isArray(source)) return [source[0], source[1]];
  return [source.offset, source.offset + (typeof source.source === 'string' ? source.source.length : 1)];
}

/** Line starts only, for showing a line of a file that is not parsed (binary, not UTF-8). */
function linesOnly(text: string): Positions {
  const lineCounter = new (yamlPackage().LineCounter)();
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
  const { isCollection, isMap, isNode, isScalar } = yamlPackage();
  if (key !== undefined) {
    const node = document.getIn(nodePath, true);
    if (isMap(node)) {
      // A collection as a key (`? [a, b]`) is the text of its value to js-yaml: `a,b`.
      const text = (k: unknown) => (isScalar(k) ? String(k.value) : isCollection(k) ? String(k.toJS(document)) : undefined);
      const pair = node.items.find((p) => text(p.key) === key);
      const found: unknown = pair?.key;
      const range = isNode(found) ? found.range : undefined;
      if (range) return range[0];
    }
  }
  for (let length = nodePath.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(nodePath.slice(0, length), true);
    const range = isNode(node) ? node.range : undefined;
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
export function linesOf(source: SourceFile): LineCounter {
  source.lines ??= source.parsed?.lineCounter ?? linesOnly(source.text).lineCounter;
  return source.lines;
}
