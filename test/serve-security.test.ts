// `addon-gen serve` under attack: requests that try to read outside the served tree (every encoding,
// raw bytes, absolute targets, symlinks) against a private build, a sub-path build and --dir; every
// method and malformed request answered in JSON with CORS; and 20,000 requests on 50 keep-alive
// connections against a server in its own process, whose memory must not grow.
import { fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Manifest } from '../src/validate/schema.js';
import { byteRange, route, startServer, type AddonServer } from '../src/serve/index.js';
import { addonYaml, movies, readTree, removeOutput } from './support/content.js';
import { EXAMPLE_DIR } from './support/example.js';
import { exchange, parseReplies, request, type Reply } from './support/raw-http.js';

/** The bytes that must never appear in an answer; request paths say `secret`, never this. */
const SECRET = `SECRET-${randomUUID()}`;
/** Shaped like every body, so that a route that read it would answer 200 with it, not fail. */
const SECRET_JSON = JSON.stringify({ metas: [{ id: SECRET }], meta: { id: SECRET }, streams: [{ url: SECRET }], subtitles: [{ id: SECRET }] });
const JSON_TYPE = 'application/json; charset=utf-8';
const ALLOW = 'GET, HEAD, OPTIONS';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.splice(0).map(removeOutput));
});

/** A temporary folder that lives as long as this file's tests (content.ts's go after each test). */
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-serve-security-'));
  folders.push(dir);
  return dir;
}

/**
 * Secrets beside the served folder `root`, a file and a folder holding one, and symlinks inside
 * the tree: out to them (absolute and relative, to a file and to a folder, in place of protocol
 * files) and to a file of the tree itself. None may be followed.
 */
async function plantSecrets(root: string, movieCatalog: string): Promise<void> {
  const outside = path.dirname(root);
  await writeFile(path.join(outside, 'secret.json'), SECRET_JSON);
  await mkdir(path.join(outside, 'secret'), { recursive: true });
  await writeFile(path.join(outside, 'secret', 'x.json'), SECRET_JSON);
  const links: [string, string][] = [
    [path.join(outside, 'secret.json'), 'assets/leak.json'],
    ['../../secret.json', 'assets/leak-relative.json'],
    [outside, 'assets/leakdir'],
    ['../manifest.json', 'assets/alias.json'],
    [path.join(outside, 'secret.json'), 'leak.json'],
    [path.join(outside, 'secret'), 'leakdir'],
    [path.join(outside, 'secret.json'), 'meta/movie/pd:leak.json'],
    [path.join(outside, 'secret.json'), 'stream/movie/pd:leak.json'],
    // The page after the first, which a `skip` between pages reads to fill its window.
    [path.join(outside, 'secret.json'), `catalog/movie/${movieCatalog}/skip=100.json`],
  ];
  for (const [target, at] of links) {
    await mkdir(path.dirname(path.join(root, at)), { recursive: true });
    await symlink(target, path.join(root, at));
  }
}

/** `..` in every spelling a decoder, a file system or a sloppy server might turn into `..`. */
const DOTS = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%c0%ae%c0%ae',
  '%e0%80%ae%e0%80%ae',
  '%c0%2e%c0%2e',
  '..%00',
  '%2e%2e%00',
  '%uff0e%uff0e',
  '%ef%bc%8e%ef%bc%8e',
  '...',
  '..;',
];
/** And `/` likewise. */
const SLASHES = ['/', '%2f', '%2F', '%5c', '%5C', '\\', '%252f', '%255c', '%c0%af', '%e0%80%af', '%c1%9c', '/./', '//', ';/'];
/** Where a request may start: the root, a static folder, each resource. */
const PREFIXES = [
  '',
  'assets/',
  'assets/images/',
  'meta/movie/',
  'stream/series/',
  'subtitles/movie/',
  'catalog/movie/',
  'configure/',
  'manifest.json/',
];

/** Every DOTS x SLASHES x PREFIXES climb, just high enough to reach the folder above, and higher. */
function generatedClimbs(): string[] {
  const climbs: string[] = [];
  for (const prefix of PREFIXES) {
    const depth = prefix.split('/').length; // '' is the root: one step up leaves the tree
    for (const dots of DOTS) {
      for (const slash of SLASHES) {
        climbs.push(
          `/${prefix}${`${dots}${slash}`.repeat(depth)}secret.json`,
          `/${prefix}${`${dots}${slash}`.repeat(depth + 3)}secret${slash}x.json`,
        );
      }
    }
  }
  return climbs;
}

