// `addon-gen publish`: announces a published addon in Stremio's community catalog, as the official
// SDK's publishToCentral does (POST {api}/api/addonPublish with the manifest URL). The manifest is
// fetched and checked first, so that a typo in the URL fails here rather than in the catalog.
import type { z } from 'zod';
import { CENTRAL_API } from './flags.js';
import { UsageError } from '../diagnostics/index.js';
import { installsOverPlainHttp, isLoopback } from '../shared/paths.js';
import { ListedManifest } from '../validate/schema.js';

/**
 * What the client requires of any manifest (src/types/addon/manifest.rs), as an addon collection
 * checks the addons it lists: addon-gen's own are stricter, but an addon made otherwise may be
 * announced too.
 */
type AnyManifest = z.infer<typeof ListedManifest>;

export interface PublishOptions {
  /** Another API base URL (a stand-in in tests); default CENTRAL_API. */
  apiUrl?: string;
  /** Milliseconds for each request; default 30 s. */
  timeoutMs?: number;
}

export interface Published {
  manifest: AnyManifest;
  /** What the API answered in `result`. */
  result: unknown;
}

/** Every way publishing fails: the message names the URL and what was wrong with it. */
export class PublishError extends UsageError {
  override name = 'PublishError';
}

export async function publishAddon(manifestUrl: string, options: PublishOptions = {}): Promise<Published> {
  const url = parseUrl(manifestUrl, 'the manifest URL');
  if (!url.pathname.endsWith('/manifest.json')) {
    throw new PublishError(`${manifestUrl} does not end in /manifest.json: give the URL that installs the addon`);
  }
  // Not printed back: the catalog would publish them to everyone.
  if (url.username !== '' || url.password !== '')
    throw new PublishError('the manifest URL holds a user name or password, which the catalog would publish');
  if (url.hash !== '') throw new PublishError(`${manifestUrl} has a fragment (#…): the catalog would list the addon under that URL`);
  const api = parseUrl(options.apiUrl ?? CENTRAL_API, '--api-url');
  // This machine's address is nobody else's: plain http from 127.0.0.1 only to an API on this
  // machine too (a stand-in), never to the real catalog.
  if (url.protocol !== 'https:' && !(installsOverPlainHttp(url.hostname) && isLoopback(api.hostname))) {
    throw new PublishError(`${manifestUrl} is not https: Stremio installs remote addons only over HTTPS`);
  }
  const timeout = options.timeoutMs ?? 30_000;
  const manifest = await fetchManifest(url, timeout);
  const endpoint = new URL('api/addonPublish', api.href.endsWith('/') ? api : `${api.href}/`);
  const answer = await request(endpoint, timeout, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ transportUrl: url.href, transportName: 'http' }),
  });
  const body = await answer.json().catch(() => undefined);
  const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  if (!answer.ok || error !== undefined || typeof body !== 'object' || body === null || !('result' in body)) {
    const reason = error === undefined ? `status ${answer.status}` : typeof error === 'string' ? error : JSON.stringify(error);
    throw new PublishError(`${endpoint.href} refused ${url.href}: ${reason}`);
  }
  return { manifest, result: body.result };
}

async function fetchManifest(url: URL, timeout: number): Promise<AnyManifest> {
  const answer = await request(url, timeout, {});
  if (answer.status !== 200) throw new PublishError(`${url.href} answered ${answer.status}: publish the addon there first`);
  const text = await answer.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PublishError(
      `${url.href} did not answer JSON (${answer.headers.get('content-type') ?? 'no Content-Type'}): publish the addon there first`,
    );
  }
  const parsed = ListedManifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    throw new PublishError(`${url.href} is not an addon manifest the client accepts: ${field}${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

async function request(url: URL, timeout: number, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeout) });
  } catch (cause) {
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
    throw new PublishError(`${url.href} could not be reached: ${reason}`);
  }
}

function parseUrl(value: string, what: string): URL {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new PublishError(`${what} ${value} is not an http(s) URL`);
  return new URL(value);
}
