// The manifests of the addons that addon collections list, read at build time: from a local file
// (`manifest:`) or over HTTP(S). The one side effect of a build beyond the content folder, kept at
// the edge: build/index.ts calls it after validate and before plan. Each manifest is checked with
// what the client needs of it (ListedManifest) and reduced to the preview a collection publishes.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, formatPath, problem, systemErrorReason, type Diagnostic } from '../diagnostics/index.js';
import { fetchText } from './fetch.js';
import type { AddonCatalog, Content, ListedAddon } from '../shared/content.js';
import { isWithin } from '../shared/locations.js';
import { isAbsoluteUrl, ListedManifest, type ManifestPreview } from '../validate/schema.js';
import { secretPolicy, secretsIn, type Environment } from '../validate/secrets.js';

export interface ReadManifestsOptions {
  /** Local manifest files must lie inside this folder. */
  contentDir: string;
  /** The variables of the build: a guarded one's value must not be published (validate/secrets.ts). */
  env?: Environment;
  /** Per request, redirects included; default 10 s. */
  timeoutMs?: number;
  /** A manifest larger than this is refused; default 512 KiB (the official SDK's limit is 8 KB). */
  maxBytes?: number;
  /** Requests at once; default 4. */
  concurrency?: number;
}

/** The preview of one manifest, or the problem that stopped it (located at the entry by the caller). */
type Outcome = { manifest: ManifestPreview } | { problem: (entry: ListedAddon) => Diagnostic };

/**
 * `content` with the manifest of every addon its collections list, checked like the rest of the
 * content (their values may hold no guarded variable's value); or the problems that prevent it.
 */
export async function withAddonManifests(content: Content, options: ReadManifestsOptions): Promise<{ content: Content; diagnostics: Diagnostic[] }> {
  if (content.addonCatalogs.length === 0) return { content, diagnostics: [] };
  const read = await readAddonManifests(content.addonCatalogs, options);
  const policy = secretPolicy(options.env ?? process.env, content.addon.secrets ?? [], content.addon.publish ?? []);
  if (policy.values.size > 0) {
    for (const entry of read.addonCatalogs.flatMap((collection) => collection.addons)) {
      const [found] = entry.manifest ? secretsIn(JSON.stringify(entry.manifest), policy) : [];
      if (!found) continue;
      const params = { kind: 'value', name: found.name, what: `the manifest of ${entry.transportUrl}`, encoded: found.encoded } as const;
      read.diagnostics.push(problem('secret-in-output', params, at(entry, entry.file !== undefined)));
    }
  }
  return { content: { ...content, addonCatalogs: read.addonCatalogs }, diagnostics: read.diagnostics };
}

/**
 * The collections with each listed addon's `manifest` set, or the problems that prevent it.
 * An addon listed in several collections is read once.
 */
export async function readAddonManifests(
  collections: readonly AddonCatalog[],
  options: ReadManifestsOptions,
): Promise<{ addonCatalogs: AddonCatalog[]; diagnostics: Diagnostic[] }> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 512 * 1024;
  const reads = new Map<string, () => Promise<Outcome>>();
  const keyOf = (entry: ListedAddon) => (entry.file ? `file\0${entry.file.absolute}\0${entry.transportUrl}` : `url\0${entry.transportUrl}`);
  for (const entry of collections.flatMap((c) => c.addons)) {
    const key = keyOf(entry);
    if (reads.has(key)) continue;
    reads.set(key, () =>
      entry.file
        ? fromFile(entry.transportUrl, entry.file.absolute, entry.file.written, options.contentDir, maxBytes)
        : fromUrl(entry.transportUrl, timeoutMs, maxBytes),
    );
  }
  const outcomes = await inParallel([...reads], options.concurrency ?? 4);
  const diagnostics: Diagnostic[] = [];
  const addonCatalogs = collections.map((collection) => ({
    ...collection,
    addons: collection.addons.map((entry): ListedAddon => {
      const outcome = outcomes.get(keyOf(entry))!;
      if ('problem' in outcome) {
        diagnostics.push(outcome.problem(entry));
        return entry;
      }
      return { ...entry, manifest: outcome.manifest };
    }),
  }));
  return { addonCatalogs, diagnostics };
}

/** Runs the reads, at most `limit` at once; the outcomes by key. */
async function inParallel(reads: [string, () => Promise<Outcome>][], limit: number): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  let next = 0;
  const worker = async () => {
    while (next < reads.length) {
      const [key, read] = reads[next++]!;
      outcomes.set(key, await read());
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, reads.length) }, worker));
  return outcomes;
}

export { redirectProblem } from './fetch.js';

const at = (entry: ListedAddon, file: boolean) => {
  const place = file && entry.file ? entry.file.at : entry.at;
  return { file: place.file, line: place.line, column: place.column, path: place.path };
};

