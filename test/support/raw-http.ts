// HTTP exactly as written, for tests that try to break a server: request targets no client
// normalizes (`..`, `\`, absolute form), bytes that are not HTTP, and a strict reader of the answers.
import { request as httpRequest, type Agent } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Default: a new connection for this request only. */
  agent?: Agent | false;
  /** Told the connection the request goes out on (a new one, or one the agent kept alive). */
  onSocket?: (socket: Socket) => void;
}

/** One request with `rawPath` as the request target, byte for byte (fetch would resolve `..`). */
export function request(base: string, rawPath: string, options: RequestOptions = {}): Promise<Reply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path: rawPath, method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    if (options.onSocket) req.on('socket', options.onSocket);
    req.on('error', reject);
    req.end();
  });
}

/**
 * Writes `bytes` on a new connection and returns everything the server sent until it closed the
 * connection (send `Connection: close`, or something it refuses). The client side stays open:
 * Node's server aborts requests still being answered when the client half-closes.
 */
export function exchange(base: string, bytes: string | Buffer, timeoutMs = 15_000): Promise<Buffer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection; it sent ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (cause) => {
      clearTimeout(timer);
      reject(cause);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  });
}

/**
 * The answers in `bytes`, in order. Strict on purpose: every answer must be framed by
 * Content-Length (or be a 1xx, 204, 304, or the answer to a HEAD, which have no body), and
 * nothing may follow the last one. `methods` are the requests' methods, in order, where they matter.
 */
export function parseReplies(bytes: Buffer, methods: string[] = []): Reply[] {
  const replies: Reply[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) throw new Error(`an answer without the end of its head: ${JSON.stringify(bytes.subarray(at).toString('latin1'))}`);
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine!);
    if (!status) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const code = Number(status[1]);
    at = end + 4;
    if (code >= 100 && code < 200) continue; // 100 Continue: the real answer follows
    const bodiless = code === 204 || code === 304 || methods[replies.length] === 'HEAD';
    if (headers['transfer-encoding'] !== undefined) throw new Error(`answer ${code} is chunked, not framed by Content-Length`);
    if (!bodiless && headers['content-length'] === undefined) throw new Error(`answer ${code} has no Content-Length`);
    const length = bodiless ? 0 : Number(headers['content-length']);
    const body = bytes.subarray(at, at + length);
    if (body.length < length) throw new Error(`answer ${code} is cut short: ${body.length} of ${length} bytes`);
    at += length;
    replies.push({ status: code, headers, body, text: body.toString('utf8') });
  }
  return replies;
}
