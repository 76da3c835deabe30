// Problems found in content, as values: every stage returns them, one formatter prints them.
// The catalog below is the list of every code addon-gen can report; docs/diagnostics.md documents
// each (test/diagnostics.test.ts runs its examples). Formats: human, JSON, GitHub Actions commands.
import path from 'node:path';
import { getSystemErrorMap, inspect } from 'node:util';

export type Severity = 'error' | 'warning';

export interface Location {
  file: string;
  line: number;
  column: number;
}

export interface Diagnostic extends Partial<Location> {
  code: DiagnosticCode;
  severity: Severity;
  /** Field path inside the file, in the YAML's own terms: `items[2].streams[0].url`. */
  path?: string;
  message: string;
  hint?: string;
}

/** Permanent names. A code is never reused for another meaning. */
export const CODES = {
  'yaml-syntax': 'The file is not valid YAML.',
  'duplicate-key': 'A mapping has the same key twice.',
  'yaml-alias': 'An alias could not be expanded (too many aliases, or an unknown anchor).',
  'not-an-item': 'A document is neither an item, a list of items, nor empty.',
  'unknown-field': 'A field the format does not have (often a typo).',
  'missing-field': 'A required field is absent.',
  'invalid-value': 'A field has the wrong type or form.',
  'stream-source': 'A stream has no source, or more than one.',
  'bad-file-name': 'An id, type or genre cannot become a file name on every host.',
  'duplicate-id': 'Two items share an id.',
  'duplicate-video-id': 'Two videos of one item share an id.',
  'duplicate-catalog': 'Two catalogs share a type and id.',
  'unknown-catalog': 'An item names a catalog that does not exist.',
  'unknown-default-video': '`behaviorHints.defaultVideoId` names no video of the item.',
  'uncovered-type': 'Items that no catalog lists: reachable only through meta requests.',
  'unknown-type': 'An item\'s type is one letter away from a catalog\'s type or a known type, and no catalog lists it: probably a typo.',
  'unknown-genre': 'An item\'s genre is not in the fixed `genres` list of a catalog that lists the item: its genre filter will not find the item by it.',
  'missing-asset': 'A local file named by a URL field does not exist.',
  'asset-outside-content': 'A local file path leaves the content folder.',
  'base-url-required': 'Local files or genre links need the public base URL.',
  'manifest-too-large': 'manifest.json is over 8 KB; the official SDK refuses such manifests.',
  'missing-addon-yaml': 'The content folder has no addon.yaml.',
  'output-conflict': 'Two inputs would write the same output file.',
  'host-limit': 'The output is over a limit of a chosen host (files, file size, site size).',
  'insecure-base-url': 'The base URL is plain http:// on another machine than this one; the client needs HTTPS.',
  'subtitles-need-rewrites': 'Subtitles that only the subtitles resource carries, on a host that cannot answer the player\'s request for them.',
  'case-conflict': 'Two output files whose paths differ only in letter case or in Unicode normalization (é as one character, or as e plus a combining accent).',
  'unset-variable': 'A value uses `${NAME}` and the variable is not set.',
  'secret-in-output': 'A value would publish a secret (a guarded variable or its value).',
  'foreign-files': 'The output folder holds files addon-gen did not write; they are left alone.',
  'credentials-in-output': 'A stream sends credentials (Authorization, Cookie, X-Api-Key) that anyone could read.',
  'yaml-too-deep': 'Values nested more levels deep than the parsers allow (100).',
  'file-too-large': 'A content file is over the size limit (16 MiB, or --max-file-size); it is not read.',
  'binary-file': 'A content file holds NUL bytes: binary data, not YAML text.',
  'invalid-utf8': 'A content file is not UTF-8 text (Latin-1, UTF-16, …).',
  'unreadable-file': 'A content file or folder cannot be read (permissions, a broken link, not a file).',
  'symlink-not-followed': 'A symbolic link leads outside the content folder, so it is not followed.',
  'too-many-problems': 'A file has more problems than are shown (100 errors, 100 warnings); the rest are counted.',
  'output-too-large': 'The output would be far larger than the content it is built from (genres multiply catalog pages); nothing is written.',
} as const;

export type DiagnosticCode = keyof typeof CODES;

/** A usage error (bad flag, missing folder): exit status 2, no content diagnostics. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A file system operation on the output (or S3) folder failed: disk full, read-only, no
 * permission, a file where a folder belongs. Exit status 2, like a folder that cannot be written;
 * the message names the path and says what the output folder holds now.
 */