async function fromUrl(url: string, timeoutMs: number, maxBytes: number): Promise<Outcome> {
  const read = await fetchText(url, { timeoutMs, maxBytes, purpose: 'addon collections', accept: 'application/json' });
  if ('failure' in read) return { problem: unreadableProblem(read.failure) };
  return checked(url, read.text);
}

async function fromFile(url: string, absolute: string, written: string, contentDir: string, maxBytes: number): Promise<Outcome> {
  const unreadable = (reason: string): Outcome => ({
    problem: (entry) => problem('addon-unreadable', { kind: 'file', file: written, reason }, at(entry, true)),
  });
  const root = path.resolve(contentDir);
  if (path.isAbsolute(written) || !isWithin(root, absolute)) return unreadable('it is outside the content folder');
  try {
    // What is read is where links lead: that must be inside too.
    if (!isWithin(await realpath(root), await realpath(absolute))) return unreadable('a symbolic link leads outside the content folder');
    const info = await stat(absolute);
    if (!info.isFile()) return unreadable('it is not a file');
    if (info.size > maxBytes) return unreadable(`it is over ${maxBytes / 1024} KiB, far more than a manifest`);
    return checked(url, await readFile(absolute, 'utf8'), written);
  } catch (error) {
    const code = errorCode(error);
    return unreadable(code === 'ENOENT' ? 'there is no such file' : `${systemErrorReason(code)}${code ? ` (${code})` : ''}`);
  }
}

/** The text of a manifest, parsed and checked: its preview, or the first problem. */
function checked(url: string, text: string, file?: string): Outcome {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { problem: unreadableProblem({ kind: 'not-json', url, reason, ...(file !== undefined && { file }) }, file !== undefined) };
  }
  const parsed = ListedManifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = formatPath(issue.path.filter((k): k is string | number => typeof k !== 'symbol')) || 'the manifest';
    const found = issue.code === 'invalid_type' && issue.input === undefined ? 'is missing' : `is wrong: ${issue.message}`;
    const params = { kind: 'field', url, field, problem: found, ...(file !== undefined && { file }) } as const;
    return { problem: (entry) => problem('invalid-addon-manifest', params, at(entry, file !== undefined)) };
  }
  const published = preview(parsed.data);
  // Bounded, as the official SDK bounds a whole manifest: an addon.yaml line that lists an addon
  // in one more collection must not be able to publish much more than the line itself.
  const bytes = Buffer.byteLength(JSON.stringify(published));
  if (bytes > PREVIEW_LIMIT_BYTES) {
    const params = { kind: 'preview-too-large', url, bytes, limit: PREVIEW_LIMIT_BYTES } as const;
    return { problem: (entry) => problem('invalid-addon-manifest', params, at(entry, file !== undefined)) };
  }
  return { manifest: published };
}

/** The most a listed addon's entry in a collection file may take: the official SDK's limit of a whole manifest. */
export const PREVIEW_LIMIT_BYTES = 8 * 1024;

function unreadableProblem(params: Parameters<typeof problem<'addon-unreadable'>>[1], inFile = false) {
  return (entry: ListedAddon) => problem('addon-unreadable', params, at(entry, inFile));
}

/**
 * What a collection publishes of another addon: the client's ManifestPreview with `resources`
 * (see ManifestPreview in validate/protocol-schema.ts), and nothing else of a third party's manifest. A logo or background that is not an absolute URL is left out, as the
 * client leaves it out; the behaviorHints only as the booleans it reads.
 */
function preview(manifest: ListedManifest): ManifestPreview {
  const url = (value: unknown) => (typeof value === 'string' && isAbsoluteUrl(value) ? value : undefined);
  const hints = manifest.behaviorHints;
  const behaviorHints = hints && {
    ...(hints.adult !== undefined && { adult: hints.adult }),
    ...(hints.p2p !== undefined && { p2p: hints.p2p }),
    ...(hints.configurable !== undefined && { configurable: hints.configurable }),
    ...(hints.configurationRequired !== undefined && { configurationRequired: hints.configurationRequired }),
  };
  const description = manifest.description ?? undefined;
  const [logo, background] = [url(manifest.logo), url(manifest.background)];
  // Absent rather than undefined: the collection's file is compared byte for byte.
  return {
    id: manifest.id,
    version: manifest.version,
    name: manifest.name,
    ...(description !== undefined && { description }),
    ...(logo !== undefined && { logo }),
    ...(background !== undefined && { background }),
    types: manifest.types,
    resources: manifest.resources.map((r) =>
      typeof r === 'string'
        ? r
        : { name: r.name, ...(r.types != null && { types: r.types }), ...(r.idPrefixes != null && { idPrefixes: r.idPrefixes }) },
    ),
    ...(behaviorHints && Object.keys(behaviorHints).length > 0 && { behaviorHints }),
  };
}
