// Part of the pipeline (build/index.ts): a rebuild whose inputs are all those of the last complete
// build, found without parsing anything. Reading and hashing the content files costs a fraction
// of parsing, checking and planning them; when the output folder still holds every file, the
// build can end there, with the last build's problems and summary. Anything else (an edited
// file, a changed variable, a touched local file, a missing output file) takes the full path.
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { mapDiagnosticFiles, type Diagnostic } from '../diagnostics/index.js';
import type { HostReport } from '../hosts/index.js';
import type { ContentStamps, Loaded } from '../load/index.js';
import { sha1, textFingerprint } from '../shared/fingerprint.js';
import { expandText, secretPolicy, secretsIn, type Environment } from '../validate/secrets.js';
import type { Content } from '../shared/content.js';
import type { WriteResult } from '../write/index.js';
import type { Counts } from './index.js';
import { isCount, isListOf, isObject, isString, isStringPair } from '../shared/fields.js';

/** What a build records about itself in the output folder's bookkeeping. Public: no secret. */
export interface BuildRecord {
  version: 1;
  /** Hash of the generator, the options and every content file's path and text. */
  inputs: string;
  /** The variables `${NAME}` replaced, with a hash of each value (the values are published anyway). */
  variables: [name: string, hash: string][];
  /** `secrets:` and `publish:` of addon.yaml: which variables are guarded. */
  secrets: string[];
  publish: string[];
  /**
   * The local files copied into the output, with a hash of their bytes; paths relative to the
   * content folder (and `real` to its real path): the record holds no path of this machine.
   */
  assets: { source: string; real: string; hash: string }[];
  /**
   * How many manifests addon collections read over the network: they may change at any time, so
   * a record with any holds for no later build, which reads them again.
   */
  fetched?: number;
  /**
   * What checking and writing reported, files relative to the content folder. Not what loading
   * reported (a build reads the files again anyway), nor the foreign files (reported once).
   */
  diagnostics: Diagnostic[];
  addon: { name: string; version: string };
  counts: Counts;
  manifestUrl?: string;
  /** What is in the output folder; how much of it a build wrote is no part of the record. */
  write: Pick<WriteResult, 'files' | 'bytes' | 'largest' | 'largestFiles'> & { byResource: Record<string, { files: number; bytes: number }> };
  hosts: HostReport[];
  /**
   * The stamps of the content files read, and a hash of the other inputs (settingsHash): a
   * rebuild that finds them all the same knows the inputs without reading the files. Absent when
   * a file could not be trusted by its stamp (load/index.ts, settledStamps), was read from a URL,
   * or could not be read (build/reuse.ts, recordedSources).
   */
  sources?: { settings: string; stamps: ContentStamps };
}

/** The inputs a build's record is good for. */
export interface BuildInputs {
  generator: string;
  /** Every option that changes the output or the problems found. */
  options: Record<string, unknown>;
  loaded: Loaded;
}

export function inputsHash({ generator, options, loaded }: BuildInputs): string {
  return filesHash(
    settingsHash(generator, options),
    loaded.files.map((file) => [file.relative, textFingerprint(file)]),
  );
}

/** The inputs hash of content files (path relative to the content folder, text fingerprint) with these other inputs (settingsHash). */
export function filesHash(settings: string, files: Iterable<readonly [relative: string, fingerprint: string]>): string {
  const hash = createHash('sha1');
  hash.update(settings);
  for (const [relative, fingerprint] of files) hash.update(`\0${relative}\0${fingerprint}`);
  return hash.digest('base64url');
}

/** A hash of the inputs besides the content files: the generator and the options. */
export function settingsHash(generator: string, options: BuildInputs['options']): string {
  return sha1(JSON.stringify(['addon-gen build record 1', generator, options]));
}

/**
 * The record, when it holds for a build whose content files all have the stamps they had when
 * it was made, and whose other inputs have the hash `settings`: no content file is parsed, nor
 * read unless a guarded value must be looked for in them (`texts`). Not when the record shows a
 * line of a file under a problem: that needs the file as loaded.
 */
export async function recordHoldsUnread(
  record: unknown,
  settings: string,
  stamps: () => Promise<ContentStamps | undefined>,
  texts: () => Promise<readonly string[] | undefined>,
  contentDir: string,
  env: Environment,
  baseUrl?: string,
): Promise<BuildRecord | undefined> {
  if (!isRecord(record) || record.sources?.settings !== settings) return undefined;
  const located = (d: Diagnostic) => d.line !== undefined || (d.related ?? []).some((r) => r.line !== undefined);
  if (record.diagnostics.some(located)) return undefined;
  const now = await stamps();
  const then = record.sources.stamps;
  if (!now || now.length !== then.length || now.some(([file, stamp], i) => then[i]![0] !== file || then[i]![1] !== stamp)) return undefined;
  return recordHolds(record, record.inputs, contentDir, texts, env, baseUrl);
}

/**
 * The part of a build's record known before it writes: its inputs. The rest (`diagnostics`,
 * `write`, `hosts`) comes from writing.
 */
