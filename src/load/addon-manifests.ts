// The manifests of the addons that addon collections list, read at build time: from a local file
// (`manifest:`) or over HTTP(S). The one side effect of a build beyond the content folder, kept at
// the edge: build/index.ts calls it after validate and before plan. Each manifest is checked with
// what the client needs of it (ListedManifest) and reduced to the preview a collection publishes.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, formatPath, problem, systemErrorReason, type Diagnostic } from '../diagnostics/index.js';
import type { AddonCatalog, Content, ListedAddon } from '../shared/content.js';
import { isWithin } from '../shared/locations.js';
import { packageInfo } from '../shared/package.js';
import { isLoopback } from '../shared/paths.js';
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

const at = (entry: ListedAddon, file: boolean) => {
  const place = file && entry.file ? entry.file.at : entry.at;
  return { file: place.file, line: place.line, column: place.column, path: place.path };
};

async function fromUrl(url: string, timeoutMs: number, maxBytes: number): Promise<Outcome> {
  const unreadable = (params: Parameters<typeof unreadableProblem>[0]): Outcome => ({ problem: unreadableProblem(params) });
  // One deadline for the request and its redirects, which are followed here, each checked.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let current = url;
    for (let hops = 0; ; hops++) {
      const response = await fetch(current, {
        redirect: 'manual',
        signal,
        headers: { 'User-Agent': `addon-gen/${packageInfo().version} (addon collections)`, Accept: 'application/json' },
      });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        const next = URL.canParse(location, current) ? new URL(location, current) : undefined;
        const refused =
          next === undefined ? 'it redirects to an invalid URL' : hops >= MAX_REDIRECTS ? 'it redirects too many times' : redirectProblem(url, next);
        if (refused !== undefined) return unreadable({ kind: 'network', url, reason: refused });
        current = next!.href;
        continue;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return unreadable({ kind: 'status', url, status: response.status });
      }
      const text = await bodyText(response, maxBytes);
      if (text === undefined) return unreadable({ kind: 'too-large', url, limit: maxBytes });
      return checked(url, text);
    }
  } catch (error) {
    if (isTimeout(error)) return unreadable({ kind: 'timeout', url, seconds: timeoutMs / 1000 });
    return unreadable({ kind: 'network', url, reason: networkReason(error) });
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * Why a redirect of `from` to `to` is not followed: content is not trusted, and a listed URL must
 * not lead the build machine to plain http elsewhere, or from another machine to this one's own
 * services or its network's. Redirects to https are followed; to loopback http only from loopback.
 */
export function redirectProblem(from: string, to: URL): string | undefined {
  const fromHere = isLoopback(new URL(from).hostname);
  if (!fromHere && isPrivateHost(to.hostname)) return `it redirects to ${to.href}, an address of this machine or its network, which is not followed`;
  if (to.protocol === 'https:') return undefined;
  if (to.protocol === 'http:' && isLoopback(to.hostname) && fromHere) return undefined;
  return `it redirects to ${to.protocol === 'http:' ? 'plain http' : to.protocol} (${to.href}), which is not followed`;
}

/**
 * A host name that is this machine or an address of a private network, as written (names are
 * not resolved): loopback, 10/8, 172.16/12, 192.168/16, link-local 169.254/16, and IPv6's
 * unique-local fc00::/7 and link-local fe80::/10.
 */
function isPrivateHost(hostname: string): boolean {
  if (isLoopback(hostname) || /^\[(::|::1|f[cd][0-9a-f]{0,2}:.*|fe[89ab][0-9a-f]?:.*)\]$/i.test(hostname)) return true;
  const octets = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(hostname);
  if (!octets) return false;
  const [a, b] = [Number(octets[1]), Number(octets[2])];
  return a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** The body as text, or undefined once it is over `maxBytes` (the rest is not read). */
async function bodyText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
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

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || (error.cause instanceof Error && error.cause.name === 'TimeoutError'));
}

/** Why a request failed, in words: fetch's own message is only "fetch failed". */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = errorCode(cause) || errorCode(error);
  if (code === 'ECONNREFUSED') return 'the connection was refused (nothing listens there)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name was not found';
  if (code === 'ECONNRESET') return 'the server closed the connection';
  if (code) return `${systemErrorReason(code)} (${code})`;
  const message = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return message === 'fetch failed' ? 'the request failed' : message;
}
