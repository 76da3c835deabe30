// The human format, after esbuild: the location, the source line with a caret, the hint.
import { inspect } from 'node:util';
import type { Diagnostic, Location } from './codes.js';
import { DEFAULT_WIDTH, printable, sourceExcerpt } from './excerpt.js';
import { sortDiagnostics } from './list.js';

/** Where the source line of a diagnostic comes from: the text of line `line` of `file`. */
export type SourceLine = (file: string, line: number) => string | undefined;

export interface FormatOptions {
  /** ANSI colors; decide with `useColor`. Default off. */
  color?: boolean;
  /** The widest source line shown, in terminal columns; longer ones are cut around the column. */
  width?: number;
}

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
 * with a caret under the column, each related location the same way as a `note`, then the hint.
 * `sourceLine` gives the text of a line.
 */
export function formatDiagnostic(d: Diagnostic, sourceLine?: SourceLine, options: FormatOptions = {}): string {
  const { color } = options;
  const tone: Style = d.severity === 'error' ? 'red' : 'yellow';
  const lines = [`${where(d, color)}${paint(color, ['bold', tone], d.severity)}${paint(color, ['dim'], `[${d.code}]`)}: ${printable(headline(d))}`];
  lines.push(...excerptLines(d, sourceLine, options, ['bold', tone]));
  for (const note of d.related ?? []) {
    lines.push(`${where(note, color)}${paint(color, ['bold'], 'note')}: ${printable(note.message)}`);
    lines.push(...excerptLines(note, sourceLine, options, ['bold']));
  }
  if (d.hint) lines.push(paint(color, ['cyan'], `  hint: ${printable(d.hint)}`));
  return lines.join('\n');
}

/** `file:line:column: `, `file: ` without a line, or nothing without a file. */
function where(at: Partial<Location>, color: boolean | undefined): string {
  return at.file ? `${paint(color, ['bold'], `${printable(at.file)}${at.line ? `:${at.line}:${at.column ?? 1}` : ''}:`)} ` : '';
}

/** The source line of a location and a caret under its column, when the line is known. */
function excerptLines(at: Partial<Location>, sourceLine: SourceLine | undefined, options: FormatOptions, caret: readonly Style[]): string[] {
  const text = at.file && at.line ? sourceLine?.(at.file, at.line) : undefined;
  if (text === undefined || !at.line) return [];
  const { color } = options;
  const gutter = String(at.line);
  const excerpt = sourceExcerpt(text, at.column ?? 1, options.width ?? DEFAULT_WIDTH);
  return [
    `${paint(color, ['dim'], `  ${gutter} |`)} ${excerpt.text}`,
    `${paint(color, ['dim'], `  ${' '.repeat(gutter.length)} |`)} ${' '.repeat(excerpt.caret)}${paint(color, caret, '^')}`,
  ];
}

/** The message, and the field path unless the message names it already (`unknown field "relased"`). */
export function headline(d: Diagnostic): string {
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
