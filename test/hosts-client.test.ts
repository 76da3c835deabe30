// Every request the manifest invites, answered on every host: the bundled example and a content of
// odd ids (test/fixtures/odd-ids), each built for one host and served by that host's real software,
// then walked by the real client core sending a browser's Origin (test/support/client-walk.ts:
// every catalog page and genre, every meta, the streams of every item and video, the player on
// every stream and on one without hints). Hosts: nginx set up like GitHub Pages under a sub-path,
// the Cloudflare Pages runtime (`wrangler pages dev`), an S3 API (s3rver) filled by the generated
// upload.sh with the real AWS CLI, and `addon-gen serve`. Then `serve` is compared with the built
// tree on a plain static server, request by request, over a whole walk and requests hosts refuse.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { startServer } from '../src/serve/index.js';
import { walkAddon, type WalkResult } from './support/client-walk.js';
import { tempDir } from './support/content.js';
import { EXAMPLE_DIR } from './support/example.js';
import { startNginx } from './support/nginx.js';
import { startS3 } from './support/s3.js';
import { startStaticServer } from './support/static-server.js';
import { BROWSER_ORIGIN, startCore } from './support/stremio-core.js';
import { freePort, startPagesDev } from './support/wrangler.js';

const ODD_DIR = fileURLToPath(new URL('./fixtures/odd-ids', import.meta.url));
const CONTENTS: [string, string][] = [
  ['the example', EXAMPLE_DIR],
  ['odd ids', ODD_DIR],
];

/** An output folder inside a temporary folder of its own (the S3 folder is written beside it; both go after the test). */
async function outDir(): Promise<string> {
  return path.join(await tempDir('addon-gen-hosts-'), 'dist');
}

async function buildFor(contentDir: string, baseUrl: string, host: Host): Promise<string> {
  const out = await outDir();
  const result = await build({ contentDir, outDir: out, baseUrl, hosts: [host] });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return out;
}

/** A fresh client (an addon installed before would answer too), walked over the whole addon. */
async function walk(manifestUrl: string): Promise<WalkResult> {
  const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
  try {
    return await walkAddon(core, manifestUrl);
  } finally {
    await core.stop();
  }
}

/** Nothing failed, and the walk did open things (a walk of nothing would also have no failures). */
function expectClean(result: WalkResult) {
  expect(result.failures).toEqual([]);
  expect(result.counts.metas).toBeGreaterThanOrEqual(12);
  expect(result.counts.streams).toBeGreaterThanOrEqual(25);
  expect(result.subtitlesRequests.length).toBeGreaterThan(result.counts.metas);
  // Every answer carried CORS for the browser's Origin.
  expect(result.requests.every((r) => r.allowOrigin === '*')).toBe(true);
}

describe.each(CONTENTS)('%s, walked by the real client core on each host', (_name, contentDir) => {
  it('nginx set up like GitHub Pages, under a sub-path', async () => {
    const port = await freePort();
    const out = await buildFor(contentDir, `http://127.0.0.1:${port}/repo/`, 'github-pages');
    const nginx = await startNginx(out, { port, prefix: '/repo/' });
    try {
      expectClean(await walk(`${nginx.url}manifest.json`));
    } finally {
      await nginx.close();
    }
  }, 120_000);

  it('the Cloudflare Pages runtime (wrangler pages dev)', async () => {
    const port = await freePort();
    const out = await buildFor(contentDir, `http://127.0.0.1:${port}/`, 'cloudflare');
    const pages = await startPagesDev(out, { port });
    try {
      expectClean(await walk(`${pages.url}manifest.json`));
      // A 404 under a resource folder is the specification's JSON error, in body and type.
      for (const missing of ['meta/movie/nope.json', 'catalog/movie/nope.json', 'stream/movie/nope.json', 'subtitles/movie/nope.json']) {
        const response = await fetch(`${pages.url}${missing}`, { headers: { Origin: BROWSER_ORIGIN } });
        expect(response.status, missing).toBe(404);
        expect(response.headers.get('content-type'), missing).toBe('application/json; charset=utf-8');
        expect(Object.keys((await response.json()) as object), missing).toEqual(['error']);
      }
    } finally {
      await pages.close();
    }
  }, 180_000);

  it('an S3 API filled by upload.sh with the AWS CLI, below a key prefix', async () => {
    const s3 = await startS3();
    try {
      const out = await buildFor(contentDir, s3.bucketUrl('addons', 'films/'), 's3');
      await s3.createBucket('addons', `${out}-s3/cors.json`);
      await s3.upload(`${out}-s3`, 'addons', 'films/');
      expectClean(await walk(`${s3.bucketUrl('addons', 'films/')}manifest.json`));
    } finally {
      await s3.close();
    }
  }, 180_000);

  it('addon-gen serve', async () => {
    const server = await startServer({ contentDir, port: 0 });
    try {
      expectClean(await walk(server.manifestUrl));
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe.each(CONTENTS)('%s: serve answers as a plain static host does', (_name, contentDir) => {
  it('request by request, over a whole walk and over requests hosts have no file for', async () => {
    const out = await outDir();
    const plain = await startStaticServer(path.dirname(out), { prefix: '/repo/' });
    const baseUrl = `${plain.url}dist/`;
    expect((await build({ contentDir, outDir: out, baseUrl, hosts: ['github-pages'] })).ok).toBe(true);
    // serve builds the same content for the same URL, and answers under its path too.
    const server = await startServer({ contentDir, port: 0, baseUrl });
    try {
      const walked = await walk(`${baseUrl}manifest.json`);
      expectClean(walked);
      const paths = [...new Set(walked.requests.map((r) => r.url.slice(baseUrl.length)))];
      // What the desktop apps add (a hash and size from the streaming server), a page between
      // pages, an id no one has, another spelling of a genre page: no file, so 404 on both.
      const refused = [
        ...walked.subtitlesRequests.map((p) => p.replace(/\.json$/, `${p.split('/').length > 3 ? '&' : '/'}videoHash=0123456789abcdef.json`)),
        ...paths.filter((p) => p.startsWith('catalog/')).map((p) => p.replace(/\.json$/, '/skip=1.json')),
        ...paths.filter((p) => p.startsWith('meta/')).map((p) => p.replace(/\.json$/, 'x.json')),
        ...paths
          .filter((p) => p.includes('genre='))
          .map((p) => p.replace(/%20/g, '+'))
          .filter((p) => p.includes('+')),
      ];
      const differences: string[] = [];
      let compared = 0;
      for (const request of [...paths, ...refused]) {
        const [fromHost, fromServe] = await Promise.all(
          [baseUrl, `${server.url}${new URL(baseUrl).pathname.slice(1)}`].map((base) => fetch(base + request)),
        );
        const [hostBody, serveBody] = await Promise.all([fromHost!, fromServe!].map((r) => r.arrayBuffer()));
        compared++;
        if (fromHost!.status !== fromServe!.status) differences.push(`${request}: host ${fromHost!.status}, serve ${fromServe!.status}`);
        else if (fromHost!.status === 200 && !Buffer.from(hostBody!).equals(Buffer.from(serveBody!))) differences.push(`${request}: other bytes`);
      }
      expect(differences).toEqual([]);
      expect(compared).toBeGreaterThan(paths.length + 20);
      // The refused ones were refused: the comparison covered 404s as well as files.
      expect((await fetch(baseUrl + refused[0]!)).status).toBe(404);
    } finally {
      await server.close();
      await plain.close();
    }
  }, 120_000);
});
