// The HTTP side of `addon-gen serve`: the answers route() decides, sent with the files of the
// served tree (tree-files.ts). Node's own bare answers are replaced by JSON with CORS.
import { closeSync, createReadStream } from 'node:fs';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { printable, UsageError } from '../diagnostics/index.js';
import { headersFor, JSON_CONTENT_TYPE, type HeaderRule } from '../hosts/index.js';
import { MANIFEST_FILE } from '../shared/paths.js';
import { Manifest } from '../validate/schema.js';
import { ALLOWED_METHODS, byteRange, contentType, route, searchRequest, type RouteError } from './route.js';
import type { SearchRequest } from '../plan/index.js';
import { isWithin } from '../shared/locations.js';
import { FileCache, KEPT_FILE_BYTES, openInside, readInside, readPart, type OpenedFile } from './tree-files.js';

/**
 * One served tree: swapped as a whole, so a request never mixes two builds, but for the `early`
 * answers of the build under way: the edited items' own meta, stream and subtitles files, and the
 * catalog pages that list them.
 */
export interface Tree {
  root: string;
  manifest: Manifest;
  rules: HeaderRule[];
  /** Whether the host it answers as rewrites subtitles requests with extras (see RouteOptions). */
  rewrites: boolean;
  /**
   * Answers a catalog search that no file answers, for any query, from the content it was built
   * from (plan/search-answers.ts); absent for a tree served as it is (`--dir`).
   */
  search?: (request: SearchRequest) => string | undefined;
  /**
   * Files of the build under way, answered before its tree is swapped in: those of the items an
   * edit touched and the catalog pages it changed (plan/early-answers.ts), by path below the root.
   */
  early?: ReadonlyMap<string, Buffer | null>;
}

/**
 * The server, answering each request from what `current` gives when it arrives: the tree served
 * now (undefined while no build has succeeded) and the path of the base URL.
 */
export function createAddonServer(current: () => { tree: Tree | undefined; basePath: string }): Server {
  // Answers under way on each connection: a refusal on it goes out after them, so that a client
  // that pipelines requests reads every answer, in order.
  const underway = new WeakMap<Duplex, Set<ServerResponse>>();
  // Node answers some requests itself, bare: without a body or CORS headers. requireHostHeader off,
  // and the listeners below, hand those to us, so that every answer is JSON with CORS.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    let answers = underway.get(req.socket);
    if (!answers) underway.set(req.socket, (answers = new Set()));
    answers.add(res);
    res.once('close', () => answers.delete(res));
    const { tree, basePath } = current();
    handle(req, res, tree, basePath).catch((cause: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: `could not answer: ${cause instanceof Error ? cause.message : String(cause)}` });
    });
  });
  // `Expect: 100-continue` Node handles; any other expectation it would refuse with an empty 417.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    sendJson(res, 417, { error: 'only the expectation "100-continue" is understood' });
  });
  // Without a listener Node drops a CONNECT without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    refuse(socket, underway.get(socket), {
      status: 405,
      message: `CONNECT is not allowed here; use ${ALLOWED_METHODS}`,
      headers: { Allow: ALLOWED_METHODS },
    });
  });
  // The parser reports its error again for each later chunk on the connection; it is answered once.
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (cause: Error, socket: Duplex) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    const refusal = refusalOf(cause);
    if (refusal && socket.writable) refuse(socket, underway.get(socket), refusal);
    else socket.destroy();
  });
  return server;
}

/** The `code` Node puts on its errors (`EADDRINUSE`, `HPE_HEADER_OVERFLOW`), if there is one. */
export function errorCode(cause: Error): string | undefined {
  return 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
}

/** The files each tree's answers keep: a rebuild's new tree starts with none of the old one's. */
const keptFiles = new WeakMap<Tree, FileCache>();

function keptFilesOf(tree: Tree): FileCache {
  let cache = keptFiles.get(tree);
  if (!cache) keptFiles.set(tree, (cache = new FileCache()));
  return cache;
}

