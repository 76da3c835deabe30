// Requests a second of `addon-gen serve` against the official SDK's own server (stremio-addon-sdk
// 1.6.10 `serveHTTP`, which answers from memory) on the same addon: five live-TV channels from an
// M3U playlist, built by addon-gen, and the SDK's handlers giving back the very answers of the
// built tree (sdk-addon.cjs). Three servers, each in a process of its own: `serve <content>`,
// `serve --dir <built tree>` and the SDK. For each of the catalog, a meta and a stream, each server
// in turn takes 50 keep-alive connections for 8 s (autocannon), in two rounds whose order of
// servers differs; the ratio is of the means. Same machine, same run: the load generator shares
// the two cores with the server, as it did for the figures in the issue.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'addon-gen.js');
const SDK_ADDON = path.join(ROOT, 'bench', 'sdk-addon.cjs');

const CONNECTIONS = 50;
const SECONDS = 8;
const SERVERS = ['serve', 'serve --dir', 'SDK serveHTTP'] as const;
type ServerName = (typeof SERVERS)[number];

/** The requests measured: what the client asks of a live-TV addon, in the order it asks. */
const PATHS = {
  catalog: '/catalog/tv/channels.json',
  meta: '/meta/tv/iptv:nasa-tv.json',
  stream: '/stream/tv/iptv:nasa-tv.json',
} as const;
type PathName = keyof typeof PATHS;

export interface ServeRow {
  server: ServerName;
  path: PathName;
  round: number;
  requestsPerSecond: number;
  p99Ms: number;
}

export interface ServeReport {
  rows: ServeRow[];
  /** Requests a second of each server over the SDK's, per path, means of the rounds. */
  ratios: Record<string, Record<PathName, number>>;
}

const PLAYLIST = `#EXTM3U
#EXTINF:-1 tvg-id="nasa-tv" tvg-logo="https://example.org/nasa.png" group-title="Science",NASA TV
https://example.org/nasa/master.m3u8
#EXTINF:-1 tvg-id="dw-english" tvg-logo="https://example.org/dw.png" group-title="News",DW English
https://example.org/dw/index.m3u8
#EXTINF:-1 tvg-id="france-24" tvg-logo="https://example.org/f24.png" group-title="News",France 24
https://example.org/f24/index.m3u8
#EXTINF:-1 tvg-id="bloomberg" group-title="News",Bloomberg
https://example.org/bloomberg/index.m3u8
#EXTINF:-1 tvg-id="red-bull-tv" group-title="Sports",Red Bull TV
https://example.org/redbull/index.m3u8
`;

const ADDON = `id: org.addongen.bench.tv
version: 1.0.0
name: Bench TV
description: Five live channels, for the serve benchmark.
catalogs:
  - { id: channels, type: tv, name: Channels, genres: auto }
playlists:
  - { file: channels.m3u, catalog: channels }
`;

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `node args` and waits until `url` answers 200. */
async function start(args: string[], url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`node ${args.join(' ')} exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error(`node ${args.join(' ')} did not answer ${url}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

/** Makes the content and the built tree, starts the three servers and measures them. */
export async function measureServe(work: string): Promise<ServeReport> {
  const content = path.join(work, 'serve-content');
  const tree = path.join(work, 'serve-tree');
  await mkdir(content, { recursive: true });
  await writeFile(path.join(content, 'addon.yaml'), ADDON);
  await writeFile(path.join(content, 'channels.m3u'), PLAYLIST);
  const ports = { serve: await freePort(), 'serve --dir': await freePort(), 'SDK serveHTTP': await freePort() };
  const base = (server: ServerName) => `http://127.0.0.1:${ports[server]}`;
  await new Promise<void>((resolve, reject) => {
    const args = [BIN, 'build', content, '--out', tree, '--base-url', `${base('serve --dir')}/`, '--host', 'github-pages'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited with ${code}`))));
  });

  const children = new Map<ServerName, ChildProcess>();
  try {
    // Built for the --dir tree's URL, so that the genre links in the answers are the same bytes.
    const serveArgs = [BIN, 'serve', content, '--port', String(ports.serve), '--base-url', `${base('serve --dir')}/`];
    children.set('serve', await start(serveArgs, `${base('serve')}/manifest.json`));
    children.set(
      'serve --dir',
      await start([BIN, 'serve', '--dir', tree, '--port', String(ports['serve --dir'])], `${base('serve --dir')}/manifest.json`),
    );
    children.set('SDK serveHTTP', await start([SDK_ADDON, tree, String(ports['SDK serveHTTP'])], `${base('SDK serveHTTP')}/manifest.json`));
    await sameAnswers(base);
    // Past the second in which serve does not keep a newly written file in memory.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const rows: ServeRow[] = [];
    for (const round of [1, 2]) {
      const order = round === 1 ? SERVERS : [...SERVERS].reverse();
      for (const pathName of Object.keys(PATHS) as PathName[]) {
        for (const server of order) rows.push({ server, path: pathName, round, ...(await load(`${base(server)}${PATHS[pathName]}`)) });
      }
    }
    return { rows, ratios: ratiosOf(rows) };
  } finally {
    for (const child of children.values()) await stop(child);
  }
}

/** The three servers give the same protocol answer (as JSON) for every measured path. */
async function sameAnswers(base: (server: ServerName) => string): Promise<void> {
  for (const target of Object.values(PATHS)) {
    const bodies = await Promise.all(SERVERS.map(async (server) => JSON.stringify(await (await fetch(`${base(server)}${target}`)).json())));
    if (new Set(bodies).size !== 1) throw new Error(`the servers answer ${target} differently:\n${bodies.join('\n')}`);
  }
}

/** One server, one path: requests a second and the 99th percentile of latency; every answer a 200. */
async function load(url: string): Promise<{ requestsPerSecond: number; p99Ms: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} answers other than 2xx`);
  }
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

function ratiosOf(rows: readonly ServeRow[]): ServeReport['ratios'] {
  const mean = (server: ServerName, pathName: PathName) => {
    const of = rows.filter((r) => r.server === server && r.path === pathName).map((r) => r.requestsPerSecond);
    return of.reduce((a, b) => a + b, 0) / of.length;
  };
  const ratios: ServeReport['ratios'] = {};
  for (const server of SERVERS.filter((s) => s !== 'SDK serveHTTP')) {
    const byPath = {} as Record<PathName, number>;
    for (const pathName of Object.keys(PATHS) as PathName[]) {
      byPath[pathName] = Number((mean(server, pathName) / mean('SDK serveHTTP', pathName)).toFixed(2));
    }
    ratios[`${server} / SDK`] = byPath;
  }
  return ratios;
}

export function printServe(report: ServeReport): void {
  console.log(`\nserve against the SDK's serveHTTP (${CONNECTIONS} connections, ${SECONDS} s per path and server, two rounds)`);
  console.log('server           path       round   req/s    p99 ms');
  for (const r of report.rows) {
    console.log(
      `${r.server.padEnd(16)} ${r.path.padEnd(10)} ${String(r.round).padStart(5)} ${r.requestsPerSecond.toFixed(0).padStart(7)}   ${String(r.p99Ms).padStart(6)}`,
    );
  }
  for (const [name, byPath] of Object.entries(report.ratios)) {
    console.log(
      `  ${name.padEnd(20)} ${Object.entries(byPath)
        .map(([p, v]) => `${p} ${v}`)
        .join(', ')}`,
    );
  }
}

// `tsx bench/serve.ts`: this section alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const work = path.join(ROOT, 'bench', '.work-serve');
  try {
    printServe(await measureServe(work));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
