// The diagnostics of a run as the stages report them, limited per file, and their reading order.
import type { Diagnostic, Location, Severity } from './codes.js';
import { problem } from './problem.js';

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

  /** Whether any problem of `file` was found. */
  has(file: string): boolean {
    return this.files.has(file);
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
  return problem('too-many-problems', { errors, warnings }, { severity: errors > 0 ? 'error' : 'warning', file, ...firstOmitted });
}