async function handle(req: IncomingMessage, res: ServerResponse, tree: Tree | undefined, basePath: string): Promise<void> {
  const method = req.method ?? 'GET';
  // RFC 9112 (3.2) asks for this 400; Node's own (requireHostHeader) would have no body.
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    return sendJson(res, 400, { error: 'an HTTP/1.1 request needs a Host header' });
  }
  if (!tree) {
    if (method === 'OPTIONS') return preflight(res);
    return sendJson(res, 503, { error: 'the content has errors and nothing was built yet; fix them and save' });
  }
  // A configurable addon's root manifest declares its options (plan/index.ts), whatever hosts it was built for.
  const configured = tree.manifest.config !== undefined;
  const decision = route(method, req.url ?? '/', { basePath, rewrites: tree.rewrites, configured });
  switch (decision.kind) {
    case 'preflight':
      return preflight(res);
    case 'error':
      // A query with `/` or `\\` is no file name (a 400 for files), but still a query to answer.
      if (decision.status === 400 && searchAnswered(req, res, tree, basePath, configured)) return;
      return refuseWith(res, decision);
    case 'file': {
      const cache = keptFilesOf(tree);
      for (const file of decision.paths) {
        const absolute = path.resolve(tree.root, ...file.split('/'));
        if (!isWithin(tree.root, absolute)) continue;
        const headers = headersFor(tree.rules, `/${file}`);
        const early = tree.early?.get(file);
        if (early) return sendFile(req, res, { bytes: early }, file, headers);
        // A file the running rebuild removes: missing, as it will be.
        if (early === null) continue;
        const kept = cache.get(absolute);
        if (kept) return sendFile(req, res, { bytes: kept }, file, headers);
        const opened = openInside(tree.root, absolute);
        if (!opened) continue;
        try {
          // A small file is read whole, and kept for the next request for it.
          const bytes = opened.size <= KEPT_FILE_BYTES ? readPart(opened.fd, 0, opened.size - 1) : undefined;
          if (bytes) cache.set(absolute, bytes, opened.info);
          return await sendFile(req, res, bytes ? { bytes } : opened, file, headers);
        } finally {
          closeSync(opened.fd);
        }
      }
      if (searchAnswered(req, res, tree, basePath, configured)) return;
      return refuseWith(res, decision.ifMissing);
    }
  }
}

function refuseWith(res: ServerResponse, refusal: RouteError): void {
  return sendJson(res, refusal.status, { error: refusal.message }, refusal.status === 405 ? { Allow: ALLOWED_METHODS } : {});
}

/** Every response carries these, whatever the rules say: the web client fetches across origins. */
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*' };

function preflight(res: ServerResponse): void {
  res.writeHead(204, { ...CORS, 'Access-Control-Allow-Methods': ALLOWED_METHODS, Allow: ALLOWED_METHODS });
  res.end();
}

/**
 * A JSON answer. Errors are not cached (`no-store`): a client that honoured the path's max-age
 * would keep showing the error after the content is fixed.
 */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...CORS,
    ...(status >= 400 && { 'Cache-Control': 'no-store' }),
    ...headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * Sends one file of the tree, read whole or open (openInside; the caller closes it), with the
 * rules' headers.
 */
async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: { bytes: Buffer } | OpenedFile,
  name: string,
  headers: Record<string, string>,
): Promise<void> {
  const size = 'bytes' in file ? file.bytes.length : file.size;
  const range = byteRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    return sendJson(res, 416, { error: `the range is outside the file's ${size} bytes` }, { 'Content-Range': `bytes */${size}` });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  res.writeHead(range ? 206 : 200, {
    ...CORS,
    ...headers,
    // The extension's type wins over the rules'; for .json it is the same value.
    'Content-Type': contentType(name),
    'Content-Length': String(end - start + 1),
    'Accept-Ranges': 'bytes',
    ...(range && { 'Content-Range': `bytes ${start}-${end}/${size}` }),
  });
  if (req.method === 'HEAD' || end < start) return void res.end();
  if ('bytes' in file) return void res.end(range ? file.bytes.subarray(start, end + 1) : file.bytes);
  // The request closes when its connection does, also while this answer waits behind others
  // (pipelining): then `res` never finishes and the read must stop, or the file stays open.
  const gone = new AbortController();
  const abort = () => gone.abort();
  req.once('close', abort);
  if (req.destroyed) abort(); // closed while the file was being opened
  try {
    // A read error or a client gone mid-way rejects; the server's handler then drops the connection.
    await pipeline(createReadStream('', { fd: file.fd, start, end, autoClose: false }), res, { signal: gone.signal });
  } finally {
    req.off('close', abort);
  }
}

/**
 * Answers a catalog search that no file answers from the tree's content, when it has one (not
 * with `--dir`) and the request is one (route.ts, searchRequest); false when it did not answer.
 */