/** Hand-written attempts; every one must get 400 or 404 JSON. */
const ATTEMPTS = [
  '/../secret.json',
  '/assets/../../secret.json',
  '/%2e%2e/secret.json',
  '/%2E%2E/secret.json',
  '/.%2e/secret.json',
  '/%2e%2e%2fsecret.json',
  '/..%2Fsecret.json',
  '/assets/..%2F..%2Fsecret.json',
  '/%252e%252e/secret.json',
  '/%252e%252e%252fsecret.json',
  '/..%5csecret.json',
  '/assets%5c..%5c..%5csecret.json',
  '/..\\secret.json',
  '/%2fsecret.json',
  '//secret.json',
  '///secret.json',
  '/secret.json%00',
  '/manifest.json%00/../../secret.json',
  '/manifest.json%00.png',
  '/%c0%ae%c0%ae/secret.json',
  '/%c0%ae%c0%ae%c0%afsecret.json',
  '/meta/movie/..%2F..%2F..%2Fsecret.json',
  '/meta/..%2F..%2F/secret.json',
  '/meta/movie/%2e%2e.json',
  '/stream/movie/%2e%2e%2f%2e%2e%2fsecret.json',
  '/stream/%2e%2e/%2e%2e.json',
  '/stream/movie/..%5c..%5csecret.json',
  '/catalog/%2e%2e/%2e%2e/secret.json',
  '/catalog/movie/..%2F..%2Fsecret/x.json',
  '/subtitles/series/..%5c..%5csecret/filename=x.json',
  '/subtitles/movie/%00.json',
  // Absolute-form targets: only the path counts, and it is checked as any other.
  'http://evil/../secret.json',
  'http://evil/%2e%2e/secret.json',
  'HTTP://EVIL/..%2fsecret.json',
  'http://evil/..\\secret.json',
  'http://127.0.0.1/assets/../../secret.json',
  'https://evil//secret.json',
  'file:///../secret.json',
  'file:///etc/passwd',
  // Paths of the machine, as if the tree were the root of the file system.
  '//etc/passwd',
  '/etc/passwd',
  '/%2fetc%2fpasswd',
  '/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
  '/proc/self/environ',
  '/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fproc%2fself%2fenviron',
  // Windows: drives, UNC paths, alternate streams and trailing dots.
  '/C:%5csecret.json',
  '/C:/secret.json',
  '/%5c%5cserver%5cshare%5csecret.json',
  '/\\\\server\\share\\secret.json',
  '/..%5c..%5c..%5cwindows%5cwin.ini',
  '/manifest.json::$DATA',
  '/../secret.json.',
  // Not targets the protocol has: `*`, relative, parameters.
  '*',
  '../secret.json',
  'secret.json',
  '/;/../secret.json',
  '/..;/secret.json',
  '/manifest.json;/../../secret.json',
  // The symlinks plantSecrets put inside the tree.
  '/assets/leak.json',
  '/assets/leak-relative.json',
  '/assets/leakdir/secret.json',
  '/assets/leakdir/secret/x.json',
  '/assets/alias.json',
  '/leak.json',
  '/leakdir/x.json',
  '/meta/movie/pd%3Aleak.json',
];

/** Requests whose files are symlinks out, or whose extras name nothing: a 404 (or 400), never the file. */
const NAMELESS: string[] = [
  '/stream/movie/pd%3Aleak.json',
  '/stream/movie/pd%3Aleak/filename=..%2F..%2Fsecret.json.json',
  '/catalog/movie/films/genre=..%2F..%2F..%2Fsecret.json',
  '/catalog/movie/films/genre=..%252F..%252Fsecret.json',
  '/catalog/movie/films/genre=%2e%2e&skip=100.json',
];

/**
 * The problem with an answer that must refuse: anything but a JSON error with CORS and one of
 * `statuses` (`/stream/movie/..%255c..json` asks for the id `..%5c..`, decoded once as the client
 * encodes once: a file the tree does not have, 404).
 */
