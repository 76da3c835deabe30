// The command line: a thin layer over build() and startServer(). `run(argv)` returns the exit
// status (0 ok, 1 content errors, 2 usage and I/O errors, 70 a bug); only bin/ calls process.exit.
import { Command, CommanderError, Option } from 'commander';
import { build } from '../build/index.js';
import { findProject, SCHEMA_DIR } from '../build/project.js';
import { printable, UsageError } from '../diagnostics/index.js';
import { HOSTS } from '../hosts/index.js';
import { packageInfo } from '../shared/package.js';
import {
  CENTRAL_API,
  CREDENTIALS_FLAG,
  INIT_KINDS,
  MAX_FILE_SIZE_FLAG,
  MAX_FILE_SIZE_HELP,
  parseHosts,
  parseMaxFileSize,
  type BuildFlags,
  type InitKind,
  type ServeFlags,
  type ValidateFlags,
} from './flags.js';
import { failure, processIo, type Io } from './io.js';
import { progressLine, report } from './report.js';

export { BUG_STATUS, failure, type Io } from './io.js';
export { progressLine } from './report.js';

export async function run(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let status = 0;
  const program = new Command('addon-gen')
    .description('Turn a folder of YAML content files into a complete static Stremio addon.')
    .version(packageInfo().version, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run addon-gen --help for usage)');

  buildCommands(program, io, (code) => (status = code));
  otherCommands(program, io, (code) => (status = code));

  try {
    await program.parseAsync(argv, { from: 'user' });
    return status === 0 && io.outputLost?.() ? 2 : status;
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

/** build and validate: the content's checks, and the files they write. */
function buildCommands(program: Command, io: Io, done: (status: number) => void): void {
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
    .option('--no-reuse', 'build even when the content, options and output are as the last build left them, parsing every content file')
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
        reuse: options.reuse,
      }).finally(progress.clear);
      done(report(result, { ...options, out: options.out ?? project.outDir, verb: 'build' }, io));
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
      done(report(result, { ...options, verb: 'validate' }, io));
    });
}

/** serve, init, publish and schema: each loads its code when it runs, which build and validate do without. */
function otherCommands(program: Command, io: Io, done: (status: number) => void): void {
  program
    .command('serve')
    .description('build the content for the address it listens on into a private folder and serve it as a static host does')
    .argument('[contentDir]', 'folder with addon.yaml and the item files, or a project folder that holds it in content/', 'content')
    .option('-p, --port <port>', 'port to listen on (0: any free port)', '7000')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--base-url <url>', 'URL to build the addon for (default: the address it listens on)')
    .option('--dir <dir>', 'serve this already built output folder as it is, without building')
    .option(
      '--like <host>',
      `answer as this host does (${HOSTS.join(', ')}): cloudflare, netlify and vercel rewrite subtitles requests with extras; github-pages and s3 serve files only`,
      'github-pages',
    )
    .option('-w, --watch', 'rebuild when content files change; a failed rebuild keeps the last good build')
    .option('--allow-credentials-in-output', CREDENTIALS_FLAG)
    .option(MAX_FILE_SIZE_FLAG, MAX_FILE_SIZE_HELP)
    .action(async (contentDir: string, options: ServeFlags, command: Command) => {
      // With --dir the default content folder is not a request to build it.
      const contentGiven = command.args.length > 0;
      if (options.dir !== undefined && contentGiven) throw new UsageError('serve takes a content folder or --dir, not both');
      const { serve } = await import('./serve.js');
      done(await serve(options.dir !== undefined ? contentDir : (await findProject(contentDir)).contentDir, options, io));
    });

  program
    .command('init')
    .description('create a new addon project: content to edit, a .gitignore and a GitHub Pages workflow; asks nothing')
    .argument('[dir]', 'project folder (created when missing)', '.')
    .option('--id <id>', 'addon id (default: community.<folder name>)')
    .option('--name <name>', 'addon name (default: the folder name)')
    .addOption(
      new Option('--kind <kind>', 'catalog: titles of its own in catalogs; streams: streams for titles Cinemeta describes (IMDb ids)')
        .choices(INIT_KINDS)
        .default('catalog'),
    )
    .option('--schedule <cron>', 'also rebuild and publish on this schedule, e.g. "0 6 * * *" (every day at 06:00 UTC)')
    .option('--force', 'overwrite files that already exist')
    .action(async (dir: string, options: { id?: string; name?: string; kind?: InitKind; schedule?: string; force?: boolean }) => {
      const { initProject, initText } = await import('./init.js');
      io.stdout(initText(await initProject({ dir, ...options })));
    });

  program
    .command('schema')
    .description('write the JSON Schemas of addon.yaml and the item files, for editors that complete and check YAML')
    .option('-o, --out <dir>', 'folder to write them to', SCHEMA_DIR)
    .action(async (options: { out: string }) => {
      const { jsonSchemaText, writeJsonSchemas } = await import('../validate/json-schema.js');
      io.stdout(jsonSchemaText(await writeJsonSchemas(options.out), options.out));
    });

  program
    .command('publish')
    .description("announce the published addon in Stremio's community catalog (as the official SDK's publishToCentral does)")
    .argument('<manifestUrl>', 'the https:// URL of its manifest.json, where the host serves it')
    .option('--api-url <url>', 'the API to announce it to', CENTRAL_API)
    .action(async (manifestUrl: string, options: { apiUrl: string }) => {
      const { publishAddon } = await import('./publish.js');
      const { manifest } = await publishAddon(manifestUrl, { apiUrl: options.apiUrl });
      io.stdout(
        `${printable(`Published ${manifest.name} ${manifest.version} (${manifestUrl}) to ${options.apiUrl}: it appears in Stremio's community addons once listed`)}\n`,
      );
    });
}
