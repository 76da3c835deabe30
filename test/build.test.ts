// The whole pipeline on real folders: the example addon's tree, encoding, determinism, and what a
// failed or repeated build does to an existing output folder.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import type { Host } from '../src/hosts/index.js';
import { stateFileOf } from '../src/write/index.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';
import { expectSecretRefused } from './support/secrets.js';
import { clientRequest, envelopeProblems, hostFileFor } from './support/envelope.js';
import { EXAMPLE_DIR as EXAMPLE, expectedFiles, readExample } from './support/example.js';

/** Every file of `dir` with its bytes and mtime: what a build that changes nothing must leave. */
async function snapshot(dir: string) {
  const tree = await readTree(dir);
  const times = new Map<string, number>();
  for (const file of tree.keys()) times.set(file, (await stat(path.join(dir, file))).mtimeMs);
  return { tree, times };
}

describe('the example content', () => {
  it('builds exactly the files the protocol needs, each of which the client accepts', async () => {
    const out = await tempDir();
    const result = await build({ contentDir: EXAMPLE, outDir: out });
    // Correct content builds silently, for every host (the default).
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);

    const expected = expectedFiles(await readExample());
    expect([...tree.keys()].sort()).toEqual([...expected].sort());
    // The bookkeeping is beside the output folder, where no host uploads it.
    expect(existsSync(stateFileOf(out))).toBe(true);

    for (const [file, bytes] of tree) {
      if (!file.endsWith('.json') || file === 'vercel.json') continue;
      expect(envelopeProblems(file, bytes.toString('utf8')), file).toEqual([]);
    }
    // Copied local files are byte-identical to their sources.
    for (const file of [...tree.keys()].filter((f) => f.startsWith('assets/'))) {
      expect(tree.get(file)!.equals(await readFile(path.join(EXAMPLE, file.slice('assets/'.length)))), file).toBe(true);
    }
  });

  it('uses every stream source and the features the README promises', async () => {
    const result = await build({ contentDir: EXAMPLE });
    const streams = result.content!.items.flatMap((i) => [...i.streams, ...(i.videos ?? []).flatMap((v) => v.streams)]);
    for (const source of ['url', 'ytId', 'infoHash', 'externalUrl', 'playerFrameUrl'] as const) {
      expect(
        streams.some((s) => s[source] !== undefined),
        source,
      ).toBe(true);
    }
    expect(streams.some((s) => s.rarUrls || s.zipUrls || s['7zipUrls'] || s.tarUrls || s.tgzUrls)).toBe(true);
    const series = result.content!.items.filter((i) => i.videos?.length);
    expect(new Set(series[0]!.videos!.map((v) => v.season)).size).toBeGreaterThanOrEqual(2);
    expect(result.content!.items.some((i) => !i.videos && i.subtitles.length > 0)).toBe(true);
    expect(series.some((i) => i.videos!.some((v) => v.subtitles.length > 0))).toBe(true);
    expect(result.content!.catalogs.some((c) => c.type === 'movie' && c.genres.length > 0)).toBe(true);
  });
});

describe('encoding', () => {
  const awkward = ['tt1:1:2', 'with space', 'a&b=c', 'plus+sign', '100%', 'Été à Paris', 'ü:ñ'];

  it('stores each file under the name a static host decodes the client request to', async () => {
    const items = awkward.map((id, i) => `- { id: "${id}", type: movie, name: "N${i}", genres: ["Science Fiction", "R&B"] }`);
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: "my list", type: movie, name: L, genres: auto }\n'),
      'items.yaml': `${items.join('\n')}\n`,
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.ok).toBe(true);
    const tree = await readTree(out);

    const requests = [
      clientRequest('catalog', 'movie', 'my list'),
      clientRequest('catalog', 'movie', 'my list', [['skip', '7']]),
      clientRequest('catalog', 'movie', 'my list', [['genre', 'Science Fiction']]),
      clientRequest('catalog', 'movie', 'my list', [
        ['skip', '7'],
        ['genre', 'R&B'],
      ]),
      clientRequest('catalog', 'movie', 'my list', [
        ['genre', 'R&B'],
        ['skip', '7'],
      ]),
      ...awkward.flatMap((id) => [clientRequest('meta', 'movie', id), clientRequest('stream', 'movie', id)]),
    ];
    expect(requests).toContain('/catalog/movie/my%20list/skip=7&genre=R%26B.json');
    expect(requests).toContain('/meta/movie/tt1%3A1%3A2.json');
    for (const request of requests) expect(tree.has(hostFileFor(request)), request).toBe(true);
    // And every JSON file is the answer to one of those requests (plus the manifest).
    const reached = new Set([...requests.map(hostFileFor), 'manifest.json']);
    const jsonFiles = [...tree.keys()].filter((f) => f.endsWith('.json') && f !== 'vercel.json');
    const unreached = jsonFiles.filter((f) => !reached.has(f));
    expect(
      unreached.every((f) => /^catalog\/movie\/my list\/(genre=[^&]+&skip=|skip=\d+&genre=)/.test(f) || f.includes('genre=')),
      unreached.join(),
    ).toBe(true);
  });
});