export class IoError extends UsageError {
  override name = 'IoError';
  constructor(
    message: string,
    /** The path the operation failed on. */
    readonly path: string,
    /** The system's code (`ENOSPC`), when there is one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * A failed system call (Node's ErrnoException, with a code such as ENOSPC and the call or the
 * path) in words: `cannot write /x/y: no space left on the device (ENOSPC)`. Undefined for any
 * other error, Node's own ERR_* ones included: they carry a code but no call.
 */
export function systemErrorMessage(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const field = (name: string): string | undefined => {
    const value: unknown = Reflect.get(error, name);
    return typeof value === 'string' ? value : undefined;
  };
  const [syscall, file, dest] = [field('syscall'), field('path'), field('dest')];
  if (syscall === undefined && file === undefined) return undefined;
  const errno: unknown = Reflect.get(error, 'errno');
  const verb = (syscall === undefined ? undefined : SYSCALL_VERBS.get(syscall)) ?? syscall ?? 'use';
  const what = file === undefined ? '' : ` ${file}${dest === undefined ? '' : ` to ${dest}`}`;
  return `cannot ${verb}${what}: ${systemErrorReason(error.code, typeof errno === 'number' ? errno : undefined)} (${error.code})`;
}

/** The system's code of an error (`ENOSPC`), or ''. */
export function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
}

/**
 * A failed system call on the output (or S3) folder as an IoError: the call, the path and the
 * reason in words (systemErrorMessage), then `outcome`, what the folder holds now. Anything that
 * is not a system error is returned as it is: a bug, not the disk's fault.
 */
export function ioFailure(error: unknown, outcome: string, at?: string): Error {
  if (error instanceof IoError) return error;
  // A failed write() or close() names no file: `at` is the one it was writing.
  if (at !== undefined && error instanceof Error && !('path' in error)) Object.assign(error, { path: at });
  const message = systemErrorMessage(error);
  if (message === undefined) return error instanceof Error ? error : new Error(String(error));
  const file = error instanceof Error && 'path' in error && typeof error.path === 'string' ? error.path : '';
  return new IoError(`${message}. ${outcome}`, file, errorCode(error));
}

/** The reason of a system error code in words: the usual ones as people say them, others as the system does. */
export function systemErrorReason(code: string, errno?: number): string {
  return SYSTEM_ERRORS.get(code) ?? (errno === undefined ? undefined : getSystemErrorMap().get(errno)?.[1]) ?? 'the system refused';
}

/** What each file system call was doing, as a message says it. */
const SYSCALL_VERBS = new Map([
  ['open', 'open'],
  ['read', 'read'],
  ['write', 'write'],
  ['fsync', 'write'],
  ['ftruncate', 'truncate'],
  ['close', 'close'],
  ['mkdir', 'create the folder'],
  ['mkdtemp', 'create a temporary folder at'],
  ['rmdir', 'remove the folder'],
  ['rm', 'remove'],
  ['unlink', 'remove'],
  ['rename', 'rename'],
  ['copyfile', 'copy'],
  ['link', 'link'],
  ['symlink', 'link'],
  ['scandir', 'list the folder'],
  ['opendir', 'list the folder'],
  ['stat', 'look at'],
  ['lstat', 'look at'],
  ['fstat', 'look at'],
  ['realpath', 'resolve'],
  ['access', 'access'],
  ['chmod', 'change the permissions of'],
  ['utime', 'set the time of'],
  ['futime', 'set the time of'],
  ['watch', 'watch'],
]);

const SYSTEM_ERRORS = new Map([
  ['ENOSPC', 'no space left on the device'],
  ['EDQUOT', 'over the disk quota'],
  ['EROFS', 'the file system is read-only'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'operation not permitted'],
  ['ENOENT', 'no such file or folder'],
  ['ENOTDIR', 'a part of the path is a file, not a folder'],
  ['EISDIR', 'a folder is where a file goes'],
  ['EEXIST', 'something is already there'],
  ['ENOTEMPTY', 'the folder is not empty'],
  ['EMFILE', 'too many open files'],
  ['ENFILE', 'too many open files'],
  ['EIO', 'an input/output error of the device'],
  ['ENAMETOOLONG', 'the name is too long'],
  ['ELOOP', 'too many levels of symbolic links'],
  ['EBUSY', 'it is busy'],
  ['EXDEV', 'it is on another file system'],
  ['EFBIG', 'the file is too large'],
]);

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Errors and warnings in reading order: by file, line, column; file-less ones first. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      a.message.localeCompare(b.message),
  );
}

