// The host harnesses themselves, over real HTTP: the example addon built for, and served by, nginx
// set up like GitHub Pages (test/support/nginx.ts) and an S3 API (s3rver) filled by the build's own
// upload.sh through the real AWS CLI (test/support/s3.ts). A missing nginx or aws fails these tests.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/build/index.js';
import { readTree, removeOutput } from './content.js';
import { EXAMPLE_DIR } from './example.js';
import { startNginx, type Nginx } from './nginx.js';
import { startS3, type S3 } from './s3.js';
import { freePort } from './wrangler.js';

/** A name with every character ids may hold that a URL must escape (é precomposed). */
const ODD_NAME = `a%b c:d&e=f+g"h'\u00e9.json`;
/** As the Stremio client asks for it: each character escaped as encodeURIComponent does, `+` as %2B. */
const ODD_PATH = "a%25b%20c%3Ad%26e%3Df%2Bg%22h'%C3%A9.json";
const ODD_BODY = '{"streams":[{"url":"https://example.org/odd.mp4"}]}';

const WEB_ORIGIN = 'https://web.stremio.com';

/** Path of a tree file as a URL path: each segment percent-encoded. */
const urlPath = (file: string) => file.split('/').map(encodeURIComponent).join('/');

/** Builds the example for `baseUrl` into a new folder, with the odd file added to its streams. */
async function buildExample(baseUrl: string): Promise<string> {
  const out = path.join(await mkdtemp(path.join(os.tmpdir(), 'addon-gen-hosts-')), 'dist');
  const result = await build({ contentDir: EXAMPLE_DIR, outDir: out, baseUrl });
  expect(result.ok).toBe(true);
  await writeFile(path.join(out, 'stream', 'movie', ODD_NAME), ODD_BODY);
  return out;
}

async function removeBuild(out: string | undefined) {
  if (out === undefined) return;
  await removeOutput(out);
  await removeOutput(path.dirname(out));
}

