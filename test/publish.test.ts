// `addon-gen publish`: the manifest is fetched and checked, then announced with the request the
// official SDK's publishToCentral sends, to a server on 127.0.0.1 standing in for api.strem.io.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { run } from '../src/cli/index.js';
import { EXAMPLE_DIR } from './support/example.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';
import { removeOutput } from './support/content.js';
import { freePort } from './support/wrangler.js';

interface Announcement {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}

let out: string;
let addon: StaticServer;
let api: Server;
let apiUrl: string;
const announced: Announcement[] = [];
/** What the stand-in answers next: the real API answers `{"result": …}` or `{"error": …}`. */
let answer: { status: number; body: unknown } = { status: 200, body: { result: { success: true } } };

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => resolve(text));
  });

beforeAll(async () => {
  // The example, published for real on a static host: the manifest a user would announce.
  // A folder for the life of this file (tempDir's cleanup runs after each test).
  out = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-publish-'));
  addon = await startStaticServer(out, { prefix: '/films/' });
  expect((await build({ contentDir: EXAMPLE_DIR, outDir: out, baseUrl: addon.url })).ok).toBe(true);
  api = createServer((req, res) => {
    void read(req).then((text) => {
      announced.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'], body: JSON.parse(text || 'null') });
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await addon?.close();
  await removeOutput(out);
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
});

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { status, stdout, stderr };
}

describe('addon-gen publish', () => {
  it('checks the manifest, then posts its URL as publishToCentral does', async () => {
    announced.length = 0;
    answer = { status: 200, body: { result: { success: true } } };
    const manifestUrl = `${addon.url}manifest.json`;
    const { status, stdout, stderr } = await cli(['publish', manifestUrl, '--api-url', apiUrl]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toBe(`Published Public Domain Cinema 1.0.0 (${manifestUrl}) to ${apiUrl}: it appears in Stremio's community addons once listed\n`);
    expect(announced).toEqual([
      { method: 'POST', path: '/api/addonPublish', contentType: 'application/json', body: { transportUrl: manifestUrl, transportName: 'http' } },
    ]);
    // The manifest was read first.
    expect(addon.requests).toContain('/films/manifest.json');
  });

  it('refuses, without announcing, a URL that is not a manifest the client would install', async () => {
    announced.length = 0;
    const cases: [string, RegExp][] = [
      [`${addon.url}nothing/manifest.json`, /answered 404: publish the addon there first/],
      [`${addon.url}index.html`, /does not end in \/manifest\.json/],
      [`${addon.url}catalog/movie/films.json`, /does not end in \/manifest\.json/],
      // Refused before any request: not https, on another machine.
      ['http://films.example.org/manifest.json', /is not https/],
      ['ftp://films.example.org/manifest.json', /is not an http\(s\) URL/],
      [`${addon.url}manifest.json#top`, /has a fragment/],
      ['https://user:hunter2@films.example.org/manifest.json', /^addon-gen: the manifest URL holds a user name or password/],
    ];
    // Served beside the example: manifests the client would refuse, and a page that is not JSON.
    const example = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    for (const [folder, body] of [
      ['leading-zero', JSON.stringify({ ...example, version: '1.0.0-01' })],
      ['null-hint', JSON.stringify({ ...example, behaviorHints: { configurable: null } })],
      ['page', '<!doctype html><title>Not found</title>'],
    ]) {
      await mkdir(path.join(out, folder!), { recursive: true });
      await writeFile(path.join(out, folder!, 'manifest.json'), body!);
    }
    cases.push(
      [`${addon.url}leading-zero/manifest.json`, /not an addon manifest the client accepts: version: expected a semantic version/],
      [`${addon.url}null-hint/manifest.json`, /not an addon manifest the client accepts: behaviorHints\.configurable: /],
      [`${addon.url}page/manifest.json`, /page\/manifest\.json did not answer JSON/],
    );
    for (const [url, message] of cases) {
      const { status, stdout, stderr } = await cli(['publish', url, '--api-url', apiUrl]);
      expect(status, url).toBe(2);
      expect(stdout, url).toBe('');
      expect(stderr, url).toMatch(/^addon-gen: [^\n]+\n$/);
      expect(stderr, url).toMatch(message);
    }
    expect(announced).toEqual([]);
  });

  it("refuses this machine's plain http URL for the real catalog, and a bad --api-url before reading the manifest", async () => {
    announced.length = 0;
    const manifestUrl = `${addon.url}manifest.json`;
    // To the real catalog (here another machine's API): refused before any request.
    const local = await cli(['publish', manifestUrl, '--api-url', 'https://api.example.org']);
    expect(local.status).toBe(2);
    expect(local.stderr).toBe(`addon-gen: ${manifestUrl} is not https: Stremio installs remote addons only over HTTPS\n`);
    const before = addon.requests.length;
    const badApi = await cli(['publish', manifestUrl, '--api-url', 'ftp://x']);
    expect(badApi.status).toBe(2);
    expect(badApi.stderr).toBe('addon-gen: --api-url ftp://x is not an http(s) URL\n');
    expect(addon.requests.length).toBe(before);
    expect(announced).toEqual([]);
  });

  it('says what the API answered when it refuses, and when it cannot be reached', async () => {
    const manifestUrl = `${addon.url}manifest.json`;
    answer = { status: 200, body: { error: 'addon is not reachable from our servers' } };
    const refused = await cli(['publish', manifestUrl, '--api-url', apiUrl]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`addon-gen: ${apiUrl}/api/addonPublish refused ${manifestUrl}: addon is not reachable from our servers\n`);
    answer = { status: 500, body: 'oops' };
    expect((await cli(['publish', manifestUrl, '--api-url', apiUrl])).stderr).toContain('refused');

    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await cli(['publish', manifestUrl, '--api-url', closed]);
    expect(unreachable.status).toBe(2);
    expect(unreachable.stderr).toMatch(new RegExp(`^addon-gen: ${closed}/api/addonPublish could not be reached: .*ECONNREFUSED`));
  });
});