// ---------------------------------------------------------------------------------------------
// Human format

/** Where the source line of a diagnostic comes from: the text of line `line` of `file`. */
export type SourceLine = (file: string, line: number) => string | undefined;

export interface FormatOptions {
  /** ANSI colors; decide with `useColor`. Default off. */
  color?: boolean;
  /** The widest source line shown, in terminal columns; longer ones are cut around the column. */
  width?: number;
}

const DEFAULT_WIDTH = 100;
const TAB_WIDTH = 4;

/**
 * Whether to color the human format, after the conventions of Node and no-color.org:
 * `FORCE_COLOR` decides when set (`0` or `false` is off, any other value on, TTY or not);
 * otherwise a non-empty `NO_COLOR` or `TERM=dumb` is off; otherwise colors on a TTY, and in
 * GitHub Actions, whose log shows them although its output is not a terminal.
 */
export function useColor(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  if (env.TERM === 'dumb') return false;
  return isTTY || env.GITHUB_ACTIONS === 'true';
}

type Style = 'bold' | 'dim' | 'red' | 'yellow' | 'cyan';

/** `text` in ANSI styles, or as it is when colors are off. Codes from util.inspect's table. */
function paint(on: boolean | undefined, styles: readonly Style[], text: string): string {
  if (!on || text === '') return text;
  return styles.reduce((out, style) => {
    const [open, close] = inspect.colors[style]!;
    return `\u001b[${open}m${out}\u001b[${close}m`;
  }, text);
}

/**
 * Human format, after esbuild: `file:line:column: severity[code]: message`, the source line
 * with a caret under the column, then the hint. `sourceLine` gives the text of a line.
 */
export function formatDiagnostic(d: Diagnostic, sourceLine?: SourceLine, options: FormatOptions = {}): string {
  const { color } = options;
  const tone: Style = d.severity === 'error' ? 'red' : 'yellow';
  const where = d.file ? `${paint(color, ['bold'], `${printable(d.file)}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}:`)} ` : '';
  const lines = [`${where}${paint(color, ['bold', tone], d.severity)}${paint(color, ['dim'], `[${d.code}]`)}: ${printable(headline(d))}`];
  const text = d.file && d.line ? sourceLine?.(d.file, d.line) : undefined;
  if (text !== undefined && d.line) {
    const gutter = String(d.line);
    const excerpt = sourceExcerpt(text, d.column ?? 1, options.width ?? DEFAULT_WIDTH);
    lines.push(`${paint(color, ['dim'], `  ${gutter} |`)} ${excerpt.text}`);
    lines.push(`${paint(color, ['dim'], `  ${' '.repeat(gutter.length)} |`)} ${' '.repeat(excerpt.caret)}${paint(color, ['bold', tone], '^')}`);
  }
  if (d.hint) lines.push(paint(color, ['cyan'], `  hint: ${printable(d.hint)}`));
  return lines.join('\n');
}

/** The message, and the field path unless the message names it already (`unknown field "relased"`). */
function headline(d: Diagnostic): string {
  return d.path && !d.message.includes(`"${d.path}"`) ? `${d.message} (at ${d.path})` : d.message;
}

/** Every diagnostic in reading order, then the tally: `2 errors, 1 warning`. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], sourceLine?: SourceLine, options: FormatOptions = {}): string {
  const sorted = sortDiagnostics(diagnostics);
  const errors = sorted.filter((d) => d.severity === 'error').length;
  const warnings = sorted.length - errors;
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const tally = [
    errors > 0 && paint(options.color, ['bold', 'red'], count(errors, 'error')),
    warnings > 0 && paint(options.color, ['bold', 'yellow'], count(warnings, 'warning')),
  ]
    .filter(Boolean)
    .join(', ');
  return [...sorted.map((d) => formatDiagnostic(d, sourceLine, options)), tally].join('\n\n');
}

/**
 * A source line as a terminal shows it, and the caret's distance from its start, both in
 * terminal columns: tabs expanded to stops every TAB_WIDTH columns, East Asian wide characters
 * and emoji two columns, combining marks none, control characters shown as their symbols
 * (␛ for ESC). A line wider than `width` is cut around the column, the cuts marked with `…`.
 * `column` is 1-based and counts UTF-16 code units, like the YAML parser's positions.
 */