function refusalProblem(reply: Reply, statuses: number[]): string | undefined {
  if (reply.body.includes(SECRET)) return 'the secret leaked';
  if (reply.headers['access-control-allow-origin'] !== '*') return 'no CORS header';
  if (reply.headers['content-type'] !== JSON_TYPE) return `status ${reply.status}, type ${String(reply.headers['content-type'])}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    return `not JSON: ${reply.text.slice(0, 80)}`;
  }
  if (!statuses.includes(reply.status)) return `status ${reply.status}`;
  if (Object.keys(body).join() !== 'error' || typeof body.error !== 'string') return `body ${reply.text}`;
  return undefined;
}

/** Sends each target over one kept-alive connection per worker and lists every wrong answer. */
async function attack(base: string, targets: string[]): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const target = targets[next++]!;
      const reply = await request(base, target, { agent });
      const problem = refusalProblem(reply, [400, 404]);
      if (problem) problems.push(`${target}: ${problem}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    agent.destroy();
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

describe('route never names a file outside the tree', () => {
  const pieces = [
    '/',
    '.',
    '..',
    '%2e',
    '%2E',
    '%2f',
    '%2F',
    '%5c',
    '\\',
    '%00',
    '%25',
    '%c0%ae',
    '%c0%af',
    '%',
    '%zz',
    'a',
    'x.json',
    '.json',
    'catalog',
    'meta',
    'stream',
    'subtitles',
    'movie',
    'films',
    'genre=',
    'skip=1',
    '&',
    '=',
    '?',
    '#',
    ';',
    ':',
    '%3A',
    '+',
    'http://h',
    'repo',
  ];

  it('for any target built from the pieces of traversal attempts, with and without a sub-path', () => {
    const root = path.resolve(os.tmpdir(), 'tree');
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 14 }),
        fc.constantFrom('/', '/repo/'),
        fc.boolean(),
        (parts, basePath, rewrites) => {
          const decision = route('GET', parts.join(''), { basePath, rewrites });
          const files = decision.kind === 'file' ? decision.paths : [];
          for (const file of files) {
            const segments = file.split('/');
            for (const segment of segments) {
              expect(segment === '' || segment === '.' || segment === '..' || /[\\\u0000-\u001f\u007f]/.test(segment), file).toBe(false);
            }
            expect(path.resolve(root, ...segments).startsWith(root + path.sep), file).toBe(true);
          }
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe('byteRange', () => {
  it('reads one range, a suffix or an open end; ignores several and invalid ones; 416 past the end', () => {
    expect(byteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(byteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=90-1000', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
    for (const header of [undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=9-0', 'bytes=-', 'bytes=a-b', 'bytes 0-1']) {
      expect(byteRange(header, 100), header).toBeUndefined();
    }
    for (const [header, size] of [
      ['bytes=100-', 100],
      ['bytes=-0', 100],
      ['bytes=0-', 0],
      ['bytes=-5', 0],
      ['bytes=99999999999999999999-', 100],
    ] as const) {
      expect(byteRange(header, size), `${header} of ${size}`).toBe('unsatisfiable');
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve never reads outside the served tree', () => {
  const servers: AddonServer[] = [];
  let movieCatalog: string;
  let dirServer: AddonServer;
  let buildServer: AddonServer;
  let subPathServer: AddonServer;

  beforeAll(async () => {
    const outside = await folder();
    const dist = path.join(outside, 'dist');
    const built = await build({ contentDir: EXAMPLE_DIR, outDir: dist, baseUrl: 'http://127.0.0.1:7000/' });
    expect(built.ok).toBe(true);
    const manifest = JSON.parse(await readFile(path.join(dist, 'manifest.json'), 'utf8')) as Manifest;
    movieCatalog = manifest.catalogs.find((c) => c.type === 'movie')!.id;
    await plantSecrets(dist, movieCatalog);
    dirServer = await startServer({ dir: dist, port: 0 });
    // A private build: the folder beside it is the server's own workspace.
    buildServer = await startServer({ contentDir: EXAMPLE_DIR, port: 0 });
    subPathServer = await startServer({ contentDir: EXAMPLE_DIR, port: 0, baseUrl: 'https://example.org/repo/' });
    servers.push(dirServer, buildServer, subPathServer);
    await plantSecrets(buildServer.root!, movieCatalog);
    await plantSecrets(subPathServer.root!, movieCatalog);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const modes = () =>
    [
      ['--dir', dirServer, ''],
      ['a private build', buildServer, ''],
      ['a build for a sub-path', subPathServer, '/repo'],
    ] as const;

  it('serves the tree itself (the attacks below are not refused for want of a working server)', async () => {
    for (const [mode, server, prefix] of modes()) {
      const reply = await request(server.url, `${prefix}/manifest.json`);
      expect(reply.status, mode).toBe(200);
      expect((JSON.parse(reply.text) as Manifest).id, mode).toBe('org.addongen.example');
      expect((await request(server.url, `${prefix}/assets/images/logo.png`)).status, mode).toBe(200);
    }
  });

  it('answers every generated climb out of the tree with 400 or 404 JSON, in each mode', async () => {
    const climbs = generatedClimbs();
    expect(climbs.length).toBeGreaterThan(3000);
    for (const [mode, server, prefix] of modes()) {
      const problems = await attack(
        server.url,
        climbs.map((c) => `${prefix}${c}`),
      );
      expect(problems.slice(0, 10), `${mode}: ${problems.length} wrong answers`).toEqual([]);
    }
  });

  it('answers each hand-written attempt and symlink with 400 or 404 JSON, in each mode', async () => {
    for (const [mode, server, prefix] of modes()) {
      // Under a sub-path, each attempt also as it would come through the base URL's path.
      const targets = prefix === '' ? ATTEMPTS : [...ATTEMPTS, ...ATTEMPTS.filter((t) => t.startsWith('/')).map((t) => `${prefix}${t}`)];
      const problems = await attack(server.url, targets);
      expect(problems, mode).toEqual([]);
    }
  });

  it('answers requests whose file is a symlink out, or whose extras name nothing, with a JSON 404, never the file', async () => {
    for (const [mode, server, prefix] of modes()) {
      for (const target of NAMELESS) {
        const reply = await request(server.url, `${prefix}${target}`);
        expect(reply.body.includes(SECRET), `${mode} ${target}`).toBe(false);
        expect(refusalProblem(reply, [400, 404]), `${mode} ${target}`).toBeUndefined();
      }
    }
  });

  it('refuses raw bytes no client would send: NUL, spaces, tabs, unencoded UTF-8, backslash targets', async () => {
    const lines = [
      'GET /\xc0\xae\xc0\xae/secret.json HTTP/1.1',
      'GET /\xc0\xae\xc0\xae/\xc0\xae\xc0\xae/secret.json HTTP/1.1',
      'GET /\xef\xbc\x8e\xef\xbc\x8e/secret.json HTTP/1.1',
      'GET /..\x00/secret.json HTTP/1.1',
      'GET /\x00../secret.json HTTP/1.1',
      'GET /.. /secret.json HTTP/1.1',
      'GET /..\t/secret.json HTTP/1.1',
      'GET /..\x7f/secret.json HTTP/1.1',
      'GET \\..\\secret.json HTTP/1.1',
      'GET ../secret.json HTTP/1.1',
      'GET /%2e%2e/secret.json HTTP/1.0',
      'GET /%2e%2e/secret.json HTTP/0.9',
    ];
    for (const [mode, server] of modes()) {
      for (const line of lines) {
        const replies = parseReplies(await exchange(server.url, `${line}\r\nHost: ../..\r\nConnection: close\r\n\r\n`));
        expect(replies, `${mode} ${JSON.stringify(line)}`).toHaveLength(1);
        expect(refusalProblem(replies[0]!, [400, 404]), `${mode} ${JSON.stringify(line)}`).toBeUndefined();
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve answers everything in JSON with CORS', () => {
  let server: AddonServer;
  let dist: string;
  let manifestBytes: Buffer;

  beforeAll(async () => {
    dist = path.join(await folder(), 'dist');
    expect((await build({ contentDir: EXAMPLE_DIR, outDir: dist, baseUrl: 'http://127.0.0.1:7000/' })).ok).toBe(true);
    manifestBytes = await readFile(path.join(dist, 'manifest.json'));
    server = await startServer({ dir: dist, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Sends raw request bytes on one connection and reads every answer, strictly framed. */
  const raw = async (text: string, methods: string[] = []) => parseReplies(await exchange(server.url, text), methods);
  const line = (requestLine: string, headers = '') => `${requestLine}\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`;

  it('refuses methods other than GET, HEAD and OPTIONS with 405, Allow and CORS', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE']) {
      for (const target of ['/manifest.json', '/%2e%2e/secret.json', '/nothing']) {
        const reply = await request(server.url, target, { method });
        expect(refusalProblem(reply, [405]), `${method} ${target}`).toBeUndefined();
        expect(reply.headers.allow).toBe(ALLOW);
      }
    }
    // Methods Node's parser does not know, and CONNECT, which Node would drop without an answer.
    for (const requestLine of ['FOO /manifest.json HTTP/1.1', 'get /manifest.json HTTP/1.1', 'BREW /pot HTTP/1.1', 'CONNECT 127.0.0.1:22 HTTP/1.1']) {
      const replies = await raw(line(requestLine));
      expect(replies, requestLine).toHaveLength(1);
      expect(refusalProblem(replies[0]!, [405]), requestLine).toBeUndefined();
      expect(replies[0]!.headers.allow, requestLine).toBe(ALLOW);
    }
  });

  it('answers OPTIONS with 204 and HEAD with the headers of GET, for files and errors alike', async () => {
    for (const target of ['/manifest.json', '/%2e%2e/x', '*', '/nothing']) {
      const reply = await request(server.url, target, { method: 'OPTIONS' });
      expect(reply.status, target).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe('*');
      expect(reply.headers['access-control-allow-methods']).toBe(ALLOW);
      expect(reply.body.length).toBe(0);
    }
    for (const target of ['/manifest.json', '/meta/movie/nope.json', '/%zz', '/index.html']) {
      const [get, head] = await Promise.all([request(server.url, target), request(server.url, target, { method: 'HEAD' })]);
      expect(head.status, target).toBe(get.status);
      expect(head.body.length, target).toBe(0);
      for (const header of ['content-type', 'content-length', 'access-control-allow-origin', 'cache-control']) {
        expect(head.headers[header], `${target} ${header}`).toBe(get.headers[header]);
      }
    }
  });

  it('serves the HTML pages of the tree as HTML, and answers unknown paths in JSON, not with 404.html', async () => {
    for (const [target, file] of [
      ['/', 'index.html'],
      ['/index.html', 'index.html'],
      ['/404.html', '404.html'],
    ]) {
      const reply = await request(server.url, target!);
      expect(reply.status, target).toBe(200);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.headers['access-control-allow-origin']).toBe('*');
      expect(reply.body.equals(await readFile(path.join(dist, file!))), target).toBe(true);
    }
    for (const target of ['/nothing', '/nothing.html', '/assets/', '/configure', '/_headers', '/_redirects', '/.addon-gen.json', '/.nojekyll']) {
      expect(refusalProblem(await request(server.url, target), [404]), target).toBeUndefined();
    }
  });

  it('answers 400 for malformed encoding, 414 for URLs over 8 KiB, 431 (JSON too) over Node’s 16 KiB', async () => {
    for (const target of [
      '/%',
      '/%zz',
      '/meta/movie/%E0%A4%A.json',
      '/%c0%ae.json',
      '/catalog/movie/films/genre=%ff.json',
      '/stream/movie/%uD800.json',
    ]) {
      expect(refusalProblem(await request(server.url, target), [400]), target).toBeUndefined();
    }
    for (const size of [8 * 1024 + 1, 12 * 1024, 15 * 1024]) {
      const reply = await request(server.url, `/stream/movie/${'a'.repeat(size)}.json`);
      expect(refusalProblem(reply, [414]), `${size} bytes`).toBeUndefined();
    }
    // Past Node's limit on the request line and headers (16 KiB) its parser stops reading; the
    // answer is then 431, but in JSON with CORS too.
    for (const text of [
      line(`GET /stream/movie/${'a'.repeat(20 * 1024)}.json HTTP/1.1`),
      line('GET /manifest.json HTTP/1.1', `X-Big: ${'b'.repeat(20 * 1024)}\r\n`),
    ]) {
      const replies = await raw(text);
      expect(replies).toHaveLength(1);
      expect(refusalProblem(replies[0]!, [431])).toBeUndefined();
    }
  });

  it('answers what Node would answer bare, in JSON: no Host, other expectations, bytes that are not HTTP', async () => {
    const cases: [string, number][] = [
      ['GET /manifest.json HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
      [line('GET /manifest.json HTTP/1.1', 'Expect: teapot\r\n'), 417],
      [line('GET /manifest.json HTTP/1.1', 'Bad Header\r\n'), 400],
      [line('GET /manifest.json HTTP/1.1', 'Content-Length: abc\r\n'), 400],
      [line('POST /manifest.json HTTP/1.1', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n'), 400],
      [line('GET /manifest.json HTTP/9.9'), 400],
      ['\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n', 400],
      ['\r\n\r\n\r\n\x00\x00\r\n\r\n', 400],
    ];
    for (const [text, status] of cases) {
      const replies = await raw(text);
      expect(replies, JSON.stringify(text)).toHaveLength(1);
      expect(refusalProblem(replies[0]!, [status]), JSON.stringify(text)).toBeUndefined();
    }
    // HTTP/1.0 needs no Host; `Expect: 100-continue` gets its 100, then the answer.
    for (const text of ['GET /manifest.json HTTP/1.0\r\n\r\n', line('GET /manifest.json HTTP/1.1', 'Expect: 100-continue\r\n')]) {
      const replies = await raw(text);
      expect(
        replies.map((r) => r.status),
        JSON.stringify(text),
      ).toEqual([200]);
      expect(replies[0]!.body.equals(manifestBytes)).toBe(true);
    }
  });

  it('accepts absolute-form targets by their path', async () => {
    for (const target of ['http://example.org/manifest.json', 'HTTP://127.0.0.1:1/manifest.json?x=1']) {
      const reply = await request(server.url, target);
      expect(reply.status, target).toBe(200);
      expect(reply.body.equals(manifestBytes), target).toBe(true);
    }
    expect((await request(server.url, 'http://example.org')).headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('sends one byte range, 416 in JSON past the end, and the whole file for several ranges', async () => {
    const size = manifestBytes.length;
    const cases: [string, number, Buffer][] = [
      ['bytes=0-9', 206, manifestBytes.subarray(0, 10)],
      ['bytes=-10', 206, manifestBytes.subarray(size - 10)],
      [`bytes=${size - 1}-`, 206, manifestBytes.subarray(size - 1)],
      ['bytes=0-1,5-6', 200, manifestBytes],
      ['bytes=5-1', 200, manifestBytes],
    ];
    for (const [range, status, bytes] of cases) {
      const reply = await request(server.url, '/manifest.json', { headers: { Range: range } });
      expect(reply.status, range).toBe(status);
      expect(reply.body.equals(bytes), range).toBe(true);
      expect(reply.headers['access-control-allow-origin']).toBe('*');
      if (status === 206) expect(reply.headers['content-range'], range).toMatch(new RegExp(`^bytes \\d+-\\d+/${size}$`));
    }
    const past = await request(server.url, '/manifest.json', { headers: { Range: `bytes=${size}-` } });
    expect(refusalProblem(past, [416])).toBeUndefined();
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
  });

  it('answers pipelined requests in order, a refused one after the answers before it', async () => {
    const requests = [
      ['GET', '/manifest.json'],
      ['GET', '/%2e%2e/secret.json'],
      ['POST', '/manifest.json'],
      ['HEAD', '/manifest.json'],
      ['OPTIONS', '/manifest.json'],
      ['GET', '/meta/movie/pd%3Anosferatu-1922.json'],
      ['GET', '/index.html'],
    ];
    const text = requests.map(([method, target]) => `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`).join('');
    // The parser refuses the last one while the files before it are still being read.
    const replies = await raw(
      `${text}FOO / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      requests.map(([method]) => method!),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 400, 405, 200, 204, 200, 200, 405]);
    expect(replies[0]!.body.equals(manifestBytes)).toBe(true);
    expect(JSON.parse(replies[5]!.text)).toMatchObject({ meta: { id: 'pd:nosferatu-1922' } });
    expect(replies.at(-1)!.headers.connection).toBe('close');
    for (const reply of replies) expect(reply.headers['access-control-allow-origin']).toBe('*');
  });
});

// ---------------------------------------------------------------------------------------------

describe('serve while the tree changes under it', () => {
  /**
   * A process that swaps `folder` for a symlink to `outside` and back as fast as it can, until
   * killed or `ms` have passed: four renames a round, so that the folder is now the real one, now
   * missing, now the symlink.
   */
  function swapper(folder: string, outside: string, ms: number) {
    const script = `
      const { renameSync, symlinkSync } = require('node:fs');
      const [folder, outside, ms] = process.argv.slice(1);
      const [aside, link] = [folder + '.real', folder + '.link'];
      symlinkSync(outside, link);
      const end = Date.now() + Number(ms);
      while (Date.now() < end) {
        renameSync(folder, aside);
        renameSync(link, folder);
        renameSync(folder, link);
        renameSync(aside, folder);
      }
    `;
    const child = spawn(process.execPath, ['-e', script, folder, outside, String(ms)], { stdio: 'inherit' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return {
      kill: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill();
        await exited;
      },
    };
  }

  // The check that a file is inside the tree and its open are two steps: a folder of the tree
  // swapped for a symlink out between them must not lead the open outside.
  it.skipIf(process.platform === 'win32')(
    'never answers with a file outside while a folder of the tree is swapped for a symlink out',
    async () => {
      const MAX_REQUESTS = 30_000;
      const MAX_MS = 20_000;
      const root = await folder();
      const content = path.join(root, 'content');
      await mkdir(content);
      await writeFile(path.join(content, 'addon.yaml'), addonYaml('catalogs:\n  - { id: films, type: movie, name: Films }\n'));
      await writeFile(path.join(content, 'movies.yaml'), movies(150));
      const dist = path.join(root, 'dist');
      expect((await build({ contentDir: content, outDir: dist, hosts: [] })).ok).toBe(true);
      const pages = path.join(dist, 'catalog', 'movie', 'films');
      const inside = await readFile(path.join(pages, 'skip=100.json'));
      // The outside folder looks like the page folder, with the secret where the pages are.
      const outside = path.join(root, 'outside');
      await mkdir(outside);
      await writeFile(path.join(outside, 'skip=100.json'), SECRET_JSON);
      await writeFile(path.join(outside, 'skip=200.json'), SECRET_JSON);

      const server = await startServer({ dir: dist, port: 0 });
      const swap = swapper(pages, outside, MAX_MS + 10_000);
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      const seen = { inside: 0, refused: 0, leaked: 0, other: [] as string[] };
      try {
        const targets = ['/catalog/movie/films/skip=100.json'];
        const started = Date.now();
        let sent = 0;
        const worker = async () => {
          while (sent < MAX_REQUESTS && Date.now() - started < MAX_MS) {
            const target = targets[sent++ % targets.length]!;
            const reply = await request(server.url, target, { agent });
            if (reply.body.includes(SECRET)) seen.leaked++;
            else if (reply.status === 404 && refusalProblem(reply, [404]) === undefined) seen.refused++;
            else if (reply.status === 200 && reply.body.equals(inside)) seen.inside++;
            else seen.other.push(`${target}: ${reply.status} ${reply.text.slice(0, 100)}`);
          }
        };
        await Promise.all(Array.from({ length: 16 }, worker));
      } finally {
        agent.destroy();
        await swap.kill();
        await server.close();
      }
      const summary = JSON.stringify({ ...seen, other: seen.other.length });
      expect(seen.leaked, summary).toBe(0);
      // The race was run: the folder was seen in both states, the real one and the symlink out.
      expect(seen.inside, summary).toBeGreaterThan(100);
      expect(seen.refused, summary).toBeGreaterThan(100);
      expect(seen.other.slice(0, 5), summary).toEqual([]);
    },
    60_000,
  );
});

describe('serve under load', () => {
  const CHILD = fileURLToPath(new URL('./support/serve-child.mjs', import.meta.url));
  const TOTAL = 20_000;
  const CONNECTIONS = 50;

  /** The URL of a file of the tree, encoded as the client encodes it (extras pair by pair). */
  function urlOf(file: string): string {
    const segments = file.split('/');
    const extras = segments[0] === 'catalog' && segments.length === 4;
    return `/${segments
      .map((segment, index) => {
        if (!(extras && index === 3)) return encodeURIComponent(segment);
        const pairs = segment.slice(0, -'.json'.length).split('&');
        const encoded = pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)].map(encodeURIComponent).join('='));
        return `${encoded.join('&')}.json`;
      })
      .join('/')}`;
  }

  interface Case {
    method: string;
    target: string;
    /** The problem with a reply, if any. */
    check: (reply: Reply) => string | undefined;
  }

  /** Every answer: CORS, never the secret, and JSON wherever the type says JSON. */
  function generalProblem(c: Case, reply: Reply): string | undefined {
    if (reply.body.includes(SECRET)) return 'the secret leaked';
    if (reply.headers['access-control-allow-origin'] !== '*') return 'no CORS header';
    if (c.method === 'HEAD' || reply.status === 204) return reply.body.length === 0 ? undefined : 'a body where none belongs';
    if (reply.headers['content-type'] === JSON_TYPE) {
      try {
        JSON.parse(reply.text);
      } catch {
        return `not JSON: ${reply.text.slice(0, 80)}`;
      }
    } else if (reply.status !== 200) return `a ${reply.status} that is not JSON`;
    return undefined;
  }

  /** Files of the tree (each method), missing content, malicious targets: deterministic, shuffled. */
  function cases(tree: Map<string, Buffer>, catalog: string): Case[] {
    const all: Case[] = [];
    for (const [file, bytes] of tree) {
      if (file.startsWith('.') || file === '_headers' || file === '_redirects') continue;
      all.push({
        method: 'GET',
        target: urlOf(file),
        check: (r) => (r.status !== 200 ? `status ${r.status}` : r.body.equals(bytes) ? undefined : 'other bytes than the file'),
      });
      all.push({
        method: 'HEAD',
        target: urlOf(file),
        check: (r) => (r.status === 200 && r.headers['content-length'] === String(bytes.length) ? undefined : `HEAD ${r.status}`),
      });
    }
    const status = (expected: number) => (r: Reply) => (r.status === expected ? undefined : `status ${r.status}, not ${expected}`);
    const missing: Case[] = [
      { method: 'GET', target: '/meta/movie/pd%3Anope.json', check: status(404) },
      { method: 'GET', target: '/catalog/movie/nope.json', check: status(404) },
      { method: 'GET', target: '/nothing-here.json', check: status(404) },
      { method: 'GET', target: '/stream/movie/pd%3Anope.json', check: status(404) },
      { method: 'GET', target: '/subtitles/movie/pd%3Anope/filename=a.mkv&videoSize=1.json', check: status(404) },
      { method: 'GET', target: `/catalog/movie/${catalog}/skip=100000.json`, check: status(404) },
      { method: 'GET', target: `/catalog/movie/${catalog}/skip=3&x=1.json`, check: status(404) },
      { method: 'GET', target: `/catalog/movie/${catalog}/genre=Nope.json`, check: status(404) },
      { method: 'OPTIONS', target: '/manifest.json', check: status(204) },
      { method: 'POST', target: '/manifest.json', check: status(405) },
      { method: 'DELETE', target: '/meta/movie/pd%3Anope.json', check: status(405) },
      { method: 'GET', target: '/%zz', check: status(400) },
      { method: 'GET', target: `/stream/movie/${'a'.repeat(9000)}.json`, check: status(414) },
    ];
    const malicious = [...generatedClimbs().filter((_, i) => i % 15 === 0), ...ATTEMPTS.filter((t) => !/leak/.test(t))].map((target): Case => ({
      method: 'GET',
      target,
      check: (r) => refusalProblem(r, [400, 404]),
    }));
    // Valid requests twice over, then the rest, shuffled with a fixed seed (mulberry32).
    const mixed = [...all, ...all, ...missing, ...malicious];
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    for (let i = mixed.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [mixed[i], mixed[j]] = [mixed[j]!, mixed[i]!];
    }
    return mixed;
  }

  interface ChildMessage {
    kind: string;
    url?: string;
    root?: string;
    usage?: NodeJS.MemoryUsage;
    count?: number;
    sockets?: number;
    closedByCollector?: number;
  }

  /** serve-child.mjs in its own process: what it sends, asked for by kind. */
  async function serveChild(options: Record<string, unknown>) {
    if (!existsSync(fileURLToPath(new URL('../lib/serve/index.js', import.meta.url))))
      throw new Error('lib/ is not built: run npx tsc -p tsconfig.build.json');
    const child = fork(CHILD, [JSON.stringify(options)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const messages: ChildMessage[] = [];
    const waiting: (() => void)[] = [];
    const wake = () => waiting.splice(0).forEach((w) => w());
    child.on('message', (m: ChildMessage) => {
      messages.push(m);
      wake();
    });
    child.on('exit', wake);
    const next = async (kind: string): Promise<ChildMessage> => {
      for (;;) {
        const index = messages.findIndex((m) => m.kind === kind);
        if (index !== -1) return messages.splice(index, 1)[0]!;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the server process exited (${child.exitCode ?? child.signalCode})`);
        await new Promise<void>((w) => waiting.push(w));
      }
    };
    const { url, root } = await next('ready');
    return {
      url: url!,
      root: root!,
      ask: (kind: 'memory' | 'files') => {
        child.send(kind);
        return next(kind);
      },
      async close() {
        if (child.connected) child.send('close');
        if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
      },
    };
  }

  it(`answers ${TOTAL} requests on ${CONNECTIONS} keep-alive connections, all JSON with CORS, and keeps its memory`, async () => {
    const child = await serveChild({ contentDir: EXAMPLE_DIR });
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      // The secret beside the private build, where a climb out of it would land.
      await writeFile(path.join(path.dirname(child.root), 'secret.json'), SECRET_JSON);
      const manifest = JSON.parse(await readFile(path.join(child.root, 'manifest.json'), 'utf8')) as Manifest;
      const all = cases(await readTree(child.root), manifest.catalogs.find((c) => c.type === 'movie')!.id);

      const sockets = new Set<Socket>();
      const problems: string[] = [];
      const errors: string[] = [];
      let closed = 0;
      let sent = 0;
      const run = async (count: number) => {
        const until = sent + count;
        const worker = async () => {
          while (sent < until) {
            const c = all[sent++ % all.length]!;
            try {
              const reply = await request(child.url, c.target, { method: c.method, agent, onSocket: (s) => sockets.add(s) });
              if (reply.headers.connection === 'close') closed++;
              const problem = generalProblem(c, reply) ?? c.check(reply);
              if (problem) problems.push(`${c.method} ${c.target.slice(0, 100)}: ${problem}`);
            } catch (cause) {
              errors.push(`${c.method} ${c.target.slice(0, 100)}: ${(cause as Error).message}`);
            }
          }
        };
        await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      };

      // Warm-up: the same mix on the same connections, so that compiled code, buffers, the
      // connections themselves and the files serve keeps in memory are there before the first
      // measure. It keeps no file written in the last second (src/serve/tree-files.ts).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await run(4_000);
      const before = (await child.ask('memory')).usage!;
      const filesBefore = await child.ask('files');
      await run(TOTAL / 2);
      const middle = (await child.ask('memory')).usage!;
      await run(TOTAL / 2);
      const after = (await child.ask('memory')).usage!;
      const filesAfter = await child.ask('files');

      expect(errors.slice(0, 10), `${errors.length} connection errors`).toEqual([]);
      expect(problems.slice(0, 10), `${problems.length} wrong answers`).toEqual([]);
      expect(sent).toBe(TOTAL + 4_000);
      // Kept alive: new connections only where the server closed one (targets its parser refuses).
      expect(sockets.size).toBeLessThanOrEqual(CONNECTIONS + closed);
      expect(closed).toBeLessThan(sent / 20);
      const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
      const report = `heap ${mib(before.heapUsed)} -> ${mib(middle.heapUsed)} -> ${mib(after.heapUsed)}, rss ${mib(before.rss)} -> ${mib(middle.rss)} -> ${mib(after.rss)}`;
      expect(after.heapUsed, report).toBeLessThanOrEqual(before.heapUsed * 1.2);
      // The process may take more memory once under this load (V8's young generation grows with
      // the rate of allocation; the allocator keeps arenas for 50 connections), then holds it: what
      // leaks per request would grow it in the second half of the requests as in the first (a
      // kilobyte each: 10 MiB).
      expect(after.rss, report).toBeLessThanOrEqual(before.rss * 1.5);
      expect(after.rss - middle.rss, report).toBeLessThanOrEqual(4 * 2 ** 20);
      // No file left open; sockets are the 50 connections and the server's own, but the first
      // measure may fall while a connection the server closed (a target its parser refuses) is
      // not yet replaced by the client: one more socket after is not a leak.
      expect(filesAfter.count! - filesAfter.sockets!).toBeLessThanOrEqual(filesBefore.count! - filesBefore.sockets!);
      expect(filesAfter.sockets!).toBeLessThanOrEqual(filesBefore.sockets! + 1);
      expect(filesAfter.closedByCollector).toBe(0);
    } finally {
      agent.destroy();
      await child.close();
    }
  }, 120_000);

  it.runIf(process.platform === 'linux')('closes the files of answers still queued on a connection the client dropped', async () => {
    const child = await serveChild({ contentDir: EXAMPLE_DIR });
    try {
      const before = (await child.ask('files')).count!;
      const files = ['/manifest.json', '/index.html', '/assets/images/logo.png', '/catalog/movie/films.json'];
      const pipelined = Array.from({ length: 12 }, (_, i) => `GET ${files[i % files.length]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join('');
      // Each connection asks for twelve files at once and hangs up: the answers queued behind the
      // first one never go out, and nothing may keep their files open.
      await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<void>((resolve, reject) => {
              const socket = connect(Number(new URL(child.url).port), '127.0.0.1', () => socket.end(pipelined));
              socket.on('error', reject);
              socket.on('close', () => resolve());
              socket.resume();
            }),
        ),
      );
      // Closed by the server itself: the count comes back down, and a full collection afterwards
      // finds no forgotten FileHandle to close (a leak hidden by a collection in between shows there).
      let now = (await child.ask('files')).count!;
      for (let tries = 0; now > before && tries < 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        now = (await child.ask('files')).count!;
      }
      expect(now).toBeLessThanOrEqual(before);
      await child.ask('memory');
      expect((await child.ask('files')).closedByCollector).toBe(0);
    } finally {
      await child.close();
    }
  });
});
