// What build and validate print: the summary, the problems (for people, as JSON, as GitHub
// Actions annotations), the progress line, and the exit status.
import type { BuildResult, Progress } from '../build/index.js';
import {
  diagnosticJson,
  formatDiagnostics,
  githubAnnotation,
  hasErrors,
  printable,
  sortDiagnostics,
  useColor,
  type Diagnostic,
} from '../diagnostics/index.js';
import { sourceLineOf } from '../load/index.js';
import { byteSize } from '../shared/bytes.js';
import type { Io } from './io.js';
export interface ReportOptions {
  verb: 'build' | 'validate';
  quiet?: boolean;
  json?: boolean;
  out?: string;
}

/**
 * Prints one run's result and returns its exit status. Problems go to stderr for people, or
 * into the JSON on stdout with --json; in GitHub Actions also as workflow commands, which
 * GitHub turns into annotations on the files: on stdout, or on stderr with --json to keep
 * stdout pure JSON (the runner reads commands from both).
 */
export function report(result: BuildResult, options: ReportOptions, io: Io): number {
  const failed = hasErrors(result.diagnostics);
  const annotations = githubAnnotations(result.diagnostics, io);
  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          ok: !failed,
          diagnostics: sortDiagnostics(result.diagnostics).map(diagnosticJson),
          summary: failed ? null : summaryData(result),
        },
        null,
        2,
      )}\n`,
    );
    if (annotations) io.stderr(annotations);
    return failed ? 1 : 0;
  }
  if (result.diagnostics.length > 0) io.stderr(humanText(result, io));
  if (annotations) io.stdout(annotations);
  if (failed) {
    io.stderr(options.verb === 'build' ? 'Nothing was written.\n' : '');
    return 1;
  }
  if (!options.quiet) io.stdout(summaryText(result, options));
  return 0;
}

/**
 * One line on the terminal that shows the stage and, while writing, files done of the total,
 * redrawn at most ten times a second. Nothing of it where it would end up in a log (stdout not
 * a terminal, CI, --quiet or --json), nor on a terminal that cannot redraw a line (TERM=dumb).
 */
export function progressLine(io: Io, options: { quiet?: boolean; json?: boolean }): { update: (p: Progress) => void; clear: () => void } {
  const env = io.env ?? {};
  const enabled = io.stdoutIsTTY === true && !options.quiet && !options.json && !env.CI && env.GITHUB_ACTIONS !== 'true' && env.TERM !== 'dumb';
  if (!enabled) return { update: () => {}, clear: () => {} };
  let shown = false;
  let last = 0;
  let stage: Progress['stage'] | undefined;
  return {
    update: (progress) => {
      const now = performance.now();
      // A new stage is always shown; counts within one only every 100 ms.
      if (progress.stage === stage && now - last < 100 && progress.done !== progress.total) return;
      stage = progress.stage;
      last = now;
      shown = true;
      const counts =
        progress.total === undefined ? '' : ` ${(progress.done ?? 0).toLocaleString('en')} / ${progress.total.toLocaleString('en')} files`;
      io.stdout(`\r\x1b[2K${progress.stage}…${counts}`);
    },
    clear: () => {
      if (shown) io.stdout('\r\x1b[2K');
    },
  };
}

/** The problems in the human format, colored when stderr is a terminal (see useColor). */
export function humanText(result: BuildResult, io: Io): string {
  const color = useColor(io.stderrIsTTY ?? false, io.env ?? {});
  return `${formatDiagnostics(result.diagnostics, sourceLineOf(result.sources), { color })}\n`;
}

/** One workflow command per problem when running in GitHub Actions, paths relative to the repository. */
function githubAnnotations(diagnostics: readonly Diagnostic[], io: Io): string {
  const env = io.env ?? {};
  if (env.GITHUB_ACTIONS !== 'true' || diagnostics.length === 0) return '';
  const paths = { cwd: process.cwd(), root: env.GITHUB_WORKSPACE || undefined };
  return sortDiagnostics(diagnostics)
    .map((d) => `${githubAnnotation(d, paths)}\n`)
    .join('');
}

function summaryData(result: BuildResult) {
  return {
    ...result.counts,
    manifestUrl: result.manifestUrl,
    files: result.write?.files ?? result.files?.length,
    ...(result.write && {
      bytes: result.write.bytes,
      written: result.write.written,
      unchanged: result.write.unchanged,
      removed: result.write.removed,
      byResource: result.write.byResource,
    }),
    hosts: result.hosts,
    reused: result.reused === true,
    edited: result.edited === true,
    stages: Object.fromEntries(Object.entries(result.stages).map(([stage, seconds]) => [stage, Number(seconds.toFixed(3))])),
    seconds: Number(result.seconds.toFixed(3)),
  };
}

function summaryText(result: BuildResult, options: ReportOptions): string {
  const { addon, counts, write } = result;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const lines = [
    `${options.verb === 'build' ? 'Built' : 'Checked'} ${addon!.name} ${addon!.version}${options.out ? ` into ${options.out}/` : ''}`,
    `  ${plural(counts!.items, 'item')}, ${plural(counts!.videos, 'video')}, ${plural(counts!.streams, 'stream')}, ${counts!.subtitles} subtitles${
      counts!.externalTitles > 0 ? `; for ${plural(counts!.externalTitles, 'title')} other addons describe` : ''
    }${counts!.configurations > 0 ? `; ${plural(counts!.configurations, 'configuration')}, each in a folder of its own` : ''}`,
  ];
  const listed = counts!.addonCollections;
  if (listed) lines.push(`  ${plural(listed.collections, 'addon collection')} listing ${plural(listed.addons, 'addon')}`);
  if (write) {
    lines.push(
      `  ${plural(write.files, 'file')}, ${byteSize(write.bytes, 'column')}: ${write.written} written, ${write.unchanged} unchanged, ${write.removed} removed`,
    );
    const rows = Object.entries(write.byResource).map(([resource, r]) => [
      resource,
      r.files.toLocaleString('en'),
      byteSize(r.bytes, 'column'),
      r.written.toLocaleString('en'),
    ]);
    lines.push(...table([['', 'files', 'bytes', 'written'], ...rows]).map((row) => `    ${row}`));
  } else {
    lines.push(`  ${plural(result.files!.length, 'file')} would be written`);
  }
  for (const report of result.hosts ?? []) {
    const limits = report.limits.map((l) => `${l.value > l.limit ? 'OVER' : 'within'} ${formatCount(l.limit, l.what)}`);
    lines.push(`  ${report.host}: ${limits.length > 0 ? limits.join('; ') : 'no size limits'}; ${report.tested}`);
    if (report.note) lines.push(`    ${report.note}`);
  }
  const stages = Object.entries(result.stages).map(([stage, seconds]) => `${stage} ${seconds.toFixed(2)} s`);
  lines.push(`  ${result.seconds.toFixed(2)} s (${stages.join(', ')})`);
  lines.push(
    result.manifestUrl
      ? `  manifest: ${result.manifestUrl}`
      : '  no base URL: genre links are left to the client; set baseUrl or --base-url before publishing',
  );
  // The addon's name and version come from the content.
  return `${lines.map((line) => printable(line)).join('\n')}\n`;
}

/** Rows of cells as aligned text: the first column to the left, the others to the right. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

function formatCount(limit: number, what: string): string {
  return what.startsWith('bytes') ? `${byteSize(limit, 'column')} (${what.replace(/^bytes /, '')})` : `${limit.toLocaleString('en')} ${what}`;
}