function searchAnswered(req: IncomingMessage, res: ServerResponse, tree: Tree, basePath: string, configured: boolean): boolean {
  const request = tree.search ? searchRequest(req.url ?? '/', basePath, configured) : undefined;
  const answer = request && tree.search?.(request);
  if (request === undefined || answer === undefined) return false;
  const folder = request.folder === '' ? '' : `/${request.folder}`;
  sendSearchAnswer(req, res, answer, headersFor(tree.rules, `${folder}/catalog/${request.type}/${request.id}/search.json`));
  return true;
}

/**
 * A page of search results that no file holds, with the headers the path's file would have. It
 * says so in a header of its own: a static host answers only the queries it has files for.
 */
function sendSearchAnswer(req: IncomingMessage, res: ServerResponse, text: string, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...CORS,
    ...headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(text)),
    [SEARCH_ANSWER_HEADER]: 'computed; a static host has no file for this query',
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** Marks a search answer serve computed (sendSearchAnswer). */
export const SEARCH_ANSWER_HEADER = 'X-Addon-Gen-Search';

/** An answer on a bare connection; `bodiless` for a HEAD request. */
interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
  bodiless?: boolean;
}

/**
 * What to answer a request Node's parser refused (it never reaches route()), by the parser's
 * error code; undefined when the client is gone and there is no one to answer.
 */
function refusalOf(cause: Error): Refusal | undefined {
  // Node's parser errors carry the bytes it gave up on.
  const rawPacket = 'rawPacket' in cause && Buffer.isBuffer(cause.rawPacket) ? cause.rawPacket : undefined;
  const start = rawPacket?.toString('latin1', 0, 64) ?? '';
  const code = errorCode(cause);
  // The request line is often read before the parser gives up (on the target, a header); the
  // answer to a HEAD has no body, whatever its status.
  const bodiless = start.startsWith('HEAD ');
  switch (code) {
    case 'ECONNRESET':
    case 'HPE_CLOSED_CONNECTION':
      return undefined;
    // Over Node's limit for the request line and headers together, so a URL over MAX_URL_BYTES
    // but under this limit gets route()'s 414, and a longer one this 431.
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `the request line and headers are over ${maxHeaderSize} bytes`, bodiless };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time', bodiless };
    case 'HPE_INVALID_METHOD':
      // A method the parser does not know (`FOO /x HTTP/1.1`) is still a method; bytes that are
      // not HTTP at all (a TLS handshake) are not.
      return /^[!#$%&'*+.^_`|~\w-]+ /.test(start)
        ? { status: 405, message: `that method is not allowed here; use ${ALLOWED_METHODS}`, headers: { Allow: ALLOWED_METHODS } }
        : { status: 400, message: 'not an HTTP request' };
    default:
      return { status: 400, message: `malformed HTTP request (${code ?? cause.message})`, bodiless };
  }
}

/**
 * A JSON error on a bare connection (for a CONNECT, or a request the parser refused: neither has a
 * response object), then the end of it. Sent once the answers `underway` on it are out.
 */
function refuse(socket: Duplex, underway: Set<ServerResponse> | undefined, refusal: Refusal): void {
  if (underway && underway.size > 0) {
    const sent = [...underway].map((res) => new Promise((resolve) => res.once('close', resolve)));
    void Promise.all(sent).then(() => refuse(socket, undefined, refusal));
    return;
  }
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: refusal.message });
  const head = {
    ...CORS,
    'Cache-Control': 'no-store',
    ...refusal.headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(head).map(([key, value]) => `${key}: ${value}\r\n`);
  const text = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${lines.join('')}\r\n${refusal.bodiless ? '' : body}`;
  // Closed once the answer is out, as Node's own handler does, rather than left half-open.
  socket.end(text, () => socket.destroy());
}

/** The manifest of the tree at `root`, and its text. */
export async function readManifest(root: string, what: string): Promise<{ manifest: Manifest; text: string }> {
  const text = readInside(root, MANIFEST_FILE);
  if (text === undefined) throw new UsageError(`${what} has no ${MANIFEST_FILE}; build the addon first`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${path.join(what, MANIFEST_FILE)} is not JSON`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The field names and values quoted come from the tree, and a usage error may span lines.
    const problem = printable(`${issue.path.join('.') || 'the object'}: ${issue.message}`);
    throw new UsageError(`${path.join(what, MANIFEST_FILE)} is not an addon manifest: ${problem}`);
  }
  return { manifest: parsed.data, text };
}