describe('determinism', () => {
  it('writes byte-identical trees for the same content, whatever the key order in YAML', async () => {
    const a = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'x.yaml': 'id: x\ntype: movie\nname: X\nreleased: 1999-01-01\nstreams: [{ url: "https://e.org/x.mp4", name: HD }]\n',
    });
    const b = await contentDir({
      'addon.yaml':
        'catalogs:\n  - { type: movie, name: C, id: c }\ndescription: For tests\nname: Test Addon\nversion: 1.0.0\nid: org.example.test\n',
      'x.yaml': 'streams: [{ name: HD, url: "https://e.org/x.mp4" }]\nreleased: 1999-01-01\nname: X\ntype: movie\nid: x\n',
    });
    const [outA, outA2, outB] = [await tempDir(), await tempDir(), await tempDir()];
    await build({ contentDir: a, outDir: outA });
    await build({ contentDir: a, outDir: outA2 });
    await build({ contentDir: b, outDir: outB });
    const [treeA, treeA2, treeB] = [await readTree(outA), await readTree(outA2), await readTree(outB)];
    expect(treeA2).toEqual(treeA);
    expect(treeB).toEqual(treeA);
    expect(treeA.get('meta/movie/x.json')!.toString()).toBe('{"meta":{"id":"x","type":"movie","name":"X","released":"1999-01-01T00:00:00.000Z"}}');
  });
});

