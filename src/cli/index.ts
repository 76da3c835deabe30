// The command line: a thin layer over build() and startServer(). `run(argv)` returns the exit
// status (0 ok, 1 content errors, 2 usage and I/O errors, 70 a bug); only bin/ calls process.exit.
import { Command, CommanderError, Option } from 'commander';
import { build, type BuildResult, type Progress } from '../build/index.js';
import {
  diagnosticJson,
  formatDiagnostics,
  githubAnnotation,
  hasErrors,
  IoError,
  printable,
  sortDiagnostics,
  systemErrorMessage,
  UsageError,
  useColor,
  type Diagnostic,
} from '../diagnostics/index.js';
import { hasRewrites, HOSTS, type Host } from '../hosts/index.js';
import { initProject, initText } from './init.js';
import { findProject } from '../build/project.js';
import { CENTRAL_API, publishAddon } from './publish.js';
import { jsonSchemaText, SCHEMA_DIR, writeJsonSchemas } from '../validate/json-schema.js';
import { parseByteSize, sourceLineOf } from '../load/index.js';
import { ContentError, installLinks, startServer, type AddonServer } from '../serve/index.js';
import { packageInfo } from '../shared/package.js';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Stops a long-running command (serve); default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Whether stderr is a terminal: problems are colored there. Default false. */
  stderrIsTTY?: boolean;
  /** Whether stdout is a terminal: long builds show a progress line there. Default false. */
  stdoutIsTTY?: boolean;
  /** The variables that change how problems print (NO_COLOR, FORCE_COLOR, TERM, GITHUB_ACTIONS, GITHUB_WORKSPACE). Default none. */
  env?: Readonly<Record<string, string | undefined>>;
}

const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  env: process.env,
};

