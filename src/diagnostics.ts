// Problems found in content, as values: every stage returns them, one formatter prints them.
// The catalog below is the list of every code addon-gen can report; the README documents each.

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
  'missing-asset': 'A local file named by a URL field does not exist.',
  'asset-outside-content': 'A local file path leaves the content folder.',
  'base-url-required': 'Local files or genre links need the public base URL.',
  'manifest-too-large': 'manifest.json is over 8 KB; the official SDK refuses such manifests.',
  'missing-addon-yaml': 'The content folder has no addon.yaml.',
  'output-conflict': 'Two inputs would write the same output file.',
  'host-limit': 'The output is over a limit of a chosen host (files, file size, site size).',
  'host-file-name': 'File names that a host or Windows checkouts refuse.',
} as const;

export type DiagnosticCode = keyof typeof CODES;

/** A usage error (bad flag, missing folder): exit status 2, no content diagnostics. */
export class UsageError extends Error {
  override name = 'UsageError';
}

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

/**
 * Human format, after esbuild: `file:line:column: severity[code]: message`, the source line
 * with a caret under the column, then the hint. `sourceLine` gives the text of a line.
 */
export function formatDiagnostic(d: Diagnostic, sourceLine?: (file: string, line: number) => string | undefined): string {
  const where = d.file ? `${d.file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}: ` : '';
  // The field path, unless the message already names it (`unknown field "relased"`).
  const field = d.path && !d.message.includes(`"${d.path}"`) ? ` (at ${d.path})` : '';
  const lines = [`${where}${d.severity}[${d.code}]: ${d.message}${field}`];
  const text = d.file && d.line ? sourceLine?.(d.file, d.line) : undefined;
  if (text !== undefined && d.line) {
    const gutter = String(d.line);
    const shown = text.replace(/\t/g, ' ');
    lines.push(`  ${gutter} | ${shown}`);
    lines.push(`  ${' '.repeat(gutter.length)} | ${' '.repeat(Math.max(0, (d.column ?? 1) - 1))}^`);
  }
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n');
}

export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  sourceLine?: (file: string, line: number) => string | undefined,
): string {
  const sorted = sortDiagnostics(diagnostics);
  const errors = sorted.filter((d) => d.severity === 'error').length;
  const warnings = sorted.length - errors;
  const tally = [errors && `${errors} error${errors === 1 ? '' : 's'}`, warnings && `${warnings} warning${warnings === 1 ? '' : 's'}`]
    .filter(Boolean)
    .join(', ');
  return [...sorted.map((d) => formatDiagnostic(d, sourceLine)), tally].join('\n\n');
}

/** Field paths as people read them: `videos[0].streams[1].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** The closest candidate within a small edit distance, for "did you mean" hints. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
