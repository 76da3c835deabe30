// Part of the pipeline (build/index.ts): what a build compares with the last complete build into
// the same output folder, and the last build's result when nothing changed since. Two looks, the
// cheaper first: the content files' stamps against those recorded (nothing read), then, once the
// files are read, their texts' hash against the recorded one (last-build.ts has the record).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Diagnostic } from '../diagnostics/index.js';
import { contentFileStamps, contentTexts, settledStamps, type Loaded, type SourceFile } from '../load/index.js';
import { dependencyVersions, PAGE_TEMPLATES, templateUrl } from '../shared/package.js';
import { TESTED_ON } from '../hosts/index.js';
import type { Environment } from '../validate/secrets.js';
import { intactOutput } from '../write/index.js';
import type { BuildOptions, BuildResult } from './index.js';
import { inputsHash, localDiagnostics, recordHolds, recordHoldsUnread, settingsHash, type BuildRecord } from './last-build.js';

/** The folders a build writes, as checkOptions found them, and the output folder as seen from the S3 folder. */
export interface OutputFolders {
  outDir: string;
  s3Dir?: string;
  outFromS3Dir?: string;
}

export type LastBuild = Omit<BuildResult, 'seconds' | 'stages' | 'sources'>;

/**
 * What a build that writes compares with the last one, and fingerprints its files with: the
 * generator, the hash of all inputs, and of those besides the content files (`settings`).
 * `validate` writes nothing and reads neither (its `inputs` stays ''): without them its plan
 * stage takes markedly less (bench/README.md).
 */
export async function buildInputs(options: BuildOptions, loaded: Loaded): Promise<{ generator?: string; inputs: string; settings?: string }> {
  if (options.outDir === undefined) return { inputs: '' };
  const generator = generatorFingerprint();
  const settings = settingsOf(options);
  return { generator, inputs: inputsHash({ generator, options: settings, loaded }), settings: settingsHash(generator, settings) };
}

/**
 * The last build's result (`last`) when every content file has the stamp it had then, and every
 * other input is as it was: found without reading a content file. `inputsHeld` when the inputs
 * were found the same, whether or not its output is all there: reading the files would find the same.
 */
export async function lastBuildUnread(
  options: BuildOptions,
  folders: OutputFolders,
  env: Environment,
): Promise<{ last?: LastBuild; inputsHeld: boolean }> {
  const settings = settingsHash(generatorFingerprint(), settingsOf(options));
  const stamps = () => contentFileStamps(options.contentDir);
  // Read only to look for a guarded value in them: a variable whose name looks secret is set.
  const texts = () => contentTexts(options.contentDir, options.maxFileSize);
  let inputsHeld = false;
  const last = await lastBuild(options, folders, async (record) => {
    const held = await recordHoldsUnread(record, settings, stamps, texts, options.contentDir, env, options.baseUrl);
    inputsHeld = held !== undefined;
    return held;
  });
  return { ...(last && { last }), inputsHeld };
}

/** The last build's result when the files just read, and every other input, are as it found them. */
export function lastBuildRead(
  options: BuildOptions,
  folders: OutputFolders,
  env: Environment,
  loaded: Loaded,
  inputs: string,
): Promise<LastBuild | undefined> {
  const texts = () => Promise.resolve(loaded.files.map((file) => file.text));
  return lastBuild(options, folders, (record) => recordHolds(record, inputs, options.contentDir, texts, env, options.baseUrl));
}

/**
 * What the record keeps of the content files for a later build to skip reading them: their stamps,
 * only when every file was read without a problem (each is reported by reading the files again).
 */
export function recordedSources(
  settings: string | undefined,
  files: readonly SourceFile[],
  readProblems: readonly Diagnostic[],
): BuildRecord['sources'] {
  if (readProblems.length > 0 || settings === undefined) return undefined;
  const stamps = settledStamps(files);
  return stamps && { settings, stamps };
}