export function sourceExcerpt(line: string, column: number, width: number = DEFAULT_WIDTH): { text: string; caret: number } {
  const offset = Math.max(0, column - 1);
  // Intl.Segmenter takes quadratic time on a long string (400,000 characters: two minutes), and
  // a minified or hostile content file can be one long line: segment only a window around the
  // column, wide enough for `width` columns, and mark what was cut off.
  const reach = Math.max(width, 1) * 8;
  if (line.length > 2 * reach) {
    let start = Math.max(0, Math.min(offset, line.length) - reach);
    let end = Math.min(line.length, start + 2 * reach);
    if (start > 0 && /[\udc00-\udfff]/.test(line[start]!)) start--; // not half a surrogate pair
    if (end < line.length && /[\udc00-\udfff]/.test(line[end]!)) end++;
    const inner = sourceExcerpt(line.slice(start, end), offset - start + 1, width);
    const before = start > 0 && !inner.text.startsWith('…') ? '…' : '';
    const after = end < line.length && !inner.text.endsWith('…') ? '…' : '';
    return { text: `${before}${inner.text}${after}`, caret: inner.caret + before.length };
  }
  const cells: { text: string; at: number; width: number }[] = [];
  let total = 0;
  let caret: number | undefined;
  for (const { segment, index } of graphemes.segment(line)) {
    if (caret === undefined && index + segment.length > offset) caret = total;
    const shown = segment === '\t' ? ' '.repeat(TAB_WIDTH - (total % TAB_WIDTH)) : printable(segment);
    // A grapheme with characters made visible (CR LF is one) can become several: each is counted.
    const cellWidth =
      segment === '\t' ? shown.length : shown === segment ? displayWidth(shown) : [...graphemes.segment(shown)].reduce((sum, g) => sum + displayWidth(g.segment), 0);
    cells.push({ text: shown, at: total, width: cellWidth });
    total += cellWidth;
  }
  // A column past the end (a missing value at the end of a line) points after the last character.
  caret ??= total + (offset - line.length);
  if (total <= width) return { text: cells.map((c) => c.text).join(''), caret };

  // Cut to a window of `width` columns that shows the caret a third of the way in.
  const room = Math.max(1, width - 2); // the two `…`
  let start = Math.max(0, caret - Math.floor(room / 3));
  const end = Math.min(total, start + room);
  start = Math.max(0, end - room);
  const kept = cells.filter((c) => c.at >= start && c.at + c.width <= end);
  const first = kept[0]?.at ?? start;
  const before = first > 0 ? '…' : '';
  const last = kept.length > 0 ? kept[kept.length - 1]!.at + kept[kept.length - 1]!.width : end;
  const after = last < total ? '…' : '';
  return { text: `${before}${kept.map((c) => c.text).join('')}${after}`, caret: caret - first + before.length };
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Terminal columns of a grapheme (one user-perceived character): 2 for East Asian wide and
 * fullwidth characters and emoji, 0 for a lone combining mark or invisible format character,
 * 1 otherwise. Close to wcwidth, without its tables.
 */
function displayWidth(grapheme: string): number {
  const code = grapheme.codePointAt(0) ?? 0;
  if (/^\p{Extended_Pictographic}/u.test(grapheme) && (/\p{Emoji_Presentation}/u.test(grapheme) || grapheme.includes('\uFE0F'))) return 2;
  if (/^\p{Regional_Indicator}/u.test(grapheme)) return 2;
  if (WIDE.some(([from, to]) => code >= from && code <= to)) return 2;
  if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(grapheme)) return 0;
  return 1;
}

/** Blocks of East Asian wide and fullwidth characters (Unicode's EastAsianWidth W and F). */
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
  [0x3400, 0x4dbf], // CJK unified ideographs extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x1b000, 0x1b2ff], // Kana supplement and extensions, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x3fffd], // CJK unified ideographs extensions B and later
];

/**
 * Text from content as a terminal or a CI log may safely show it: control characters made visible
 * (ESC as ␛, LF as ␊, CR as ␍, DEL as ␡; C1 controls such as NEL, and the bidirectional overrides
 * and isolates that reorder what is shown, as �), and the Unicode line and paragraph separators as
 * ␤. Content must not move the cursor, recolor the terminal, or start a line of its own: a CI log
 * reads a line that starts with `::error` as a workflow command, and a diagnostic is one line.
 * Tabs stay. With `newlines`, LF stays too, for messages addon-gen itself spreads over lines.
 * Each character shown in place of another takes one column, which the caret of an excerpt counts on.
 */