describe('an existing output folder', () => {
  /** A content folder with one catalog and one movie in it, `x`. */
  const oneMovie = () =>
    contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'x.yaml': 'id: x\ntype: movie\nname: X\n',
    });

  it('stays exactly as it was when the build fails', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const before = await snapshot(out);
    await writeFile(path.join(dir, 'x.yaml'), 'id: x\ntype: movie\nname: X Renamed\nposter: nope.jpg\n');
    await writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: movie\nname: Y\n');
    const failed = await build({ contentDir: dir, outDir: out });
    expect(failed.ok).toBe(false);
    expect(await snapshot(out)).toEqual(before);
  });

  it('stays exactly as it was when the build is told to stop before it writes', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const before = await snapshot(out);
    await writeFile(path.join(dir, 'x.yaml'), 'id: x\ntype: movie\nname: X Renamed\n');
    let asked = 0;
    const stopped = await build({ contentDir: dir, outDir: out, stopBeforeWrite: () => ++asked > 0 });
    expect(stopped).toMatchObject({ ok: false, stopped: true, diagnostics: [] });
    expect(asked).toBe(1);
    expect(await snapshot(out)).toEqual(before);
    // Not asked when the build fails, even in plan (two ids that differ in case only): stopped,
    // it has passed every check.
    await writeFile(path.join(dir, 'y.yaml'), 'id: X\ntype: movie\nname: Upper\n');
    expect((await build({ contentDir: dir, outDir: out, stopBeforeWrite: () => ++asked > 0 })).stopped).toBeUndefined();
    expect(asked).toBe(1);
    await rm(path.join(dir, 'y.yaml'));
    // Not stopped, it writes the edit.
    expect((await build({ contentDir: dir, outDir: out, stopBeforeWrite: () => false })).write?.written).toBeGreaterThan(0);
  });

  it('makes new folders beside the output folder and moves each in whole, and sweeps up what a killed build left there', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    const staging = path.join(path.dirname(out), `.${path.basename(out)}.addon-gen-staging`);
    // What a build killed before moving its folders in leaves: a half-written file there.
    await mkdir(path.join(staging, 'meta/movie'), { recursive: true });
    await writeFile(path.join(staging, 'meta/movie/x.json'), '{"meta":');
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    expect(existsSync(staging)).toBe(false);
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean, reuse: false });
    expect(await readTree(out)).toEqual(await readTree(clean));
    // A folder that is there already gets its files one by one: here a new type's folder.
    await writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: series\nname: Y\n');
    expect((await build({ contentDir: dir, outDir: out })).write!.written).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(path.join(out, 'meta/series/y.json'), 'utf8')).meta.id).toBe('y');
    expect(existsSync(staging)).toBe(false);
  });

  it('repairs a build cut off after its complete record, before its new folders moved in', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    const staging = path.join(path.dirname(out), `.${path.basename(out)}.addon-gen-staging`);
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const clean = await readTree(out);
    // What a first build leaves when killed between its record and the renames: the record lists
    // files of folders still in the staging folder.
    await mkdir(staging);
    for (const top of ['meta', 'stream']) await rename(path.join(out, top), path.join(staging, top));
    const repaired = await build({ contentDir: dir, outDir: out });
    expect(repaired.ok).toBe(true);
    expect(repaired.reused).toBeUndefined();
    expect(await readTree(out)).toEqual(clean);
    expect(existsSync(staging)).toBe(false);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
  });

  it('keeps its bookkeeping beside the output folder, where no host uploads it, and moves out one left inside', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const beside = stateFileOf(out);
    expect(path.dirname(beside)).toBe(path.dirname(out));
    expect(JSON.parse(await readFile(beside, 'utf8')).paths).toContain('meta/movie/x.json');
    const tree = await readTree(out);
    expect([...tree.keys()].filter((f) => f.startsWith('.addon-gen'))).toEqual([]);
    // Where earlier versions kept it: trusted there, and taken out by the next build that writes.
    const inside = path.join(out, '.addon-gen.json');
    await rename(beside, inside);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
    await writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: movie\nname: Y\n');
    const rebuilt = await build({ contentDir: dir, outDir: out });
    expect(rebuilt.write!.written).toBeGreaterThan(0);
    expect(rebuilt.write!.written).toBeLessThan(rebuilt.write!.files);
    expect(existsSync(inside)).toBe(false);
    expect(existsSync(beside)).toBe(true);
    // Even when it finds nothing to write.
    await rename(beside, inside);
    expect((await build({ contentDir: dir, outDir: out, reuse: false })).write!.written).toBe(0);
    expect(existsSync(inside)).toBe(false);
    expect(existsSync(beside)).toBe(true);
  });

  it('keeps its bookkeeping inside the output folder while the folder above cannot be written', async (ctx) => {
    const dir = await oneMovie();
    const parent = await tempDir();
    const out = path.join(parent, 'dist');
    await mkdir(out);
    const inside = path.join(out, '.addon-gen.json');
    // Not S3: its folder goes beside the output folder too.
    const hosts: Host[] = ['netlify'];
    const unlock = await lockFolder(parent);
    if (!unlock) return ctx.skip();
    try {
      expect((await build({ contentDir: dir, outDir: out, hosts })).ok).toBe(true);
      expect(existsSync(inside)).toBe(true);
      // And it is trusted there: a rebuild writes only what changed.
      await writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: movie\nname: Y\n');
      const rebuilt = await build({ contentDir: dir, outDir: out, hosts });
      expect(rebuilt.write!.written).toBeGreaterThan(0);
      expect(rebuilt.write!.written).toBeLessThan(rebuilt.write!.files);
    } finally {
      await unlock();
    }
    // Once it can, it moves out.
    expect((await build({ contentDir: dir, outDir: out, hosts, reuse: false })).write!.written).toBe(0);
    expect(existsSync(inside)).toBe(false);
    expect(existsSync(stateFileOf(out))).toBe(true);
  });

  it('repairs what an interrupted build left, even where the content went back to before', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    const clean = await readTree(out);
    // What a build of other content leaves when it is killed after renaming one file into place:
    // new bytes, a temporary file, and bookkeeping marked incomplete with the old hashes.
    const state = JSON.parse(await readFile(stateFileOf(out), 'utf8'));
    await writeFile(path.join(out, 'meta/movie/x.json'), '{"meta":{"id":"x","type":"movie","name":"Other"}}');
    await writeFile(path.join(out, 'meta/movie/x.json.7.addon-gen-tmp'), '{"meta":');
    await writeFile(stateFileOf(out), JSON.stringify({ ...state, complete: false }));

    const repaired = await build({ contentDir: dir, outDir: out });
    expect(repaired.write!.written).toBe(1);
    expect(await readTree(out)).toEqual(clean);
  });

  it('ends up correct when its bookkeeping is missing, corrupt or of another format', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    const clean = await readTree(out);
    const state = stateFileOf(out);
    const damaged = [
      undefined,
      '{"generator":"addon-gen","complete":tr',
      'null',
      JSON.stringify({ generator: 'addon-gen', complete: true, files: { 'meta/movie/x.json': 'abc' } }),
      JSON.stringify({ ...JSON.parse(await readFile(state, 'utf8')), sizes: [] }),
    ];
    for (const text of damaged) {
      // Content the bookkeeping does not know about: the file on disk must not be trusted.
      await writeFile(path.join(out, 'meta/movie/x.json'), '{"meta":{"id":"x","type":"movie","name":"Stale"}}');
      if (text === undefined) await rm(state);
      else await writeFile(state, text);
      const rebuilt = await build({ contentDir: dir, outDir: out });
      expect(rebuilt.ok).toBe(true);
      expect(await readTree(out), String(text)).toEqual(clean);
    }

    // Bookkeeping that names a file outside the output folder never makes a build touch it.
    const victim = `${out}-victim.txt`;
    await writeFile(victim, 'keep');
    const forged = {
      generator: 'addon-gen',
      format: 3,
      complete: true,
      paths: [`../${path.basename(victim)}`, 'a/../../x'],
      sizes: [4, 4],
      inputs: [-1, -1],
      fingerprints: [],
    };
    await writeFile(state, JSON.stringify(forged));
    const rebuilt = await build({ contentDir: dir, outDir: out });
    expect(rebuilt.write).toMatchObject({ removed: 0 });
    expect(await readFile(victim, 'utf8')).toBe('keep');
    await rm(victim);
  });

  it('rewrites the pages of an unchanged file whose items an edit elsewhere shifted', async () => {
    const many = Array.from({ length: 250 }, (_, i) => `- { id: "m${i}", type: movie, name: "M ${i}" }`).join('\n');
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'a.yaml': '- { id: first, type: movie, name: First }\n',
      'b.yaml': `${many}\n`,
    });
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    // Every item of the page at skip=100 comes from b.yaml, before and after: only ids tell them apart.
    await writeFile(path.join(dir, 'a.yaml'), '');
    await build({ contentDir: dir, outDir: out });
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean });
    const [tree, cleanTree] = [await readTree(out), await readTree(clean)];
    expect(JSON.parse(tree.get('catalog/movie/c/skip=100.json')!.toString()).metas[0].id).toBe('m100');
    expect([...tree.keys()].sort()).toEqual([...cleanTree.keys()].sort());
    for (const [file, bytes] of cleanTree) expect(tree.get(file)!.equals(bytes), file).toBe(true);
  });

  it('rewrites nothing when nothing changed, and removes files that no longer belong', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'),
      'x.yaml': '- { id: x, type: movie, name: X }\n- { id: y, type: movie, name: Y }\n',
    });
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    await writeFile(path.join(out, 'CNAME'), 'addon.example.org\n'); // not ours: must survive
    await mkdir(path.join(out, '.git/objects'), { recursive: true });
    await writeFile(path.join(out, '.git/objects/ab'), 'x');
    // Others' files are reported by the first build that sees them, and by no later one.
    const first = await build({ contentDir: dir, outDir: out });
    expect(first.write).toMatchObject({ written: 0, removed: 0, foreign: ['.git/', 'CNAME'] });
    expect(first.diagnostics.filter((d) => d.code === 'foreign-files')).toHaveLength(1);
    const before = await snapshot(out);
    const again = await build({ contentDir: dir, outDir: out });
    expect(again.write).toMatchObject({ written: 0, removed: 0, foreign: [] });
    expect(again.diagnostics.filter((d) => d.code === 'foreign-files')).toEqual([]);
    expect(await snapshot(out)).toEqual(before);

    await writeFile(path.join(dir, 'x.yaml'), '- { id: x, type: movie, name: X }\n');
    const smaller = await build({ contentDir: dir, outDir: out });
    expect(smaller.write!.removed).toBe(3); // meta and stream of y, and the empty page at skip=2
    const tree = await readTree(out);
    expect(tree.has('meta/movie/y.json')).toBe(false);
    expect(tree.has('stream/movie/y.json')).toBe(false);
    expect(tree.has('catalog/movie/c/skip=2.json')).toBe(false);
    expect(tree.has('catalog/movie/c/skip=1.json')).toBe(true);
    expect(tree.get('CNAME')!.toString()).toBe('addon.example.org\n');
    expect(tree.get('.git/objects/ab')!.toString()).toBe('x');
    // The same tree as a clean build of the same content.
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean });
    const cleanTree = await readTree(clean);
    tree.delete('CNAME');
    tree.delete('.git/objects/ab');
    expect(tree).toEqual(cleanTree);
  });

  it('rewrites exactly the files whose bytes changed, comparing those rendered again at their size', async () => {
    const item = (name: string) => `- { id: x, type: movie, name: ${name}, streams: [{ url: "https://e.org/x.mp4" }] }\n`;
    const dir = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'x.yaml': item('X1') });
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    const before = await snapshot(out);

    // A name of the same length: its meta and the catalog page keep their size, not their bytes;
    // its stream file is rendered again from new inputs, to the same bytes.
    await writeFile(path.join(dir, 'x.yaml'), item('X2'));
    const rebuilt = await build({ contentDir: dir, outDir: out });
    const after = await snapshot(out);
    const changed = [...after.tree].filter(([file, bytes]) => !before.tree.get(file)!.equals(bytes)).map(([file]) => file);
    const touched = [...after.times].filter(([file, time]) => before.times.get(file) !== time).map(([file]) => file);
    expect(changed).toEqual(expect.arrayContaining(['meta/movie/x.json', 'catalog/movie/c.json']));
    expect(changed).not.toContain('stream/movie/x.json');
    expect(touched.sort()).toEqual(changed.sort());
    expect(rebuilt.write!.written).toBe(changed.length);
    const clean = await tempDir();
    await build({ contentDir: dir, outDir: clean });
    expect(after.tree).toEqual(await readTree(clean));
  });

  it('renders only the manifest and the pages again for a release: a new version, name, description or logo', async () => {
    const settings = addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n');
    const dir = await contentDir({ 'addon.yaml': settings, 'x.yaml': '- { id: x, type: movie, name: X }\n' });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    // Bytes of the same size where the build does not look: only a file rendered again would be compared with them.
    const meta = path.join(out, 'meta/movie/x.json');
    const tamper = async () => writeFile(meta, (await readFile(meta, 'utf8')).replace('"name":"X"', '"name":"Z"'));
    await tamper();
    const before = await snapshot(out);
    const release = settings
      .replace('version: 1.0.0', 'version: 1.1.0')
      .replace('name: Test Addon', 'name: Renamed')
      .replace('description: For tests', 'description: Released\nlogo: https://example.org/logo.png');
    await writeFile(path.join(dir, 'addon.yaml'), release);
    const released = await build({ contentDir: dir, outDir: out });
    expect(released.ok).toBe(true);
    const after = await snapshot(out);
    const touched = [...after.times].filter(([file, time]) => before.times.get(file) !== time).map(([file]) => file);
    expect(touched.sort()).toEqual(['404.html', 'index.html', 'manifest.json']);
    expect(JSON.parse(after.tree.get('manifest.json')!.toString())).toMatchObject({
      version: '1.1.0',
      name: 'Renamed',
      logo: 'https://example.org/logo.png',
    });
    expect(after.tree.get('meta/movie/x.json')!.toString()).toContain('"name":"Z"');
    // Another setting renders the items' files again: their cache hints.
    await writeFile(path.join(dir, 'addon.yaml'), `${release}cache: { maxAge: 60 }\n`);
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    expect(await readFile(meta, 'utf8')).toContain('"name":"X"');
  });

  it('trusts the bookkeeping of the format before this one, which had hashes', async () => {
    const dir = await oneMovie();
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out });
    const state = JSON.parse(await readFile(stateFileOf(out), 'utf8'));
    expect(state.format).toBe(3);
    const hashes = state.paths.map(() => 'h');
    await writeFile(stateFileOf(out), JSON.stringify({ ...state, format: 2, hashes }));
    const before = await snapshot(out);
    const again = await build({ contentDir: dir, outDir: out, reuse: false });
    expect(again.write).toMatchObject({ written: 0, removed: 0 });
    expect(await snapshot(out)).toEqual(before);
  });
});