export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  let status = 0;
  const program = new Command('addon-gen')
    .description('Turn a folder of YAML content files into a complete static Stremio addon.')
    .version(packageInfo().version, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run addon-gen --help for usage)');

  program
    .command('build')
    .description('check the content and write the addon (JSON files and copied local files) to the output folder')
    .argument('[contentDir]', 'folder with addon.yaml and the item files, or a project folder that holds it in content/', 'content')
    .option('-o, --out <dir>', 'output folder (default: dist beside the content folder)')
    .option('--base-url <url>', 'public URL where the output will be published (overrides baseUrl in addon.yaml)')
    .option('--host <hosts>', `hosts to write rules for, comma-separated: ${HOSTS.join(', ')} or all`, 'all')
    .option('--s3-dir <dir>', 'folder for the S3 CORS configuration and upload script (default: <out>-s3)')
    .option('--allow-credentials-in-output', CREDENTIALS_FLAG)
    .option(MAX_FILE_SIZE_FLAG, MAX_FILE_SIZE_HELP)
    .option('-q, --quiet', 'print only problems, no summary')
    .addOption(new Option('--json', 'print a machine-readable result on stdout'))
    .action(async (contentDir: string, options: BuildFlags) => {
      const hosts = parseHosts(options.host);
      const project = await findProject(contentDir);
      const progress = progressLine(io, options);
      const result = await build({
        onProgress: progress.update,
        contentDir: project.contentDir,
        outDir: options.out ?? project.outDir,
        baseUrl: options.baseUrl,
        hosts,
        s3Dir: options.s3Dir,
        maxFileSize: parseMaxFileSize(options.maxFileSize),
        allowCredentialsInOutput: options.allowCredentialsInOutput,
      }).finally(progress.clear);
      status = report(result, { ...options, out: options.out ?? project.outDir, verb: 'build' }, io);
    });

  program
    .command('validate')
    .description('run every check on the content and write nothing')
    .argument('[contentDir]', 'folder with addon.yaml and the item files, or a project folder that holds it in content/', 'content')
    .option('--base-url <url>', 'public URL where the output will be published (overrides baseUrl in addon.yaml)')
    .option('--allow-credentials-in-output', CREDENTIALS_FLAG)
    .option(MAX_FILE_SIZE_FLAG, MAX_FILE_SIZE_HELP)
    .option('-q, --quiet', 'print only problems, no summary')
    .addOption(new Option('--json', 'print a machine-readable result on stdout'))
    .action(async (contentDir: string, options: ValidateFlags) => {
      const progress = progressLine(io, options);
      const result = await build({
        contentDir: (await findProject(contentDir)).contentDir,
        baseUrl: options.baseUrl,
        maxFileSize: parseMaxFileSize(options.maxFileSize),
        allowCredentialsInOutput: options.allowCredentialsInOutput,
        onProgress: progress.update,
      }).finally(progress.clear);
      status = report(result, { ...options, verb: 'validate' }, io);
    });

  program
    .command('serve')
    .description('build the content for the address it listens on into a private folder and serve it as a static host does')
    .argument('[contentDir]', 'folder with addon.yaml and the item files, or a project folder that holds it in content/', 'content')
    .option('-p, --port <port>', 'port to listen on (0: any free port)', '7000')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--base-url <url>', 'URL to build the addon for (default: the address it listens on)')
    .option('--dir <dir>', 'serve this already built output folder as it is, without building')
    .option('--like <host>', `answer as this host does (${HOSTS.join(', ')}): cloudflare, netlify and vercel rewrite subtitles requests with extras; github-pages and s3 serve files only`, 'github-pages')
    .option('-w, --watch', 'rebuild when content files change; a failed rebuild keeps the last good build')
    .option('--allow-credentials-in-output', CREDENTIALS_FLAG)
    .option(MAX_FILE_SIZE_FLAG, MAX_FILE_SIZE_HELP)
    .action(async (contentDir: string, options: ServeFlags, command: Command) => {
      // With --dir the default content folder is not a request to build it.
      const contentGiven = command.args.length > 0;
      if (options.dir !== undefined && contentGiven) throw new UsageError('serve takes a content folder or --dir, not both');
      status = await serve(options.dir !== undefined ? contentDir : (await findProject(contentDir)).contentDir, options, io);
    });

  program
    .command('init')
    .description('create a new addon project: content to edit, a .gitignore and a GitHub Pages workflow; asks nothing')
    .argument('[dir]', 'project folder (created when missing)', '.')
    .option('--id <id>', 'addon id (default: community.<folder name>)')
    .option('--name <name>', 'addon name (default: the folder name)')
    .option('--schedule <cron>', 'also rebuild and publish on this schedule, e.g. "0 6 * * *" (every day at 06:00 UTC)')
    .option('--force', 'overwrite files that already exist')
    .action(async (dir: string, options: { id?: string; name?: string; schedule?: string; force?: boolean }) => {
      io.stdout(initText(await initProject({ dir, ...options })));
    });

  program
    .command('schema')
    .description('write the JSON Schemas of addon.yaml and the item files, for editors that complete and check YAML')
    .option('-o, --out <dir>', 'folder to write them to', SCHEMA_DIR)
    .action(async (options: { out: string }) => {
      io.stdout(jsonSchemaText(await writeJsonSchemas(options.out), options.out));
    });

  program
    .command('publish')
    .description("announce the published addon in Stremio's community catalog (as the official SDK's publishToCentral does)")
    .argument('<manifestUrl>', 'the https:// URL of its manifest.json, where the host serves it')
    .option('--api-url <url>', 'the API to announce it to', CENTRAL_API)
    .action(async (manifestUrl: string, options: { apiUrl: string }) => {
      const { manifest } = await publishAddon(manifestUrl, { apiUrl: options.apiUrl });
      io.stdout(`${printable(`Published ${manifest.name} ${manifest.version} (${manifestUrl}) to ${options.apiUrl}: it appears in Stremio's community addons once listed`)}\n`);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    const { status, message } = failure(error);
    io.stderr(`addon-gen: ${message}\n`);
    return status;
  }
}

/** The exit status of a bug in addon-gen: EX_SOFTWARE of sysexits.h, neither the content's fault nor the flags'. */
export const BUG_STATUS = 70;

/**
 * What to print for an error that ended a command, and the exit status, never a stack trace.
 * A usage error says what to change (its message may span lines: init lists the files in its
 * way). An error of the system (a full disk, no permission, a file where a folder belongs) is the
 * environment's, like a folder that cannot be written: 2, with the path and the reason in words.
 * Anything else is a bug: its own status, so that nobody looks for it in the content.
 */
export function failure(error: unknown): { status: number; message: string } {
  // An I/O error names paths that come from the content (a local file's name): one line.
  if (error instanceof IoError) return { status: 2, message: printable(error.message) };
  if (error instanceof UsageError) return { status: 2, message: printable(error.message, { newlines: true }) };
  const system = systemErrorMessage(error);
  if (system !== undefined) return { status: 2, message: printable(system) };
  const message = error instanceof Error ? error.message : String(error);
  return { status: BUG_STATUS, message: printable(`internal error: ${message}; this is a bug in addon-gen, please report it with the command that caused it`) };
}

interface BuildFlags {
  out?: string;
  baseUrl?: string;
  host: string;
  s3Dir?: string;
  maxFileSize?: string;
  quiet?: boolean;
  json?: boolean;
  allowCredentialsInOutput?: boolean;
}

interface ServeFlags {
  port: string;
  host: string;
  baseUrl?: string;
  dir?: string;
  like: string;
  watch?: boolean;
  allowCredentialsInOutput?: boolean;
  maxFileSize?: string;
}

interface ValidateFlags {
  baseUrl?: string;
  maxFileSize?: string;
  quiet?: boolean;
  json?: boolean;
  allowCredentialsInOutput?: boolean;
}

const CREDENTIALS_FLAG = 'let streams send Authorization, Cookie or X-Api-Key headers (a warning, not an error): anyone can read them';

/** Starts the server, prints how to install the addon, and waits for Ctrl-C (or io.signal). */
async function serve(contentDir: string, options: ServeFlags, io: Io): Promise<number> {
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) {
    throw new UsageError(`--port ${options.port}: expected a port number from 0 to 65535`);
  }
  const like = HOSTS.find((host) => host === options.like);
  if (like === undefined) throw new UsageError(`--like ${options.like}: expected one of ${HOSTS.join(', ')}`);
  // Listening for Ctrl-C from the start, so that one pressed during the first build still cleans up.
  const stop = io.signal ? { signal: io.signal, dispose: () => {} } : processSignals();
  let started = false;
  const printProblems = (result: BuildResult) => {
    if (result.diagnostics.length > 0) io.stderr(humanText(result, io));
  };
  let server: AddonServer;
  try {
    server = await startServer({
      ...(options.dir !== undefined ? { dir: options.dir } : { contentDir }),
      port: Number(options.port),
      host: options.host,
      baseUrl: options.baseUrl,
      like,
      watch: options.watch,
      allowCredentialsInOutput: options.allowCredentialsInOutput,
      maxFileSize: parseMaxFileSize(options.maxFileSize),
      onBuild: (result) => {
        printProblems(result);
        if (!started) return;
        if (result.ok) {
          io.stdout(`Rebuilt in ${result.seconds.toFixed(2)} s: ${result.write!.files} files\n`);
        } else {
          io.stderr('The rebuild failed; still serving the last good build.\n');
        }
      },
      onError: (error) => io.stderr(`addon-gen: ${failure(error).message}\n`),
    });
  } catch (error) {
    stop.dispose();
    if (!(error instanceof ContentError)) throw error;
    io.stderr('Nothing is served.\n');
    return 1;
  }
  started = true;
  io.stdout(serveText(server, contentDir, options, like));
  await aborted(stop.signal);
  stop.dispose();
  await server.close();
  io.stdout('Stopped.\n');
  return 0;
}

