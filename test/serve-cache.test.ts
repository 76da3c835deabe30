// `addon-gen serve --dir` keeps the files it sent lately in memory (src/serve/tree-files.ts): what
// it answers must still be what the disk holds, at once, whatever happens to the file after it was
// kept: rewritten in place with the same size, deleted, replaced by a symlink out, its folder
// swapped for a symlink out. The tree here is changed by hand, as a user's other tools might.
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { startServer, type AddonServer } from '../src/serve/index.js';
import { addonYaml, contentDir, movies, tempDir } from './support/content.js';
import { request } from './support/raw-http.js';

const META = 'meta/movie/t:0001.json';
const TARGET = '/meta/movie/t%3A0001.json';

let server: AddonServer;
let dist: string;
let agent: Agent;

beforeEach(async () => {
  const content = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films }\n'), 'movies.yaml': movies(5) });
  dist = path.join(await tempDir(), 'dist');
  expect((await build({ contentDir: content, outDir: dist, hosts: [] })).ok).toBe(true);
  server = await startServer({ dir: dist, port: 0 });
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
});

afterEach(async () => {
  agent.destroy();
  await server.close();
});

const get = (target = TARGET) => request(server.url, target, { agent });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same length as `bytes`, other bytes: a size check alone would not tell them apart. */
function sameSizeOther(bytes: Buffer, mark: string): Buffer {
  const text = bytes.toString('utf8');
  return Buffer.from(text.replace(/"name":"[^"]*"/, (field) => `"name":"${mark.repeat(field.length).slice(0, field.length - 9)}"`));
}

/** Requests the file a few times, over more than the second after which serve keeps a file. */
async function keep(target = TARGET): Promise<Buffer> {
  await wait(1_100);
  const first = await get(target);
  for (let i = 0; i < 3; i++) expect((await get(target)).body.equals(first.body)).toBe(true);
  expect(first.status).toBe(200);
  return first.body;
}

describe('serve --dir with files it keeps in memory', () => {
  it('sends a kept file’s new bytes at once after it is rewritten in place with the same size', async () => {
    const before = await keep();
    for (const mark of ['x', 'y', 'z']) {
      const after = sameSizeOther(before, mark);
      expect(after.length).toBe(before.length);
      await writeFile(path.join(dist, META), after);
      const reply = await get();
      expect(reply.body.toString()).toBe(after.toString());
    }
  });

  it('answers 404 once a kept file is deleted, or replaced by a symlink to a file outside', async () => {
    const before = await keep();
    const outside = path.join(path.dirname(dist), 'outside.json');
    await writeFile(outside, sameSizeOther(before, 's'));
    await unlink(path.join(dist, META));
    expect((await get()).status).toBe(404);
    await symlink(outside, path.join(dist, META));
    const reply = await get();
    expect(reply.status).toBe(404);
    expect(reply.body.includes('sss')).toBe(false);
  });

  it('answers 404, never the outside file, once the kept file’s folder is swapped for a symlink out', async () => {
    const before = await keep();
    const folder = path.join(dist, 'meta', 'movie');
    const outside = path.join(path.dirname(dist), 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 't:0001.json'), sameSizeOther(before, 's'));
    await rename(folder, `${folder}.aside`);
    await symlink(outside, folder);
    const reply = await get();
    expect(reply.status).toBe(404);
    expect(reply.body.includes('sss')).toBe(false);
    // And back: the real folder's file is served again.
    await rm(folder);
    await rename(`${folder}.aside`, folder);
    expect((await get()).body.equals(before)).toBe(true);
  });

  it('answers 404 in JSON, not an error, once a kept file’s folder is replaced by a file or made unreadable', async () => {
    await keep();
    const folder = path.join(dist, 'meta', 'movie');
    await rename(folder, `${folder}.aside`);
    await writeFile(folder, 'not a folder');
    const reply = await get();
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.text).not.toContain(dist);
    await rm(folder);
    await symlink(folder, folder); // a loop: ELOOP
    expect((await get()).status).toBe(404);
  });

  it('sends byte ranges of a kept file as of a file read from the disk', async () => {
    const before = await keep();
    const reply = await request(server.url, TARGET, { agent, headers: { Range: 'bytes=3-9' } });
    expect(reply.status).toBe(206);
    expect(reply.headers['content-range']).toBe(`bytes 3-9/${before.length}`);
    expect(reply.body.equals(before.subarray(3, 10))).toBe(true);
  });
});