describe('a build with the inputs of the last one', () => {
  const files = {
    'addon.yaml': addonYaml('baseUrl: https://example.org/addon/\ncatalogs:\n  - { id: c, type: movie, name: C }\n'),
    'x.yaml': 'id: x\ntype: movie\nname: "X ${TITLE}"\nposter: poster.png\n',
    // No catalog lists series: a warning with a position, which a reused build must repeat.
    'y.yaml': 'id: y\ntype: series\nname: Y\n',
    'poster.png': Buffer.concat([Buffer.from([0x89]), Buffer.from('PNG, not really a picture')]),
  };
  const env = { TITLE: 'Hello World' };

  it('ends before parsing, with the same problems and summary, and touches nothing', async () => {
    const dir = await contentDir(files);
    const out = await tempDir();
    const first = await build({ contentDir: dir, outDir: out, env });
    expect(first.ok).toBe(true);
    expect(first.reused).toBeUndefined();
    expect(first.diagnostics.map((d) => d.code)).toContain('uncovered-type');
    const before = await snapshot(out);

    const again = await build({ contentDir: dir, outDir: out, env });
    expect(again.reused).toBe(true);
    expect(again.ok).toBe(true);
    expect(again.content).toBeUndefined();
    expect(again.stages.validate).toBeUndefined();
    expect(again.diagnostics).toEqual(first.diagnostics);
    expect(again.addon).toEqual(first.addon);
    expect(again.counts).toEqual(first.counts);
    expect(again.manifestUrl).toBe(first.manifestUrl);
    expect(again.hosts).toEqual(first.hosts);
    const byResource = Object.fromEntries(Object.entries(first.write!.byResource).map(([r, t]) => [r, { ...t, written: 0 }]));
    expect(again.write).toEqual({ ...first.write, written: 0, unchanged: first.write!.files, removed: 0, byResource });
    expect(await snapshot(out)).toEqual(before);
    // serve checks the content every time: it needs it for header rules.
    expect((await build({ contentDir: dir, outDir: out, env, reuse: false })).reused).toBeUndefined();
  });

  it('takes the full path when any input or output file changed, and ends as a clean build would', async () => {
    type Options = Omit<Parameters<typeof build>[0], 'contentDir' | 'outDir'>;
    const cases: { name: string; change: (dir: string, out: string) => Promise<unknown>; options?: Options }[] = [
      { name: 'an edited item file', change: (dir) => writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: series\nname: Y2\n') },
      { name: 'a new item file', change: (dir) => writeFile(path.join(dir, 'z.yaml'), 'id: z\ntype: movie\nname: Z\n') },
      { name: 'a removed item file', change: (dir) => rm(path.join(dir, 'y.yaml')) },
      { name: 'a variable with another value', change: async () => {}, options: { env: { TITLE: 'World' } } },
      { name: 'a local file with other bytes', change: (dir) => writeFile(path.join(dir, 'poster.png'), 'other') },
      { name: 'another base URL', change: async () => {}, options: { env, baseUrl: 'https://other.example.org/' } },
      { name: 'other hosts', change: async () => {}, options: { env, hosts: ['netlify'] } },
      { name: 'a deleted output file', change: (_, out) => rm(path.join(out, 'meta/movie/x.json')) },
      { name: 'a deleted S3 file', change: (_, out) => rm(`${out}-s3/upload.sh`) },
      { name: 'lost bookkeeping', change: (_, out) => rm(stateFileOf(out)) },
    ];
    for (const { name, change, options = { env } as Options } of cases) {
      const dir = await contentDir(files);
      const out = await tempDir();
      expect((await build({ contentDir: dir, outDir: out, env })).ok).toBe(true);
      await change(dir, out);
      const rebuilt = await build({ contentDir: dir, outDir: out, ...options });
      expect(rebuilt.ok, name).toBe(true);
      expect(rebuilt.reused, name).toBeUndefined();
      const clean = await tempDir();
      await build({ contentDir: dir, outDir: clean, ...options });
      const [tree, cleanTree] = [await readTree(out), await readTree(clean)];
      expect(tree, name).toEqual(cleanTree);
      // upload.sh names the output folder, which differs: the S3 folder has the same files.
      const hasS3 = options.hosts === undefined;
      const [s3, cleanS3] = hasS3 ? [await readTree(`${out}-s3`), await readTree(`${clean}-s3`)] : [new Map(), new Map()];
      expect([...s3.keys()].sort(), name).toEqual([...cleanS3.keys()].sort());
      expect(s3.get('cors.json'), name).toEqual(cleanS3.get('cors.json'));
      // And the build after that one stands on it.
      expect((await build({ contentDir: dir, outDir: out, ...options })).reused, name).toBe(true);
    }
  });

  it('puts back a deleted S3 file when no content file changed, also for content an edit could take', async () => {
    // No variable, no local file: the CLI's edit looks first, and the S3 folder is not its own.
    const dir = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: m, type: movie, name: M }\n'),
      'a.yaml': 'id: a\ntype: movie\nname: A\n',
    });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const before = await readTree(`${out}-s3`);
    await rm(`${out}-s3/upload.sh`);
    const rebuilt = await build({ contentDir: dir, outDir: out });
    expect(rebuilt.reused).toBeUndefined();
    expect(await readTree(`${out}-s3`)).toEqual(before);
    expect((await build({ contentDir: dir, outDir: out })).reused).toBe(true);
  });

  it('finds a secret the environment gained since, as the full checks would', async () => {
    const cases: Record<string, string>[] = [
      // In a file, as it is written.
      { ...env, API_KEY: 'For tests' },
      // Only once ${TITLE} is replaced: "X Hello World".
      { ...env, MY_TOKEN: 'X Hello W' },
      // In the bytes of a copied local file.
      { ...env, PNG_SECRET: 'not really' },
    ];
    for (const caseEnv of cases) {
      const dir = await contentDir(files);
      const out = await tempDir();
      expect((await build({ contentDir: dir, outDir: out, env })).ok).toBe(true);
      const found = await expectSecretRefused(dir, out, caseEnv);
      expect(found.reused, JSON.stringify(caseEnv)).toBeUndefined();
    }
    // A variable listed under `secrets:` is guarded whatever its name.
    const dir = await contentDir({ ...files, 'addon.yaml': `${files['addon.yaml']}secrets: [PLAIN]\n` });
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out, env })).ok).toBe(true);
    const found = await build({ contentDir: dir, outDir: out, env: { ...env, PLAIN: 'For tests' } });
    expect(found.ok).toBe(false);
    expect(found.diagnostics.map((d) => d.code)).toContain('secret-in-output');
  });
});

/**
 * Makes `dir` refuse new entries: read-only for a user, immutable for root (whom permissions do
 * not stop). Resolves to the undo, or to undefined when the folder can still be written.
 */
async function lockFolder(dir: string): Promise<(() => Promise<void>) | undefined> {
  const root = process.getuid?.() === 0;
  const chattr = (flag: string) => promisify(execFile)('chattr', [flag, dir]);
  const unlock = async () => {
    if (root) await chattr('-i');
    else await chmod(dir, 0o755);
  };
  try {
    if (root) await chattr('+i');
    else await chmod(dir, 0o555);
  } catch {
    return undefined;
  }
  const probe = path.join(dir, 'probe');
  const writable = await writeFile(probe, '').then(
    () => true,
    () => false,
  );
  if (!writable) return unlock;
  await unlock();
  await rm(probe, { force: true });
  return undefined;
}