export function printable(text: string, options: { newlines?: boolean } = {}): string {
  return text.replace(options.newlines ? UNPRINTABLE_BUT_LF : UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    if (code === 0x2028 || code === 0x2029) return '\u2424';
    return '\ufffd';
  });
}

/** All that printable() replaces but LF: the controls, the line separators, the bidi overrides and isolates. */
const UNPRINTABLE_CLASS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNPRINTABLE = new RegExp(`[\\u000a${UNPRINTABLE_CLASS}]`, 'g');
const UNPRINTABLE_BUT_LF = new RegExp(`[${UNPRINTABLE_CLASS}]`, 'g');

// ---------------------------------------------------------------------------------------------
// Machine formats

/** A diagnostic in `--json`: always these keys in this order, null where unknown. */
export interface DiagnosticJson {
  code: DiagnosticCode;
  severity: Severity;
  file: string | null;
  line: number | null;
  column: number | null;
  path: string | null;
  message: string;
  hint: string | null;
}

export function diagnosticJson(d: Diagnostic): DiagnosticJson {
  return {
    code: d.code,
    severity: d.severity,
    file: d.file ?? null,
    line: d.line ?? null,
    column: d.line === undefined ? null : (d.column ?? null),
    path: d.path ?? null,
    message: d.message,
    hint: d.hint ?? null,
  };
}

export interface AnnotationPaths {
  /** The folder relative file names are relative to: the process's working directory. */
  cwd: string;
  /** The repository root, which GitHub wants paths relative to ($GITHUB_WORKSPACE); default `cwd`. */
  root?: string;
}

/**
 * A GitHub Actions workflow command that annotates the file and line with the diagnostic:
 * `::error file=content/x.yaml,line=4,col=1,title=unknown-field::message`, `::warning` for
 * warnings, the hint on a second line of the message. Escaped as GitHub's toolkit does, so that
 * no value can end the command early or start another (a newline is `%0A`, which the annotation
 * shows as a line break), and what escaping leaves made printable, so that no ESC or BEL reaches
 * the log raw.
 */
