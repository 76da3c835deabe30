// Build-time HTTP(S) reads, shared by the addon collections (addon-manifests.ts) and URL
// playlists (playlist-settings.ts): one deadline for a request and its redirects, each redirect
// checked (redirectProblem), a cap on the body's size, and failures as values in words.
import { errorCode, systemErrorReason } from '../diagnostics/index.js';
import { packageInfo } from '../shared/package.js';
import { isLoopback } from '../shared/paths.js';

/** Why a URL could not be read; the callers turn it into their own diagnostic. */
export type FetchFailure =
  | { kind: 'status'; url: string; status: number }
  | { kind: 'timeout'; url: string; seconds: number }
  | { kind: 'network'; url: string; reason: string }
  | { kind: 'too-large'; url: string; limit: number };

export interface FetchTextOptions {
  /** The request and its redirects; default 10 s. */
  timeoutMs?: number;
  /** A body larger than this is refused, unread past it. */
  maxBytes: number;
  /** What the request is for, in the User-Agent: `addon-gen/<version> (<purpose>)`. */
  purpose: string;
  accept: string;
  /** The URL as failures show it (without credentials); default `url`. */
  shown?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** The body of `url` as text (a UTF-8 byte order mark dropped), or why it could not be read. */
export async function fetchText(given: string, options: FetchTextOptions): Promise<{ text: string } | { failure: FetchFailure }> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const url = options.shown ?? given;
  const failed = (failure: FetchFailure) => ({ failure });
  // fetch refuses a URL with `user:password@`: they are sent as Basic authorization instead, to
  // that origin only (not to another that it redirects to), and never shown.
  const target = new URL(given);
  let authorization: string | undefined;
  if (target.username !== '' || target.password !== '') {
    const userinfo = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    authorization = `Basic ${Buffer.from(userinfo).toString('base64')}`;
    target.username = target.password = '';
  }
  const origin = target.origin;
  // One deadline for the request and its redirects, which are followed here, each checked.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let current = target.href;
    for (let hops = 0; ; hops++) {
      const sameOrigin = new URL(current).origin === origin;
      const response = await fetch(current, {
        redirect: 'manual',
        signal,
        headers: {
          'User-Agent': `addon-gen/${packageInfo().version} (${options.purpose})`,
          Accept: options.accept,
          ...(authorization !== undefined && sameOrigin && { Authorization: authorization }),
        },
      });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        const next = URL.canParse(location, current) ? new URL(location, current) : undefined;
        const refused =
          next === undefined
            ? 'it redirects to an invalid URL'
            : hops >= MAX_REDIRECTS
              ? 'it redirects too many times'
              : redirectProblem(target.href, next);
        if (refused !== undefined) return failed({ kind: 'network', url, reason: refused });
        current = next!.href;
        continue;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return failed({ kind: 'status', url, status: response.status });
      }
      const text = await bodyText(response, options.maxBytes);
      if (text === undefined) return failed({ kind: 'too-large', url, limit: options.maxBytes });
      if (text === NOT_UTF8) return failed({ kind: 'network', url, reason: 'it is not UTF-8 text (serve it, or save it, as UTF-8)' });
      return { text: text.replace(/^\uFEFF/, '') };
    }
  } catch (error) {
    if (isTimeout(error)) return failed({ kind: 'timeout', url, seconds: timeoutMs / 1000 });
    return failed({ kind: 'network', url, reason: networkReason(error) });
  }
}

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

const NOT_UTF8 = Symbol('not UTF-8');

/**
 * The body as text, or undefined once it is over `maxBytes` (the rest is not read), or NOT_UTF8:
 * bytes that are not UTF-8 are refused, not read as U+FFFD.
 */
async function bodyText(response: Response, maxBytes: number): Promise<string | typeof NOT_UTF8 | undefined> {
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
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    return NOT_UTF8;
  }
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