/** The options that change the output or the problems found. */
export function settingsOf(options: BuildOptions): Record<string, unknown> {
  return {
    baseUrl: options.baseUrl ?? null,
    hosts: options.hosts ?? null,
    maxFileSize: options.maxFileSize ?? null,
    allowCredentialsInOutput: options.allowCredentialsInOutput ?? false,
  };
}

/**
 * Whether the S3 folder (none: true) holds every file the last build wrote there, for this output
 * folder, and for `inputs` when given (an edit, which leaves it as it is, asks for its files only).
 */
export async function s3FolderIntact({ s3Dir, outFromS3Dir }: Omit<OutputFolders, 'outDir'>, inputs?: string): Promise<boolean> {
  if (s3Dir === undefined) return true;
  const holds = (s3: unknown) =>
    typeof s3 === 'object' &&
    s3 !== null &&
    'inputs' in s3 &&
    (inputs === undefined || s3.inputs === inputs) &&
    // A record written without outFromS3Dir (undefined) matches a build without one.
    ('outFromS3Dir' in s3 ? s3.outFromS3Dir === outFromS3Dir : outFromS3Dir === undefined)
      ? true
      : undefined;
  return (await intactOutput(s3Dir, holds)) === true;
}

/**
 * The last build's result, when `holds` says its record holds and every file it wrote into the
 * output folder (and the S3 folder) is still there: then this build would write nothing.
 */
async function lastBuild(
  options: BuildOptions,
  { outDir, s3Dir, outFromS3Dir }: OutputFolders,
  holds: (record: unknown) => Promise<BuildRecord | undefined>,
): Promise<LastBuild | undefined> {
  const record = await intactOutput(outDir, holds);
  if (!record) return undefined;
  if (!(await s3FolderIntact({ s3Dir, outFromS3Dir }, record.inputs))) return undefined;
  const byResource = Object.fromEntries(Object.entries(record.write.byResource).map(([resource, r]) => [resource, { ...r, written: 0 }]));
  return {
    ok: true,
    reused: true,
    diagnostics: localDiagnostics(record.diagnostics, options.contentDir),
    addon: record.addon,
    counts: record.counts,
    manifestUrl: record.manifestUrl,
    write: { ...record.write, byResource, written: 0, unchanged: record.write.files, removed: 0, foreign: [], removedManifests: [] },
    // What the tests cover is this version's knowledge, not the recording one's.
    hosts: record.hosts.map((report) => ({ ...report, tested: TESTED_ON[report.host] })),
  };
}

/**
 * A hash of addon-gen's own code and page templates, its dependencies' versions and Node's: a
 * rebuild by other code (or a changed checkout) must render every file again instead of
 * trusting what the old code recorded.
 */
export function generatorFingerprint(): string {
  // The code that runs is the code loaded: it does not change while the process lives.
  return (generator ??= hashGenerator());
}

let generator: string | undefined;

function hashGenerator(): string {
  // The folder of the stage folders (src/ or lib/), every file of code below it; declarations
  // (.d.ts) say nothing the code does not. Synchronous: a few hundred local files, read before
  // anything else can start.
  const dir = new URL('..', import.meta.url);
  const hash = createHash('sha1');
  const code = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((n) => /\.[cm]?[jt]s$/.test(n) && !/\.d\.[cm]?ts$/.test(n))
    .sort();
  for (const [name, url] of [...code.map((n) => [n, new URL(n, dir)] as const), ...PAGE_TEMPLATES.map((n) => [n, templateUrl(n)] as const)]) {
    hash.update(name).update('\0').update(readFileSync(url)).update('\0');
  }
  // The parsers and zod make what a build keeps for the next (build/kept-store.ts), and Node's V8
  // serializes it: another version of either is other code too.
  for (const dependency of dependencyVersions()) hash.update(dependency).update('\0');
  hash.update(process.version);
  return hash.digest('base64url');
}
