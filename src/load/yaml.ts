// Part of stage 1, load, the YAML source: content files (`*.yaml`, `*.yml`) parsed into values.
// Values come from js-yaml, which is an order of magnitude faster, on worker threads for large
// content (see parse-threads.ts); positions come from the `yaml` package (yaml-positions.ts), for
// the items that need one (a problem to point at), or for a whole file with a syntax error.
// Hostile YAML (deep nesting, alias bombs, floods of errors) ends as a diagnostic, never as an
// exception, a stack overflow or a process out of memory.
import type { Document } from 'yaml';
import { problem, type DiagnosticList, type Location, type MessageParams } from '../diagnostics/index.js';
import { parseFast, parseInThreads, type FastParse } from './parse-threads.js';
import type { ContentSource, SourceFile, SourceValue } from './source.js';
import { YAML_NAME } from './file-names.js';
import { firstErrors, jsYamlError, yamlError } from './yaml-errors.js';
import { CAREFUL_MAX, linesOf, locate, MAX_DEPTH, positions, yamlPackage } from './yaml-positions.js';

/**
 * Aliases may add at most this many values to a document, each use of an anchor counting its
 * values again: a billion laughs (anchors of aliases of anchors) and a large anchor used many
 * times both go past it at once, while sharing a few streams among many episodes stays far below.
 */
const MAX_ALIAS_VALUES = 100_000;

/** The `yaml` package's own limit, for the rare file it reads and js-yaml does not. */
const MAX_ALIAS_COUNT = 100;

/** Strings shorter than this are copied when sliced out of a longer one: V8's SlicedString::kMinLength. */
const SLICE_MIN_LENGTH = 13;

/**
 * Gives each string of a parsed value as the build should keep it. js-yaml slices its strings out
 * of the file's text (a copy of its own), and V8 keeps the whole text alive for any slice: the
 * values would hold a second copy of every file's text (figures: bench/README.md, 'Strings copied
 * out of the text'). Longer strings are copied out; shorter ones are copies already, and many
 * repeat (`movie`, `eng`, genre names): one of each is kept. One keeper per load: it holds every distinct short string.
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
 * name: cloned, the values take noticeably more heap after validate (figures: bench/README.md,
 * 'Short strings shared after a clone'). Only for values without aliases, which are trees: a walk
 * of one with aliases could take as long as a billion laughs.
 */
function shareStrings(value: unknown, keep: (text: string) => string): unknown {
  if (typeof value === 'string') return value.length < SLICE_MIN_LENGTH ? keep(value) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = shareStrings(value[i], keep);
  } else if (isMapping(value)) {
    for (const key in value) value[key] = shareStrings(value[key], keep);
  }
  return value;
}

/** Not an array, so a mapping: a parser makes plain objects, whose keys are strings. */
function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** The error's message, as `error.message` gives it; undefined when it has none. */
function messageOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'message' in error ? error.message : undefined;
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
    diagnostics.push(problem('yaml-syntax', { kind: 'parser-failed', reason: String(messageOf(error)) }, { file: source.file, line: 1, column: 1 }));
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
      diagnostics.add(source.file, 'error', () => problem('not-an-item', { addonYaml: false }, locate(source, document, [])));
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
    const aliasProblem = (params: MessageParams<'yaml-alias'>, at: Location = locate(source, index, [])): void => {
      diagnostics.push(problem('yaml-alias', params, at));
      values.push(null);
    };
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      aliasProblem({ kind: 'failed', reason: String(messageOf(error)), max: MAX_ALIAS_COUNT });
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
  const aliasProblem = (params: MessageParams<'yaml-alias'>, where = () => locate(source, index, [])) => {
    diagnostics.add(source.file, 'error', () => problem('yaml-alias', params, where()));
    return null;
  };
  const expanded = expansion(value);
  if (expanded === 'cycle') {
    return aliasProblem({ kind: 'cycle' }, () => {
      // Where the alias is only the careful parser knows; a file too large for it gets its document's start.
      const parsed = document ?? (source.text.length > CAREFUL_MAX ? undefined : positions(source).documents[index]);
      return parsed ? cycleAt(source, parsed, index) : locate(source, index, []);
    });
  }
  if (expanded === 'deep') {
    return aliasProblem({ kind: 'deep', limit: MAX_DEPTH });
  }
  if (expanded.added > MAX_ALIAS_VALUES) {
    return aliasProblem({ kind: 'large', added: expanded.added, max: MAX_ALIAS_VALUES });
  }
  return value;
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
  const { visit } = yamlPackage();
  visit(document, {
    Alias(_key, node, ancestors) {
      const target = node.resolve(document);
      if (target && ancestors.some((ancestor) => ancestor === target)) {
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

/** YAML content: values by js-yaml, on worker threads for large content; positions by the `yaml` package. */
export const yamlSource: ContentSource = {
  takes: (name) => YAML_NAME.test(name),
  async *parseItemFiles(files, diagnostics, threads) {
    const keep = stringKeeper();
    const texts = files.map((source) => source.text);
    const parses = threads > 0 ? parseInThreads(texts, threads, MAX_DEPTH) : inline(texts, keep);
    let i = 0;
    for await (const fast of parses) {
      if (threads > 0 && 'values' in fast && !fast.anchored && !fast.shared) fast.values = fast.values.map((value) => shareStrings(value, keep));
      yield parseValues(files[i++]!, fast, diagnostics);
    }
  },
  parseFile: (file, diagnostics) => parseValues(file, parseFast(file.text, MAX_DEPTH, stringKeeper()), diagnostics),
  locate,
  lineStarts: (file) => linesOf(file).lineStarts,
};
