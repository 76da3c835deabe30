// The machine formats: --json, and GitHub Actions workflow commands.
import path from 'node:path';
import type { Diagnostic, DiagnosticCode, Location, RelatedLocation, Severity } from './codes.js';
import { printable } from './excerpt.js';
import { headline } from './human.js';

/**
 * A diagnostic in `--json`: always these keys in this order, null where unknown, and `related`
 * last only when the diagnostic names other places (consumers of the eight keys see no change).
 */
export interface DiagnosticJson {
  code: DiagnosticCode;
  severity: Severity;
  file: string | null;
  line: number | null;
  column: number | null;
  path: string | null;
  message: string;
  hint: string | null;
  related?: RelatedLocationJson[];
}

/** A related location in `--json`: these keys in this order, null where unknown. */
export interface RelatedLocationJson {
  file: string | null;
  line: number | null;
  column: number | null;
  message: string;
}

export function diagnosticJson(d: Diagnostic): DiagnosticJson {
  const json: DiagnosticJson = {
    code: d.code,
    severity: d.severity,
    file: d.file ?? null,
    line: d.line ?? null,
    column: d.line === undefined ? null : (d.column ?? null),
    path: d.path ?? null,
    message: d.message,
    hint: d.hint ?? null,
  };
  if (d.related?.length) json.related = d.related.map(relatedJson);
  return json;
}

function relatedJson(r: RelatedLocation): RelatedLocationJson {
  return {
    file: r.file ?? null,
    line: r.line ?? null,
    column: r.line === undefined ? null : (r.column ?? null),
    message: r.message,
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
 * the log raw. Each related location follows as a `::notice` of its own, with the same title,
 * so that the other place shows the annotation too (the other file of a duplicate id, on the
 * pull request's diff), where a line of the message would only name it: one line per command.
 */
export function githubAnnotation(d: Diagnostic, paths: AnnotationPaths): string {
  const message = `${headline(d)}${d.hint ? `\nhint: ${d.hint}` : ''}`;
  const commands = [workflowCommand(d.severity, [...fileProperties(d, paths), ['title', d.code]], message)];
  for (const note of d.related ?? []) {
    commands.push(workflowCommand('notice', [...fileProperties(note, paths), ['title', d.code]], note.message));
  }
  return commands.join('\n');
}

type Property = [string, string | number | undefined];

/** `file`, relative to the repository root with forward slashes, then `line` and `col` when known. */
function fileProperties(at: Partial<Location>, paths: AnnotationPaths): Property[] {
  // A playlist read from a URL is no file of the repository: GitHub could not show it.
  if (!at.file || /^https?:\/\//i.test(at.file)) return [];
  const relative = path.relative(paths.root ?? paths.cwd, path.resolve(paths.cwd, at.file));
  const properties: Property[] = [['file', relative.split(path.sep).join('/')]];
  if (at.line) properties.push(['line', at.line], ['col', at.column]);
  return properties;
}

function workflowCommand(command: Severity | 'notice', properties: readonly Property[], message: string): string {
  const list = properties
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${printable(escapeProperty(String(value)))}`)
    .join(',');
  return `::${command} ${list}::${printable(escapeData(message))}`;
}

/** The workflow command's message: `%`, CR and LF would end or garble the command. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: as data, and `:` and `,`, which separate the properties. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
