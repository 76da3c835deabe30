// A deliberately plain static host for tests: it behaves like GitHub Pages & co.
// (decode the path, look the file up, send it with `Access-Control-Allow-Origin: *`)
// and nothing more, so a generated addon that works here needs no server logic.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promises as fs } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface StaticServer {
  /** Base URL, ending in `/`, including the prefix: `http://127.0.0.1:PORT/repo/`. */
  url: string;
  port: number;
  /** Every request's raw URL (`req.url`, undecoded, query included), in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export interface StaticServerOptions {
  /** Serve `root` under this URL path, e.g. `/repo/` (a GitHub Pages project site). Default `/`. */
  prefix?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.vtt': 'text/vtt; charset=utf-8',
  '.srt': 'application/x-subrip',
};

function normalizePrefix(prefix: string | undefined): string {
  let p = prefix ?? '/';
  if (!p.startsWith('/')) p = `/${p}`;
  if (!p.endsWith('/')) p = `${p}/`;
  return p;
}

function send(res: ServerResponse, status: number, body: Buffer | string, contentType: string, head: boolean): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    'Access-Control-Allow-Origin': '*',
    'Content-Type': contentType,
    'Content-Length': String(buf.length),
  });
  res.end(head ? undefined : buf);
}

/** Maps a raw request path to a file under `root`, or to an HTTP status when it cannot. */
function resolvePath(root: string, prefix: string, rawPath: string): string | 400 | 404 {
  if (!rawPath.startsWith(prefix)) return 404;
  const segments: string[] = [];
  for (const raw of rawPath.slice(prefix.length).split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return 400;
    }
    if (seg.includes('\0')) return 400;
    segments.push(seg);
  }
  // A decoded `%2F` becomes a directory separator, as on hosts that decode before lookup;
  // the containment check below is what keeps `..` (encoded or not) inside root.
  const file = path.resolve(root, segments.join('/'));
  if (file !== root && !file.startsWith(root + path.sep)) return 404;
  return file;
}

export async function startStaticServer(root: string, opts: StaticServerOptions = {}): Promise<StaticServer> {
  const absRoot = path.resolve(await fs.realpath(root));
  const prefix = normalizePrefix(opts.prefix);
  const requests: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const rawUrl = req.url ?? '/';
    requests.push(rawUrl);
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      send(res, 405, 'Method Not Allowed', 'text/plain; charset=utf-8', false);
      return;
    }
    const rawPath = rawUrl.split('?', 1)[0] ?? '/';
    const resolved = resolvePath(absRoot, prefix, rawPath);
    if (resolved === 400) {
      send(res, 400, 'Bad Request', 'text/plain; charset=utf-8', head);
      return;
    }
    if (resolved === 404) {
      send(res, 404, 'Not Found', 'text/plain; charset=utf-8', head);
      return;
    }
    let file = resolved;
    try {
      let stat = await fs.stat(file);
      if (stat.isDirectory()) {
        file = path.join(file, 'index.html');
        stat = await fs.stat(file);
      }
      if (!stat.isFile()) throw new Error('not a file');
      // Symlinks must not lead outside root either.
      const real = await fs.realpath(file);
      if (!real.startsWith(absRoot + path.sep)) throw new Error('outside root');
      const body = await fs.readFile(real);
      const type = CONTENT_TYPES[path.extname(real).toLowerCase()] ?? 'application/octet-stream';
      send(res, 200, body, type, head);
    } catch {
      send(res, 404, 'Not Found', 'text/plain; charset=utf-8', head);
    }
  };

  const server = createServer((req, res) => {
    res.sendDate = false;
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'Internal Server Error', 'text/plain; charset=utf-8', false);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets from fetch would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
