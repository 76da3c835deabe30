// Part of stage 1, load, the YAML source: its syntax errors as diagnostics, in the words of a
// person who wrote the file by hand, at the line to fix.
import type { Diagnostic } from '../diagnostics/index.js';
import type { FastError } from './parse-threads.js';
import type { SourceFile } from './source.js';
import { MAX_DEPTH, positions } from './yaml-positions.js';

/** js-yaml's error, for a file too large for the careful parser: its reason at its mark. */
export function jsYamlError(source: SourceFile, error: FastError): Diagnostic {
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
export function firstErrors<E extends { code: string; pos: [number, number] }>(errors: readonly E[]): E[] {
  const kept: E[] = [];
  for (const error of [...errors].sort((a, b) => a.pos[0] - b.pos[0])) {
    kept.push(error);
    if (error.code !== 'DUPLICATE_KEY') break;
  }
  return kept;
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

export function yamlError(source: SourceFile, code: string, message: string, offset: number): Diagnostic {
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
function indentationError(
  source: SourceFile,
  code: string,
  message: string,
  offset: number,
): { offset: number; message?: string; hint: string } | undefined {
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
    return {
      offset: first,
      hint: `keys of one mapping start in the same column: this line starts in column ${here.indent}${where}; indent with spaces to line them up`,
    };
  }
  if (code === 'BAD_INDENT' && /^All sequence items/.test(message)) {
    return {
      offset: first,
      hint: `the "-" of one list's entries start in the same column: this one is in column ${here.indent}; indent with spaces to line them up`,
    };
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
