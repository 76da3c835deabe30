// Part of stage 1, load, the YAML source: its syntax errors as diagnostics, in the words of a
// person who wrote the file by hand, at the line to fix.
import { isSyntaxCause, problem, type Diagnostic, type MessageParams, type RelatedLocation } from '../diagnostics/index.js';
import type { FastError } from './parse-threads.js';
import type { SourceFile } from './source.js';
import { MAX_DEPTH, positions } from './yaml-positions.js';

/** js-yaml's error, for a file too large for the careful parser: its reason at its mark. */
export function jsYamlError(source: SourceFile, error: FastError): Diagnostic {
  const { reason, mark } = error;
  const text = reason ?? error.message;
  const place = { file: source.file, line: (mark?.line ?? 0) + 1, column: (mark?.column ?? 0) + 1 };
  if (/duplicated mapping key/.test(text)) return problem('duplicate-key', { text }, place);
  if (/maxDepth/.test(text)) return problem('yaml-too-deep', { limit: MAX_DEPTH }, place);
  if (/alias/.test(text)) return problem('yaml-alias', { kind: 'parser', text }, place);
  return problem('yaml-syntax', { kind: 'parser', text, cause: /tab/.test(text) ? 'TAB_AS_INDENT' : undefined }, place);
}

/**
 * After a syntax error the parser guesses how to go on, and what it reports next is mostly the
 * same mistake again: the duplicate keys before the file's first other error, and that error.
 */
export function firstErrors<E extends { code: string; pos: [number, number] }>(errors: readonly E[]): E[] {
  const kept: E[] = [];
  for (const error of [...errors].sort((a, b) => a.pos[0] - b.pos[0])) {
    kept.push(error);
    if (error.code !== 'DUPLICATE_KEY') break;
  }
  return kept;
}

export function yamlError(source: SourceFile, code: string, message: string, offset: number): Diagnostic {
  // The yaml package's messages end with a position we already give.
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  const indented = indentationError(source, code, text, offset);
  const { line, col } = positions(source).lineCounter.linePos(indented?.offset ?? offset);
  const place = { file: source.file, line, column: col };
  if (indented) return problem('yaml-syntax', indented.params, indented.related ? { ...place, related: indented.related } : place);
  if (code === 'DUPLICATE_KEY') return problem('duplicate-key', { text }, place);
  if (code === 'TOO_DEEP') return problem('yaml-too-deep', { limit: MAX_DEPTH }, place);
  return problem('yaml-syntax', { kind: 'parser', text, cause: isSyntaxCause(code) ? code : undefined }, place);
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
function indentationError(
  source: SourceFile,
  code: string,
  message: string,
  offset: number,
): { offset: number; params: MessageParams<'yaml-syntax'>; related?: RelatedLocation[] } | undefined {
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
      return { offset: next.start + next.indent - 1, params: { kind: 'key-indented', key, above, column } };
    }
    return undefined;
  }
  // The parser's own column (the line's start) stays: the hint gives the columns that matter.
  const first = offset;
  const mapping = (code === 'BAD_INDENT' && /^All mapping items/.test(message)) || (code === 'MISSING_CHAR' && /without - indicator/.test(message));
  if (mapping) {
    const above = previousContent(source, here.number);
    const key = above?.key ? { key: above.key.name, column: above.key.column } : undefined;
    return {
      offset: first,
      params: { kind: 'mapping-columns', text: message, column: here.indent, above: key },
      ...(above?.key ? { related: [keyAbove(source, above, above.key)] } : {}),
    };
  }
  if (code === 'BAD_INDENT' && /^All sequence items/.test(message)) {
    return { offset: first, params: { kind: 'sequence-columns', text: message, column: here.indent } };
  }
  const flow = /^Flow (sequence|map) in block collection must be sufficiently indented and end with a/.exec(message);
  if (flow) {
    const open = flow[1] === 'sequence' ? '[' : '{';
    const opener = unclosedOpener(source, here.number, open);
    if (!opener) return undefined;
    return {
      offset: first,
      params: { kind: 'unclosed-flow', text: message, open, line: opener.line },
      related: [{ file: source.file, ...opener, message: `the "${open}" that is not closed` }],
    };
  }
  if (code === 'MISSING_CHAR' && /Implicit map keys/.test(message) && !here.key) {
    const above = previousContent(source, here.number);
    return {
      offset: first,
      params: { kind: 'continuation', text: message, above: above?.key?.name },
      ...(above?.key ? { related: [keyAbove(source, above, above.key)] } : {}),
    };
  }
  return undefined;
}

/**
 * The nearest line above `number` that leaves a `[` (or `{`) open, and the opener's column: quotes
 * and brackets closed on their line are passed over.
 */
function unclosedOpener(source: SourceFile, number: number, open: '[' | '{'): { line: number; column: number } | undefined {
  for (let n = number - 1; n >= 1 && n > number - 50; n--) {
    const info = lineInfo(source, n);
    if (!info || info.text.length > MAX_KEY_LINE) continue;
    const openers: { char: string; column: number }[] = [];
    let quote: string | undefined;
    for (let i = 0; i < info.text.length; i++) {
      const char = info.text[i]!;
      if (quote !== undefined) {
        if (char === quote) quote = undefined;
      } else if (char === '"' || char === "'") quote = char;
      else if (char === '#' && (i === 0 || info.text[i - 1] === ' ')) break;
      else if (char === '[' || char === '{') openers.push({ char, column: i + 1 });
      else if (char === ']' || char === '}') openers.pop();
    }
    const last = [...openers].reverse().find((o) => o.char === open);
    if (last) return { line: n, column: last.column };
  }
  return undefined;
}

/** The key of a line above, as the related location of an indentation error. */
function keyAbove(source: SourceFile, line: LineInfo, key: { name: string; column: number }): RelatedLocation {
  return { file: source.file, line: line.number, column: key.column, message: `"${key.name}", in column ${key.column}` };
}