function serveText(server: AddonServer, contentDir: string, options: ServeFlags, like: Host): string {
  const { manifest } = server;
  const links = installLinks(server.manifestUrl);
  const from = options.dir !== undefined ? `${options.dir} as it is` : `a private build of ${contentDir}`;
  const lines = [
    manifest
      ? `Serving ${manifest.name} ${manifest.version} at ${server.url} from ${from}`
      : `Listening at ${server.url}; the content has errors, so requests get 503 until it builds`,
    `  manifest: ${links.manifest}`,
    `  install:  ${links.stremio}`,
    `  web:      ${links.web}`,
    `  page:     ${server.url}`,
    `  answers as ${like} does: ${hasRewrites(like) ? 'subtitles requests with extras get the id\'s file' : 'files only (--like cloudflare previews the subtitles rewrite)'}`,
  ];
  if (server.headerSource === 'none') lines.push(`  ${options.dir} has no _headers file: responses carry no Cache-Control`);
  if (options.watch) lines.push(`  watching ${contentDir} for changes`);
  lines.push('Press Ctrl-C to stop.');
  // The name and version come from the content (or the served tree), the folders from the flags.
  return `${lines.map((line) => printable(line)).join('\n')}\n`;
}

/**
 * A signal aborted by SIGINT or SIGTERM. dispose() removes the listeners (and the first signal
 * does too), so that a second Ctrl-C during shutdown ends the process as usual.
 */
function processSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const dispose = () => {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  };
  const abort = () => {
    dispose();
    controller.abort();
  };
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  return { signal: controller.signal, dispose };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const MAX_FILE_SIZE_FLAG = '--max-file-size <size>';
const MAX_FILE_SIZE_HELP = 'refuse content files larger than this, unread: bytes, or with K, M or G (default: 16M)';

/** `--max-file-size 64M`: bytes, or with a suffix K, M or G (powers of 1024). */
function parseMaxFileSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bytes = parseByteSize(value);
  if (bytes === undefined || bytes < 1) {
    throw new UsageError(`--max-file-size ${value}: expected a size in bytes, or with K, M or G (e.g. 64M)`);
  }
  return bytes;
}

/** `--host cloudflare,vercel` or `all`. */
function parseHosts(value: string): Host[] {
  const names = value.split(',').map((h) => h.trim()).filter(Boolean);
  if (names.includes('all')) return [...HOSTS];
  const unknown = names.filter((h) => !(HOSTS as readonly string[]).includes(h));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--host ${value}: expected ${HOSTS.join(', ')} or all, comma-separated`);
  }
  return names as Host[];
}

interface ReportOptions {
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
function report(result: BuildResult, options: ReportOptions, io: Io): number {
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
 * redrawn at most ten times a second. Nothing of it where it would end up in a log: stdout not
 * a terminal, CI, --quiet or --json.
 */
export function progressLine(io: Io, options: { quiet?: boolean; json?: boolean }): { update: (p: Progress) => void; clear: () => void } {
  const env = io.env ?? {};
  const enabled = io.stdoutIsTTY === true && !options.quiet && !options.json && !env.CI && env.GITHUB_ACTIONS !== 'true';
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
      const counts = progress.total === undefined ? '' : ` ${(progress.done ?? 0).toLocaleString('en')} / ${progress.total.toLocaleString('en')} files`;
      io.stdout(`\r\x1b[2K${progress.stage}…${counts}`);
    },
    clear: () => {
      if (shown) io.stdout('\r\x1b[2K');
    },
  };
}

/** The problems in the human format, colored when stderr is a terminal (see useColor). */
function humanText(result: BuildResult, io: Io): string {
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
    stages: Object.fromEntries(Object.entries(result.stages).map(([stage, seconds]) => [stage, Number(seconds.toFixed(3))])),
    seconds: Number(result.seconds.toFixed(3)),
  };
}

function summaryText(result: BuildResult, options: ReportOptions): string {
  const { addon, counts, write } = result;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const lines = [
    `${options.verb === 'build' ? 'Built' : 'Checked'} ${addon!.name} ${addon!.version}${options.out ? ` into ${options.out}/` : ''}`,
    `  ${plural(counts!.items, 'item')}, ${plural(counts!.videos, 'video')}, ${plural(counts!.streams, 'stream')}, ${counts!.subtitles} subtitles`,
  ];
  if (write) {
    lines.push(
      `  ${plural(write.files, 'file')}, ${formatBytes(write.bytes)}: ${write.written} written, ${write.unchanged} unchanged, ${write.removed} removed`,
    );
    const rows = Object.entries(write.byResource).map(([resource, r]) => [
      resource,
      r.files.toLocaleString('en'),
      formatBytes(r.bytes),
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
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd());
}

function formatCount(limit: number, what: string): string {
  return what.startsWith('bytes') ? `${formatBytes(limit)} (${what.replace(/^bytes /, '')})` : `${limit.toLocaleString('en')} ${what}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
}