export async function recordInputs(
  inputs: string,
  contentDir: string,
  content: Content,
  summary: { counts: BuildRecord['counts']; manifestUrl?: string },
  sources: BuildRecord['sources'],
): Promise<Omit<BuildRecord, 'diagnostics' | 'write' | 'hosts'>> {
  const realRoot = await realpath(contentDir);
  // The manifest files of addon collections are read like copied local files: they count the same.
  const listed = content.addonCatalogs.flatMap((collection) => collection.addons);
  const manifestFiles = [...new Set(listed.flatMap((addon) => (addon.file ? [addon.file.absolute] : [])))];
  const assets = await Promise.all(
    [...content.assets.map((asset) => asset.source), ...manifestFiles].map(async (source) => ({
      source: portable(path.relative(contentDir, source)),
      real: portable(path.relative(realRoot, await realpath(source))),
      hash: sha1(await readFile(source)),
    })),
  );
  const fetched = listed.filter((addon) => !addon.file).length;
  return {
    version: 1,
    inputs,
    variables: Object.entries(content.variables).map(([name, value]) => [name, sha1(value)]),
    secrets: content.addon.secrets ?? [],
    publish: content.addon.publish ?? [],
    assets,
    ...(fetched > 0 && { fetched }),
    addon: { name: content.addon.name, version: content.addon.version },
    counts: summary.counts,
    ...(summary.manifestUrl !== undefined && { manifestUrl: summary.manifestUrl }),
    ...(sources && { sources }),
  };
}

/**
 * `record`, when it holds for a build with these inputs: the same content and options, the same
 * values for the variables it used, the same local files, and no guarded value anywhere that
 * the full checks would look (validate/): the environment may have changed since. `texts` gives
 * the content files' texts, asked for only when a value is guarded (undefined: they could not be
 * read as the build reads them, and the record does not hold).
 */
export async function recordHolds(
  record: unknown,
  inputs: string,
  contentDir: string,
  texts: () => Promise<readonly string[] | undefined>,
  env: Environment,
  baseUrl?: string,
): Promise<BuildRecord | undefined> {
  if (!isRecord(record) || record.inputs !== inputs || (record.fetched ?? 0) > 0) return undefined;
  if (!record.variables.every(([name, hash]) => env[name] !== undefined && sha1(env[name]) === hash)) return undefined;
  const policy = secretPolicy(env, record.secrets, record.publish);
  // The test of validate, which reads escapes and percent-encoding too (secretsIn); on whole
  // files, which hold every key and value, and on the variables the last build used, which an
  // escaped reference (`"\x24{CDN}"`) puts in a value without a `${` in the file's text.
  const holdsSecret = (text: string) => secretsIn(text, policy).length > 0;
  if (baseUrl !== undefined && holdsSecret(baseUrl)) return undefined;
  if (policy.values.size > 0) {
    if (record.variables.some(([name]) => holdsSecret(env[name] ?? ''))) return undefined;
    const read = await texts();
    if (!read || read.some((text) => holdsSecret(expandText(text, env)))) return undefined;
  }
  // Local files are published byte for byte, and validate looks for the values as they are.
  const guarded = [...policy.values.keys()];
  const realRoot = await realpath(contentDir);
  for (const asset of record.assets) {
    const source = path.join(contentDir, asset.source);
    const real = await realpath(source).catch(() => undefined);
    // A named pipe put in its place would block the read for good: anything but a file is a change.
    if (!(await stat(source).catch(() => undefined))?.isFile()) return undefined;
    const bytes = await readFile(source).catch(() => undefined);
    if (real !== path.join(realRoot, asset.real) || !bytes || sha1(bytes) !== asset.hash || guarded.some((secret) => bytes.includes(secret)))
      return undefined;
  }
  return record;
}

/** Diagnostics to keep in a record: files relative to the content folder. */
export function portableDiagnostics(diagnostics: readonly Diagnostic[], contentDir: string): Diagnostic[] {
  return diagnostics.map((d) => mapDiagnosticFiles(d, (file) => (isUrl(file) ? file : portable(path.relative(contentDir, file)))));
}

/** Diagnostics from a record, for a build of the content in `contentDir`. */
export function localDiagnostics(diagnostics: readonly Diagnostic[], contentDir: string): Diagnostic[] {
  return diagnostics.map((d) => mapDiagnosticFiles(d, (file) => (isUrl(file) ? file : path.join(contentDir, file))));
}

/** A playlist read from a URL is named by it (load/playlist-settings.ts): no path to make relative. */
function isUrl(file: string): boolean {
  return /^https?:\/\//i.test(file);
}

/** Forward slashes, as in output paths: a record means the same on every system. */
function portable(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** Whether `value` has the shape a record must have to be read at all; what it says is checked where it is used. */
export function isRecord(value: unknown): value is BuildRecord {
  if (!isObject(value) || value.version !== 1 || !isString(value.inputs)) return false;
  const lists = [value.variables, value.secrets, value.publish, value.assets, value.diagnostics, value.hosts];
  const { write, sources } = value;
  return (
    lists.every(Array.isArray) &&
    // What an edit reads of the largest files (edit-record.ts, outputAfter).
    isObject(write) &&
    isObject(write.largestFiles) &&
    isListOf(write.largestFiles.files, isLargestFile) &&
    isCount(write.largestFiles.below) &&
    (sources === undefined || (isObject(sources) && isString(sources.settings) && isListOf(sources.stamps, isStringPair)))
  );
}

/** An entry of the record's largest files: its path, bytes and place in the plan's order (see LargestFiles). */
function isLargestFile(value: unknown): value is [string, number, number] {
  return Array.isArray(value) && value.length === 3 && isString(value[0]) && isCount(value[1]) && Number.isSafeInteger(value[2]);
}