describe('nginx set up like GitHub Pages', () => {
  let out: string | undefined;
  let nginx: Nginx | undefined;

  beforeAll(async () => {
    const port = await freePort();
    out = await buildExample(`http://127.0.0.1:${port}/repo/`);
    nginx = await startNginx(out, { port });
    expect(nginx.url).toBe(`http://127.0.0.1:${port}/repo/`);
  });

  afterAll(async () => {
    await nginx?.close();
    await removeBuild(out);
  });

  it('serves the manifest under the sub-path as JSON, with CORS and a 10-minute cache', async () => {
    const response = await fetch(`${nginx!.url}manifest.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('max-age=600');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(await readFile(path.join(out!, 'manifest.json')));
  });

  it('decodes a percent-encoded path before looking the file up', async () => {
    const response = await fetch(`${nginx!.url}stream/movie/${ODD_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.text()).toBe(ODD_BODY);
    // `&` and `=` of catalog extras, escaped or not.
    const plain = await fetch(`${nginx!.url}catalog/movie/films/genre=Crime&skip=1.json`);
    const escaped = await fetch(`${nginx!.url}catalog/movie/films/genre%3DCrime%26skip%3D1.json`);
    expect([plain.status, escaped.status]).toEqual([200, 200]);
    expect(await escaped.text()).toBe(await plain.text());
  });

  it("answers a missing path with the tree's 404.html, status 404, with CORS", async () => {
    const page = await readFile(path.join(out!, '404.html'), 'utf8');
    for (const missing of ['nope.json', 'stream/movie/nope.json', 'catalog/']) {
      const response = await fetch(`${nginx!.url}${missing}`);
      expect(response.status, missing).toBe(404);
      expect(response.headers.get('access-control-allow-origin'), missing).toBe('*');
      expect(response.headers.get('content-type'), missing).toBe('text/html; charset=utf-8');
      expect(await response.text(), missing).toBe(page);
    }
  });

  it('serves index.html for the site and redirects a folder to its slash', async () => {
    const index = await fetch(nginx!.url);
    expect(index.status).toBe(200);
    expect(await index.text()).toBe(await readFile(path.join(out!, 'index.html'), 'utf8'));
    for (const [from, to] of [
      [nginx!.url.slice(0, -1), nginx!.url],
      [`${nginx!.url}catalog`, `${nginx!.url}catalog/`],
    ]) {
      const response = await fetch(from!, { redirect: 'manual' });
      expect(response.status, from).toBe(301);
      expect(response.headers.get('location'), from).toBe(to);
      expect(response.headers.get('access-control-allow-origin'), from).toBe('*');
    }
  });

  it('logs the paths asked for, as sent', async () => {
    const before = (await nginx!.requests()).length;
    await (await fetch(`${nginx!.url}stream/movie/${ODD_PATH}?x=1`)).text();
    expect((await nginx!.requests()).slice(before)).toEqual([`/repo/stream/movie/${ODD_PATH}?x=1`]);
  });
});

describe('an S3 API (s3rver) filled by upload.sh through the AWS CLI', () => {
  const bucket = 'addon';
  const prefix = 'site/v1/';
  let out: string | undefined;
  let s3: S3 | undefined;
  let base: string;

  beforeAll(async () => {
    s3 = await startS3();
    base = s3.bucketUrl(bucket, prefix);
    expect(base).toBe(`${s3.endpoint}/${bucket}/${prefix}`);
    out = await buildExample(base);
    await s3.createBucket(bucket, path.join(`${out}-s3`, 'cors.json'));
    await s3.upload(`${out}-s3`, bucket, prefix);
  });

  afterAll(async () => {
    await s3?.close();
    await removeBuild(out);
  });

  it('serves the manifest anonymously as JSON, with CORS from the bucket configuration', async () => {
    const response = await fetch(`${base}manifest.json`, { headers: { Origin: WEB_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(await readFile(path.join(out!, 'manifest.json')));
  });

  it('keeps every file byte for byte, with the Content-Type and Cache-Control upload.sh gives it', async () => {
    const script = await readFile(path.join(`${out}-s3`, 'upload.sh'), 'utf8');
    // One `aws s3 sync` per line, its --exclude/--include filters applied as the AWS CLI does: in
    // order, the last one matching a path decides, `*` matches across `/`. The first sync that
    // takes a file uploads it with its headers (the later ones find it up to date).
    const glob = (pattern: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
      );
    const syncs = script
      .split('\n')
      .filter((line) => /^aws .* s3 sync /.test(line))
      .map((line) => ({
        filters: [...line.matchAll(/--(exclude|include) '([^']+)'/g)].map((m) => ({ include: m[1] === 'include', pattern: glob(m[2]!) })),
        contentType: /--content-type '([^']+)'/.exec(line)?.[1],
        cacheControl: /--cache-control '([^']+)'/.exec(line)?.[1],
      }));
    expect(syncs.length).toBeGreaterThan(1);
    const takes = (sync: (typeof syncs)[number], file: string) =>
      sync.filters.reduce((taken, filter) => (filter.pattern.test(file) ? filter.include : taken), true);

    const tree = await readTree(out!);
    let checked = 0;
    for (const [file, bytes] of tree) {
      const sync = syncs.find((s) => takes(s, file));
      const response = await fetch(`${base}${urlPath(file)}`, { headers: { Origin: WEB_ORIGIN } });
      if (!sync) {
        // Rule files and 404 pages of other hosts: not uploaded.
        expect(response.status, file).toBe(404);
        continue;
      }
      expect(response.status, file).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes), file).toBe(true);
      expect(response.headers.get('access-control-allow-origin'), file).toBe('*');
      if (sync.contentType) expect(response.headers.get('content-type'), file).toBe(sync.contentType);
      if (sync.cacheControl) expect(response.headers.get('cache-control'), file).toBe(sync.cacheControl);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('reads a key with : % & = + space quotes and accents by its percent-encoded URL', async () => {
    const response = await fetch(`${base}stream/movie/${ODD_PATH}`, { headers: { Origin: WEB_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe(ODD_BODY);
    const listing = await s3!.aws('s3api', 'list-objects-v2', '--bucket', bucket, '--prefix', `${prefix}stream/movie/a`);
    expect((JSON.parse(listing) as { Contents: { Key: string }[] }).Contents.map((c) => c.Key)).toContain(`${prefix}stream/movie/${ODD_NAME}`);
  });

  it('answers a missing key with 404', async () => {
    for (const missing of ['nope.json', 'stream/movie/nope.json', 'stream/movie/a%25b.json']) {
      const response = await fetch(`${base}${missing}`, { headers: { Origin: WEB_ORIGIN } });
      expect(response.status, missing).toBe(404);
    }
    expect((await fetch(`${s3!.bucketUrl('no-such-bucket')}manifest.json`)).status).toBe(404);
  });
});