export function githubAnnotation(d: Diagnostic, paths: AnnotationPaths): string {
  const properties: [string, string | number | undefined][] = [];
  if (d.file) {
    const relative = path.relative(paths.root ?? paths.cwd, path.resolve(paths.cwd, d.file));
    properties.push(['file', relative.split(path.sep).join('/')]);
    if (d.line) properties.push(['line', d.line], ['col', d.column]);
  }
  properties.push(['title', d.code]);
  const message = `${headline(d)}${d.hint ? `\nhint: ${d.hint}` : ''}`;
  const list = properties
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${printable(escapeProperty(String(value)))}`)
    .join(',');
  return `::${d.severity} ${list}::${printable(escapeData(message))}`;
}

/** The workflow command's message: `%`, CR and LF would end or garble the command. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: as data, and `:` and `,`, which separate the properties. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

// ---------------------------------------------------------------------------------------------
// The list the stages report to

/**
 * The most errors shown for one file, and apart from them the most warnings. More problems than
 * this in one file are one mistake repeated (a list of ids where items belong, a converter gone
 * wrong): the first hundred show it, while a million take minutes and gigabytes to locate and
 * print, and nobody reads them. Errors and warnings are limited apart so that warnings never
 * push the errors, which are what stop the build, out of sight.
 */
export const MAX_PROBLEMS_PER_FILE = 100;

/** One file's problems: how many of each severity were kept and left out, where the first left out is. */
interface FileTally {
  kept: Record<Severity, number>;
  omitted: Record<Severity, number>;
  firstOmitted?: Partial<Location>;
}

/**
 * The diagnostics of a run as the stages find them, with at most MAX_PROBLEMS_PER_FILE errors and
 * as many warnings of each file: the first found, which are the first in the file, as its items
 * are checked in order (problems found by comparing items, such as duplicate ids, come after).
 * The rest are only counted, and `list()` adds one too-many-problems for each file that had more.
 * Locating a problem can mean parsing its item again: `add` builds a problem only when it is
 * shown, so that past the limit a file's problems cost little more than counting them.
 */
export class DiagnosticList {
  private readonly kept: Diagnostic[] = [];
  private readonly files = new Map<string, FileTally>();

  push(diagnostic: Diagnostic): void {
    const tally = diagnostic.file === undefined ? undefined : this.tally(diagnostic.file);
    if (!tally || tally.kept[diagnostic.severity] < MAX_PROBLEMS_PER_FILE) {
      this.kept.push(diagnostic);
      if (tally) tally.kept[diagnostic.severity]++;
    } else {
      tally.omitted[diagnostic.severity]++;
      tally.firstOmitted ??= diagnostic.line === undefined ? {} : { line: diagnostic.line, column: diagnostic.column };
    }
  }

  /**
   * The problem that `build` makes, of that file and severity: built when it is shown, or when
   * it is the first left out (the summary gives its position), and otherwise only counted.
   */
  add(file: string, severity: Severity, build: () => Diagnostic): void {
    const tally = this.tally(file);
    if (tally.kept[severity] < MAX_PROBLEMS_PER_FILE || !tally.firstOmitted) this.push(build());
    else tally.omitted[severity]++;
  }

  /** The diagnostics kept, in the order found, then a too-many-problems for each file that had more. */
  list(): Diagnostic[] {
    const summaries: Diagnostic[] = [];
    for (const [file, tally] of this.files) {
      if (tally.omitted.error + tally.omitted.warning > 0) summaries.push(tooManyProblems(file, tally));
    }
    return [...this.kept, ...summaries];
  }

  private tally(file: string): FileTally {
    let tally = this.files.get(file);
    if (!tally) {
      tally = { kept: { error: 0, warning: 0 }, omitted: { error: 0, warning: 0 } };
      this.files.set(file, tally);
    }
    return tally;
  }
}

/** The summary of what a file's limit left out: an error if any of it is. */
function tooManyProblems(file: string, { omitted, firstOmitted }: FileTally): Diagnostic {
  const { error: errors, warning: warnings } = omitted;
  const total = errors + warnings;
  const count = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
  const what = warnings === 0 ? 'more error' : errors === 0 ? 'more warning' : 'more problem';
  const both = errors > 0 && warnings > 0 ? `: ${count(errors, 'error')} and ${count(warnings, 'warning')}` : '';
  return {
    code: 'too-many-problems',
    severity: errors > 0 ? 'error' : 'warning',
    file,
    ...firstOmitted,
    message: `${count(total, what)} in this file ${total === 1 ? 'is' : 'are'} not shown${both}`,
    hint: 'fix the ones shown and build again; so many problems in one file are usually one mistake, repeated',
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers for the stages

/** Field paths as people read them: `videos[0].streams[1].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Longer words get no "did you mean": nobody mistypes them, and the distance is quadratic in length. */
const MAX_SUGGESTED_LENGTH = 256;

/**
 * Characters compared, word by candidate, by the "did you mean" hints of one run: far more than
 * people's mistakes need, and a bound on content made to ask for millions of hints among
 * thousands of long candidates (the distance is quadratic in their lengths).
 */
const SUGGESTION_WORK = 20_000_000;

/** `closest` within a budget of work for a whole run; `candidates` are made only while it lasts. */
export function suggester(work = SUGGESTION_WORK): (word: string, candidates: () => readonly string[], maxDistance?: number) => string | undefined {
  let left = work;
  return (word, candidates, maxDistance) => {
    if (left <= 0 || word.length > MAX_SUGGESTED_LENGTH) return undefined;
    const list = candidates();
    let characters = list.length;
    for (const candidate of list) characters += candidate.length;
    left -= characters * Math.max(1, word.length);
    return left >= 0 ? closest(word, list, maxDistance) : undefined;
  };
}

/**
 * The closest candidate within a small edit distance, for "did you mean" hints: letters added,
 * removed, replaced or two neighbours swapped, case ignored. `maxDistance` narrows the default
 * (2, or a third of the word's length when longer): 1 finds only `movies` for `movie`, `Movie`,
 * `moive`, where a looser match would take a type or genre of one's own for a typo.
 */
export function closest(word: string, candidates: readonly string[], maxDistance?: number): string | undefined {
  if (word.length > MAX_SUGGESTED_LENGTH) return undefined;
  let best: string | undefined;
  let bestDistance = Math.min(maxDistance ?? Infinity, Math.max(2, Math.floor(word.length / 3))) + 1;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    // The distance is at least the difference in length: no need to work it out.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment (Damerau-Levenshtein without edits of a swapped pair): `moive` is one from `movie`. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j]!, before[j - 2]! + 1);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
