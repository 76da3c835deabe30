// The pipeline in one place: load -> validate -> plan -> write. Returns values; prints nothing.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { hasErrors, UsageError, type Diagnostic } from './diagnostics.js';
import { loadContent, type SourceFile } from './load.js';
import { manifestUrl } from './paths.js';
import { hostReport, type Host, type HostReport } from './hosts.js';
import type { PageTemplates } from './page.js';
import { plan, type OutputFile } from './plan.js';
import { baseUrl as baseUrlSchema } from './schema.js';
import { streamOwners, validate, type Content } from './validate.js';
import { writeOutput, type WriteResult } from './write.js';

export interface BuildOptions {
  contentDir: string;
  /** Output folder; without it nothing is written (validate). */
  outDir?: string;
  /** Overrides `baseUrl` in addon.yaml. */
  baseUrl?: string;
  /** Hosts to write rule files for; default all. */
  hosts?: readonly Host[];
  /** Folder for the S3 files (outside the published tree); default `<outDir>-s3`. */
  s3Dir?: string;
  /** Content files larger than this many bytes are refused unread; default 16 MiB. */
  maxFileSize?: number;
}

export interface Counts {
  items: number;
  videos: number;
  streams: number;
  subtitles: number;
}

export interface BuildResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  /** The parsed content files, so that diagnostics can show their source lines. */
  sources: SourceFile[];
  content?: Content;
  files?: OutputFile[];
  counts?: Counts;
  manifestUrl?: string;
  write?: WriteResult;
  /** Files and bytes against each chosen host's limits. */
  hosts?: HostReport[];
  seconds: number;
}

/** Runs the pipeline. Throws UsageError for bad options; content problems come back as diagnostics. */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  await checkOptions(options);
  const done = (result: Omit<BuildResult, 'seconds'>): BuildResult => ({
    ...result,
    seconds: (performance.now() - started) / 1000,
  });

  const loaded = await loadContent(options.contentDir, { maxFileSize: options.maxFileSize });
  const validated = validate(loaded, { contentDir: options.contentDir, baseUrl: options.baseUrl });
  const { content } = validated;
  if (!content) return done({ ok: false, diagnostics: validated.diagnostics, sources: loaded.files });

  const s3Dir = options.outDir === undefined ? undefined : (options.s3Dir ?? `${options.outDir.replace(/[\\/]+$/, '')}-s3`);
  const planned = plan(content, {
    hosts: options.hosts,
    templates: await readTemplates(),
    generator: await generatorFingerprint(),
    outFromS3Dir: s3Dir && path.relative(s3Dir, options.outDir!).split(path.sep).join('/'),
  });
  const diagnostics = [...validated.diagnostics, ...planned.diagnostics];
  const result = {
    diagnostics,
    sources: loaded.files,
    content,
    files: planned.files,
    counts: countsOf(content),
    manifestUrl: content.baseUrl && manifestUrl(content.baseUrl),
  };
  // A build with errors writes nothing: the previous output stays exactly as it was.
  if (hasErrors(diagnostics)) return done({ ...result, ok: false });
  if (options.outDir === undefined) return done({ ...result, ok: true });
  const write = await writeOutput(options.outDir, planned.files);
  if (planned.s3Files.length > 0) await writeOutput(s3Dir!, planned.s3Files);
  const report = hostReport(options.hosts, planned.files, write);
  return done({ ...result, diagnostics: [...diagnostics, ...report.diagnostics], ok: true, write, hosts: report.hosts });
}

/** The page templates shipped in the package's templates/ folder. */
async function readTemplates(): Promise<PageTemplates> {
  const read = (name: string) => readFile(new URL(`../templates/${name}`, import.meta.url), 'utf8');
  const [install, configure, notFound, style, links] = await Promise.all(
    ['index.html', 'configure.html', '404.html', 'style.css', 'links.js'].map(read),
  );
  return { install: install!, configure: configure!, notFound: notFound!, partials: { 'style.css': style!, 'links.js': links! } };
}

/**
 * A hash of addon-gen's own code: a rebuild by another version (or a changed checkout) must
 * render every file again instead of trusting fingerprints recorded by the old code.
 */
async function generatorFingerprint(): Promise<string> {
  const dir = new URL('.', import.meta.url);
  const hash = createHash('sha1');
  for (const name of (await readdir(dir)).filter((n) => /\.[cm]?[jt]s$/.test(n)).sort()) {
    hash.update(name).update('\0').update(await readFile(new URL(name, dir))).update('\0');
  }
  return hash.digest('base64url');
}

async function checkOptions(options: BuildOptions) {
  const info = await stat(options.contentDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`content folder ${options.contentDir} does not exist or is not a folder`);
  if (options.baseUrl !== undefined && !baseUrlSchema.safeParse(options.baseUrl).success) {
    throw new UsageError(
      `--base-url ${options.baseUrl} is not an http(s) URL without query or fragment (e.g. https://user.github.io/repo/)`,
    );
  }
  if (options.outDir !== undefined) {
    const out = path.resolve(options.outDir);
    const content = path.resolve(options.contentDir);
    const overlaps = out === content || content.startsWith(out + path.sep) || out.startsWith(content + path.sep);
    if (overlaps || out === path.parse(out).root) {
      throw new UsageError(`--out ${options.outDir} overlaps the content folder ${options.contentDir}; choose a separate output folder`);
    }
  }
}

function countsOf(content: Content): Counts {
  const owners = content.items.flatMap(streamOwners);
  return {
    items: content.items.length,
    videos: content.items.reduce((n, i) => n + (i.videos?.length ?? 0), 0),
    streams: owners.reduce((n, o) => n + o.streams.length, 0),
    subtitles: owners.reduce((n, o) => n + o.subtitles.length, 0),
  };
}
