// The CLI's builds after an edit of a few item files (build/edit.ts), which write an edit's files
// without the other items: after random edits of the benchmark's kind of content, the output
// folder holds the bytes a clean build of the edited content writes, and the build says what a
// whole build would. Edits it cannot take go the whole way, and so does every build after an
// edit that stopped half way, or an output changed since.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateContent } from '../bench/generate.js';
import { keptOf } from '../src/build/edit-kept.js';
import { build, type BuildResult } from '../src/build/index.js';
import { journalFileOf, readEditJournal, writeEditJournal } from '../src/write/index.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';
import { contentEdits, random } from './support/random-edits.js';

/** What a build says of the output, as a whole build says it (not how much it wrote). */
function said(result: BuildResult) {
  const { files, bytes, largest, byResource } = result.write!;
  const sizes = Object.fromEntries(Object.entries(byResource).map(([resource, r]) => [resource, { files: r.files, bytes: r.bytes }]));
  const { ok, addon, diagnostics, counts, hosts } = result;
  return { ok, addon, diagnostics, counts, write: { files, bytes, largest, sizes }, hosts };
}

async function cleanBuild(contentDir: string): Promise<{ result: BuildResult; tree: Map<string, Buffer>; out: string }> {
  const out = await tempDir();
  const result = await build({ contentDir, outDir: out, reuse: false });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return { result, tree: await readTree(out), out };
}

/** What the next edit measures the content files by, as kept beside `out`: each file's fingerprint and bytes (-1: it holds nothing), and their sum. */
async function keptSizes(out: string) {
  const kept = keptOf((await readEditJournal(out))?.kept);
  return kept && { textBytes: kept.textBytes, files: kept.files.map(([relative, , fingerprint, bytes]) => [relative, fingerprint, bytes]) };
}

/** Every file of both trees, by path: their bytes must be the same. */
function expectSameTree(tree: Map<string, Buffer>, clean: Map<string, Buffer>, what: string): void {
  expect([...tree.keys()].sort(), what).toEqual([...clean.keys()].sort());
  for (const [file, bytes] of clean) expect(tree.get(file)?.toString(), `${what}: ${file}`).toBe(bytes.toString());
}

/** Builds `content` into `out` and expects what a clean build of it writes and says; the build's result. */
async function buildAsClean(content: string, out: string, what: string): Promise<BuildResult> {
  const result = await build({ contentDir: content, outDir: out });
  const clean = await cleanBuild(content);
  expect(said(result), what).toEqual(said(clean.result));
  expectSameTree(await readTree(out), clean.tree, what);
  expect(await keptSizes(out), what).toEqual(await keptSizes(clean.out));
  return result;
}

/** A small benchmark's kind of content, built once into an output folder. */
async function builtOnce(): Promise<{ content: string; out: string }> {
  const content = await tempDir();
  await generateContent(content, { movies: 200, series: 2, episodes: 2, itemsPerFile: 40 });
  const out = await tempDir();
  await build({ contentDir: content, outDir: out });
  return { content, out };
}

/** The first movie's name changed: an edit the CLI's edit takes. */
const RENAMED = (text: string) => text.replace(/name: "[^"]*"/, 'name: "Zz renamed"');

async function editFile(content: string, relative: string, edit: (text: string) => string): Promise<void> {
  const file = path.join(content, relative);
  await writeFile(file, edit(await readFile(file, 'utf8')));
}

/** An item of one genre with a stream, as YAML. */
const genreItem = (id: string, name: string, genre: string, type = 'movie') =>
  `- id: "${id}"\n  type: ${type}\n  name: "${name}"\n  genres: [${genre}]\n  streams:\n    - { url: "https://cdn.example.org/${id}.mp4", name: CDN }\n`;

/** An edit of one content file: what it is, the file, its new text from the old, and whether it takes the edit's way. */
type FileEdit = [what: string, file: string, edit: (text: string) => string, edited: boolean];

/** Makes each edit in turn, and expects after each the build a clean one makes, and the way it says it took. */
async function editsAsClean(content: string, out: string, edits: readonly FileEdit[]): Promise<void> {
  for (const [what, file, edit, edited] of edits) {
    await editFile(content, file, edit);
    expect((await buildAsClean(content, out, what)).edited, what).toBe(edited || undefined);
  }
}

/** Edits of an item's fields that leave its files, its listings and what is warned of as they were, and items added or removed. */
const TAKEN = ['rename', 'redate', 'describe', 'restream', 'episode title', 'one stream fewer', 'remove', 'add'];

describe("the CLI's builds after an edit", () => {
  it('write what a clean build of the edited content writes, and say what it says', async () => {
    const content = await tempDir();
    await generateContent(content, { movies: 320, series: 12, episodes: 4, itemsPerFile: 40 });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const next = random(23);
    const edits = contentEdits(next);
    let edited = 0;
    for (let step = 0; step < 32; step++) {
      const applied: string[] = [];
      for (let e = 0; e < (next() < 0.3 ? 2 : 1); e++) {
        // Mostly edits the CLI's edit takes; now and then one that is not.
        const taken = edits.filter(([name]) => TAKEN.includes(name));
        const [name, edit] = next() < 0.6 ? taken[Math.floor(next() * taken.length)]! : edits[Math.floor(next() * edits.length)]!;
        const folder = name === 'episode title' || next() < 0.3 ? 'series' : 'movies';
        const list = (await readdir(path.join(content, folder))).sort();
        const relative = `${folder}/${list[Math.floor(next() * list.length)]!}`;
        await editFile(content, relative, edit);
        applied.push(`${name} in ${relative}`);
      }
      const what = `step ${step} (${applied.join(', ')})`;
      const result = await buildAsClean(content, out, what);
      if (result.edited) edited++;
      // Now and then a build with nothing changed: it writes nothing.
      if (next() < 0.2) expect((await build({ contentDir: content, outDir: out })).write?.written, `${what}, again`).toBe(0);
    }
    // The edits reached both ways.
    expect(edited).toBeGreaterThanOrEqual(10);
    expect(edited).toBeLessThanOrEqual(28);
    // A whole build after the edits finds the output as it would write it.
    const whole = await build({ contentDir: content, outDir: out, reuse: false });
    expect(whole.edited).toBeUndefined();
    expect(whole.write?.written).toBe(0);
  }, 180_000);

  it('take edits of titles other addons describe (streams for IMDb ids), added and removed too, as a clean build', async () => {
    const content = await tempDir();
    await generateContent(content, { movies: 80, series: 2, episodes: 2, itemsPerFile: 40 });
    // Streams and subtitles for Cinemeta's films and episodes, in the benchmark's stream lines, so that its edits apply.
    const hash = (n: number) => `${n.toString(16).padStart(39, '0')}f`;
    const title = (n: number) =>
      [
        n % 3 === 0 ? `- id: "tt${1000000 + n}:1:${n % 5}"\n  type: series` : `- id: "tt${1000000 + n}"\n  type: movie`,
        '  streams:',
        `    - { url: "https://cdn.example.org/m/${9000 + n}.mp4", name: CDN, description: 1080p }`,
        `    - { infoHash: ${hash(n)}, fileIdx: 0, name: P2P, description: Torrent }`,
        '  subtitles:',
        `    - { lang: eng, url: "https://subs.example.org/t${n}.eng.srt" }`,
      ].join('\n');
    for (let f = 0; f < 4; f++) {
      const titles = Array.from({ length: 10 }, (_, k) => title(f * 10 + k));
      await writeFile(path.join(content, `movies/elsewhere-${f}.yaml`), `${titles.join('\n')}\n`);
    }
    const out = await tempDir();
    const first = await build({ contentDir: content, outDir: out });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    const next = random(7);
    const taken = ['restream', 'one stream fewer', 'stream file name', 'no subtitles', 'add', 'remove'];
    const edits = contentEdits(next).filter(([name]) => taken.includes(name));
    let edited = 0;
    for (let step = 0; step < 16; step++) {
      const [name, edit] = next() < 0.5 ? edits[0]! : edits[Math.floor(next() * edits.length)]!;
      const relative = next() < 0.8 ? `movies/elsewhere-${Math.floor(next() * 4)}.yaml` : 'movies/00001.yaml';
      await editFile(content, relative, edit);
      const what = `step ${step} (${name} in ${relative})`;
      const result = await buildAsClean(content, out, what);
      if (result.edited) edited++;
    }
    expect(edited).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('take edits of subtitles for titles other addons describe, whose warning stands: a host cannot answer all their requests', async () => {
    const titles = (file: string, count: number) =>
      Array.from(
        { length: count },
        (_, k) => `- { id: "tt${file}${k}00", type: movie, subtitles: [ { lang: eng, url: "https://subs.example.org/${file}${k}.srt" } ] }\n`,
      ).join('');
    const item = (id: string, extra = '') =>
      `- { id: "${id}", type: movie, name: One, ${extra}subtitles: [ { lang: eng, url: "https://subs.example.org/${id}.srt" } ] }\n`;
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films }\n'),
      'a.yaml': titles('1', 3),
      'b.yaml': titles('2', 3),
      // Items with subtitles and no stream are counted in the same warning, first: it is at i.yaml's.
      'i.yaml': item('i:1'),
      'j.yaml': item('j:1'),
      'k.yaml': item('k:1', 'streams: [ { url: "https://e.org/k.mp4" } ], '),
    });
    const out = await tempDir();
    const first = await build({ contentDir: content, outDir: out });
    expect(first.diagnostics.map((d) => d.code)).toContain('subtitles-need-rewrites');
    const stream = 'streams: [ { url: "https://e.org/1.mp4" } ], subtitles';
    const edits: FileEdit[] = [
      ['another subtitles URL', 'b.yaml', (t) => t.replace('/21.srt', '/21.fr.srt'), true],
      ['another language', 'a.yaml', (t) => t.replace('lang: eng', 'lang: fra'), true],
      ['an item with a stream renamed', 'k.yaml', (t) => t.replace('name: One', 'name: Uno'), true],
      // One fewer without a stream: the warning's count changes.
      ['a stream for a title', 'b.yaml', (t) => t.replace('subtitles', stream), false],
      ['a stream for an item', 'j.yaml', (t) => t.replace('subtitles', stream), false],
      // Where the warning is: its line may have moved.
      ['the first item renamed', 'i.yaml', (t) => t.replace('name: One', 'name: Uno'), false],
    ];
    await editsAsClean(content, out, edits);
  }, 60_000);

  it('go the whole way when a title described elsewhere loses its streams, which the manifest declares', async () => {
    const title = (streams: string) =>
      `- id: "tt0000001"\n  type: movie\n${streams}  subtitles:\n    - { lang: eng, url: "https://subs.example.org/1.srt" }\n`;
    const streams = (url: string) => `  streams:\n    - { url: "${url}", name: CDN }\n`;
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films }\n'),
      'one.yaml': '- id: "a:1"\n  type: movie\n  name: "One"\n',
      'elsewhere.yaml': title(streams('https://cdn.example.org/1.mp4')),
    });
    const out = await tempDir();
    // On a host with rewrites, subtitles without a stream are no warning.
    expect((await build({ contentDir: content, outDir: out, hosts: ['netlify'] })).ok).toBe(true);
    for (const [what, text, edited] of [
      ['another stream', title(streams('https://cdn.example.org/2.mp4')), true],
      ['no stream', title(''), false],
    ] as const) {
      await writeFile(path.join(content, 'elsewhere.yaml'), text);
      const result = await build({ contentDir: content, outDir: out, hosts: ['netlify'] });
      expect(result.edited, what).toBe(edited || undefined);
      const clean = await build({ contentDir: content, outDir: await tempDir(), reuse: false, hosts: ['netlify'] });
      expect(said(result), what).toEqual(said(clean));
      const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8')) as {
        resources: { name: string; idPrefixes?: string[] }[];
      };
      expect(manifest.resources.find((r) => r.name === 'stream')?.idPrefixes?.includes('tt'), what).toBe(edited);
    }
  }, 60_000);

  it('keep the warnings of files they do not edit, and go the whole way to find those of files they do', async () => {
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films, sort: name, genres: [Drama, Comedy] }\n'),
      'a.yaml': genreItem('a:1', 'Alpha', 'Drama') + genreItem('a:2', 'Beta', 'Comedy'),
      // A genre the catalog does not offer (unknown-genre), and a type no catalog lists (uncovered-type).
      'b.yaml': genreItem('b:1', 'Gamma', 'Western') + genreItem('b:2', 'Delta', 'Drama', 'series'),
    });
    const out = await tempDir();
    const first = await build({ contentDir: content, outDir: out });
    expect(first.diagnostics.map((d) => d.code).sort()).toEqual(['uncovered-type', 'unknown-genre']);
    const edits: FileEdit[] = [
      ['a rename in a file without warnings', 'a.yaml', (t) => t.replace('"Alpha"', '"Zeta"'), true],
      // The warnings' lines move: a description above them.
      [
        'a description in the file with warnings',
        'b.yaml',
        (t) => t.replace('  name: "Gamma"\n', '  name: "Gamma"\n  description: "Now with one"\n'),
        false,
      ],
      ['another rename in a file without warnings', 'a.yaml', (t) => t.replace('"Beta"', '"Aa"'), true],
    ];
    await editsAsClean(content, out, edits);
  }, 60_000);

  it('take edits whichever way the content folder is named, as a clean build, and a whole build takes the files unchanged as kept', async () => {
    const absolute = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films, sort: name, genres: [Drama, Comedy] }\n'),
      'a.yaml': genreItem('a:1', 'Alpha', 'Drama') + genreItem('a:2', 'Beta', 'Comedy'),
      // A genre the catalog does not offer: a warning at this file.
      'b.yaml': genreItem('b:1', 'Gamma', 'Western'),
      'c.yaml': genreItem('c:1', 'Omega', 'Drama'),
    });
    // What is kept names the files relative to the content folder, as the record does: not as the folder was named.
    const relative = path.relative(process.cwd(), absolute);
    expect(path.isAbsolute(relative)).toBe(false);
    const out = await tempDir();
    expect((await build({ contentDir: relative, outDir: out })).diagnostics.map((d) => d.code)).toEqual(['unknown-genre']);
    await editsAsClean(absolute, out, [
      ['a rename, the folder named by its absolute path', 'a.yaml', (t) => t.replace('"Alpha"', '"Zeta"'), true],
      ['an item added', 'c.yaml', (t) => t + genreItem('c:2', 'Aaa', 'Comedy'), true],
      // The warning's line may move: the whole build finds it again, whatever the folder's name.
      [
        'a description in the file with the warning',
        'b.yaml',
        (t) => t.replace('  name: "Gamma"\n', '  name: "Gamma"\n  description: "One"\n'),
        false,
      ],
    ]);
    await editsAsClean(relative, out, [
      ['that item removed, the folder named relative again', 'c.yaml', (t) => t.replace(/- id: "c:2"[\s\S]*/, ''), true],
    ]);
    await editFile(absolute, 'a.yaml', (t) => t.replace('"Beta"', '"Bb"'));
    const parsed = new Set<string>();
    const whole = await build({ contentDir: absolute, outDir: out, parsed });
    expect(whole.edited).toBeUndefined();
    // Not b.yaml: its result is kept beside the output by the last whole build. c.yaml's last edit
    // kept its result in the record of edits, which a whole build does not read.
    expect([...parsed].sort()).toEqual([path.join(absolute, 'a.yaml'), path.join(absolute, 'c.yaml')]);
  }, 60_000);

  it('take a release: a new version, name, description or logo writes the manifest and the pages, as a clean build', async () => {
    const { content, out } = await builtOnce();
    const settings = (edit: (text: string) => string) => editFile(content, 'addon.yaml', edit);
    const steps: [string, () => Promise<unknown>, boolean][] = [
      ['a new version', () => settings((t) => t.replace('version: 1.0.0', 'version: 1.1.0')), true],
      ['a new name and a logo', () => settings((t) => t.replace('name: Benchmark', 'name: Films\nlogo: https://example.org/logo.png')), true],
      ['a comment', () => settings((t) => `# Released\n${t}`), true],
      [
        'a release with a rename',
        async () => {
          await settings((t) => t.replace('version: 1.1.0', 'version: 1.2.0'));
          await editFile(content, 'movies/00001.yaml', RENAMED);
        },
        true,
      ],
      // Over the official SDK's limit: a warning (manifest-too-large), then none.
      ['a long description', () => settings((t) => t.replace(/^description: .*$/m, `description: ${'Long '.repeat(1700)}`)), true],
      ['a short description', () => settings((t) => t.replace(/^description: .*$/m, 'description: Short')), true],
      // What items are checked against or rendered with: the whole build.
      ['a catalog renamed', () => settings((t) => t.replace('name: Movies', 'name: All films')), false],
      ['an insecure base URL', () => settings((t) => t.replace('baseUrl: https:', 'baseUrl: http:')), false],
      // Its warning is in addon.yaml, whose lines the release moves.
      ['a release beside a warning', () => settings((t) => `# Again\n${t.replace('version: 1.2.0', 'version: 1.3.0')}`), false],
    ];
    const codes: string[][] = [];
    for (const [what, change, edited] of steps) {
      await change();
      const result = await buildAsClean(content, out, what);
      expect(result.edited, what).toBe(edited || undefined);
      codes.push(result.diagnostics.map((d) => d.code).filter((code) => code !== 'host-limit'));
    }
    expect(codes[4]).toEqual(['manifest-too-large']);
    expect(codes[5]).toEqual([]);
    expect(codes[8]).toEqual(['insecure-base-url']);
    expect(JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8'))).toMatchObject({ version: '1.3.0', name: 'Films' });
  }, 60_000);

  it('go the whole way after an edit that stopped half way, and compare the files it wrote', async () => {
    const { content, out } = await builtOnce();
    await editFile(content, 'movies/00001.yaml', RENAMED);
    const edit = await build({ contentDir: content, outDir: out });
    expect(edit.edited).toBe(true);
    const journal = (await readEditJournal(out))!;
    expect(journal.unknown.length).toBeGreaterThan(1);
    // As if the edit had stopped after writing: a file it wrote holds other bytes, which the state file does not know of.
    const damaged = journal.unknown.find((file) => file.startsWith('catalog/'))!;
    await writeFile(path.join(out, damaged), '{"metas":[]}');
    await writeEditJournal(out, { ...journal, pending: true, kept: undefined });
    const after = await build({ contentDir: content, outDir: out });
    expect(after.edited).toBeUndefined();
    expectSameTree(await readTree(out), (await cleanBuild(content)).tree, 'after the stopped edit');
  }, 60_000);

  it('compare every file after an edit whose record went missing', async () => {
    const { content, out } = await builtOnce();
    const file = path.join(content, 'movies/00001.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, RENAMED(text));
    expect((await build({ contentDir: content, outDir: out })).edited).toBe(true);
    await rm(journalFileOf(out));
    // The content as the whole build had it: its bookkeeping's fingerprints hold for every file
    // again, but the files the edit wrote are not what it says.
    await writeFile(file, text);
    await build({ contentDir: content, outDir: out });
    expectSameTree(await readTree(out), (await cleanBuild(content)).tree, 'after the record of edits went missing');
  }, 60_000);

  it('go the whole way when the catalog index an edit kept is damaged, read only by the next edit', async () => {
    const { content, out } = await builtOnce();
    for (const [at, columns] of ['[["bm:m1"]', '[["bm:m1"],[],[],[],[],[]]'].entries()) {
      const renamed = (text: string) => text.replace(/name: "[^"]*"/, `name: "Zz ${at}"`);
      await editFile(content, 'movies/00001.yaml', renamed);
      expect((await build({ contentDir: content, outDir: out })).edited).toBe(true);
      const journal = (await readEditJournal(out))!;
      const kept = keptOf(journal.kept)!;
      await writeEditJournal(out, { ...journal, kept: { ...kept, index: { ...kept.index, columns } } });
      // Nothing edited since: the build ends on what the edit kept before it reads the index.
      expect((await build({ contentDir: content, outDir: out })).reused).toBe(true);
      await editFile(content, 'movies/00002.yaml', renamed);
      expect((await build({ contentDir: content, outDir: out })).edited).toBeUndefined();
      expectSameTree(await readTree(out), (await cleanBuild(content)).tree, `after an index of columns ${columns}`);
    }
  }, 60_000);

  it('leave a whole build after them the output as a clean build does, and let it find a file put in a folder since', async () => {
    const { content, out } = await builtOnce();
    await editFile(content, 'movies/00001.yaml', RENAMED);
    expect((await build({ contentDir: content, outDir: out })).edited).toBe(true);
    // The whole way over the output the edit left, its folders as the edit stamped them.
    const whole = await build({ contentDir: content, outDir: out, reuse: false });
    expect(whole.write!.foreign).toEqual([]);
    expectSameTree(await readTree(out), (await cleanBuild(content)).tree, 'a whole build after an edit');
    // Another edit, then a file of someone else's in a folder of the output: its stamp changed.
    await editFile(content, 'movies/00002.yaml', RENAMED);
    expect((await build({ contentDir: content, outDir: out })).edited).toBe(true);
    await writeFile(path.join(out, 'meta', 'movie', 'notes.txt'), 'mine');
    const after = await build({ contentDir: content, outDir: out, reuse: false });
    expect(after.write!.foreign).toEqual(['meta/movie/notes.txt']);
  }, 60_000);

  it('go the whole way when an output file went away since', async () => {
    const { content, out } = await builtOnce();
    await rm(path.join(out, 'meta/movie/bm:m150.json'));
    await editFile(content, 'movies/00001.yaml', RENAMED);
    const after = await build({ contentDir: content, outDir: out });
    expect(after.edited).toBeUndefined();
    expectSameTree(await readTree(out), (await cleanBuild(content)).tree, 'after a file went away');
  }, 60_000);

  it('name as largest file the one a whole build names, when pages as large tie', async () => {
    // Every film a drama: the catalog's second page and its genre's, in both orders of its extras,
    // hold the same previews, the longest: the whole build names the first it writes.
    const name = (i: number) => (i >= 100 && i < 200 ? `A film with a long name, ${'n'.repeat(200)} ${i}` : `F${i}`);
    const films = Array.from({ length: 250 }, (_, i) => `- { id: "f:${i}", type: movie, name: "${name(i)}", genres: [Drama] }\n`);
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All, genres: auto }\n'),
      'a.yaml': films.join(''),
    });
    const out = await tempDir();
    const first = await build({ contentDir: content, outDir: out });
    expect(first.write?.largest.path).toBe('catalog/movie/all/skip=100.json');
    // Shorter: the largest is worked out again.
    const renamed = (text: string) => text.replace(`"${name(150)}"`, '"Short"');
    await editsAsClean(content, out, [['a name on the largest page shortened', 'a.yaml', renamed, true]]);
  }, 60_000);

  it('name as largest file the next one, when the largest files an edit keeps all become smaller', async () => {
    // Stream files larger than the one page, each larger than the film's before: more files than
    // the edit keeps (LARGEST_KEPT), so that once they shrink, the next is one it does not hold.
    const film = (i: number, streams: number) =>
      `- id: "f:${i}"\n  type: movie\n  name: "F${i}"\n  streams:\n` +
      Array.from({ length: streams }, (_, k) => `    - { url: "https://cdn.example.org/${'x'.repeat(150)}/${i}/${k}.mp4" }\n`).join('');
    const films = (shrunk: (i: number) => boolean) => () => Array.from({ length: 70 }, (_, i) => film(i, shrunk(i) ? 1 : 50 + i)).join('');
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: all, type: movie, name: All }\n'),
      'a.yaml': films(() => false)(),
    });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).write?.largest.path).toBe('stream/movie/f:69.json');
    await editsAsClean(content, out, [
      // The files it keeps, but for four: the largest is one of those.
      ['the largest 60 shrunk', 'a.yaml', films((i) => i >= 10), true],
      // All it kept: the largest is one it did not keep.
      ['the largest 64 shrunk', 'a.yaml', films((i) => i >= 6), true],
      ['one more', 'a.yaml', films((i) => i >= 5), true],
    ]);
  }, 60_000);

  it('go the whole way when an edit changes the manifest, which files an item has, or what is warned of', async () => {
    const one = (streams: string, subtitles: string) => `- id: "a:1"\n  type: movie\n  name: "One"\n  streams:\n${streams}${subtitles}`;
    const withHint = '    - { url: "https://cdn.example.org/1.mp4", name: CDN, behaviorHints: { filename: "one.mp4" } }\n';
    const subtitles = '  subtitles:\n    - { lang: eng, url: "https://subs.example.org/1.srt" }\n';
    const two = (extra: string) =>
      `- id: "b:1"\n  type: movie\n  name: "Two"\n  streams:\n    - { url: "https://cdn.example.org/2.mp4", name: CDN }\n${extra}`;
    const content = await contentDir({
      'addon.yaml': addonYaml('catalogs:\n  - { id: films, type: movie, name: Films, sort: name }\n'),
      'one.yaml': one(withHint, subtitles),
      'two.yaml': two(''),
    });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const edits: FileEdit[] = [
      ['a rename', 'two.yaml', () => two('').replace('"Two"', '"Deux"'), true],
      // The subtitles resource's id prefixes are those of the titles with subtitles.
      ['subtitles for the other prefix', 'two.yaml', () => two(subtitles).replace('"Two"', '"Deux"'), false],
      // The subtitles file asked for with the stream's file name goes.
      ['no file name', 'one.yaml', () => one('    - { url: "https://cdn.example.org/1.mp4", name: CDN }\n', subtitles), false],
      // Subtitles without a stream: hosts without rewrites miss their requests (subtitles-need-rewrites).
      ['no stream', 'one.yaml', () => one('    []\n', subtitles).replace('streams:\n    []', 'streams: []'), false],
    ];
    await editsAsClean(content, out, edits);
  }, 60_000);
});

describe("the CLI's builds after items are added or removed", () => {
  /** A film of the content below: genres Drama or Comedy, and a stream. */
  const film = (id: string, name: string, genre = 'Drama') =>
    `- id: "f:${id}"\n  type: movie\n  name: "${name}"\n  genres: [${genre}]\n  streams: [{ url: "https://example.org/${id}.mp4" }]\n`;
  const films = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => film(String(from + i).padStart(4, '0'), `Film ${from + i}`, (from + i) % 3 ? 'Drama' : 'Comedy')).join(
      '',
    );
  const addon = addonYaml(
    'catalogs:\n  - { id: by-name, type: movie, name: By name, sort: name, genres: auto }\n  - { id: as-read, type: movie, name: As read }\n',
  );

  it('write what a clean build writes: the pages after them moved, the last page with them, and the files of items removed gone', async () => {
    // 200 films: the lists end at a page's end, and `skip=200` is the empty page.
    const content = await contentDir({ 'addon.yaml': addon, 'a.yaml': films(0, 150), 'b.yaml': films(150, 50) });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const first = (text: string) => film('aaa', 'Aaaa first') + text;
    const edits: FileEdit[] = [
      // At the front of the sorted catalog: every page after it moves, and `skip=201` is the empty one.
      ['a film first by name', 'a.yaml', first, true],
      ['that film removed', 'a.yaml', (text) => text.replace(film('aaa', 'Aaaa first'), ''), true],
      ['two films, at the end of a file', 'b.yaml', (text) => text + film('zz1', 'Zz one') + film('zz2', 'Zz two', 'Comedy'), true],
      [
        'a film removed, one added in one file',
        'b.yaml',
        (text) => text.replace(film('0150', 'Film 150', 'Comedy'), film('new', 'New', 'Drama')),
        true,
      ],
      // A file with no item keeps no result (validate/index.ts, checkItemFiles): an edit takes it as holding none.
      ['every film of a file removed', 'b.yaml', () => '', true],
      ['and added again', 'b.yaml', () => films(150, 50), true],
      // A genre no film had: the manifest lists it.
      // The manifest lists a genre of `genres: auto` some film has, the types of the catalogs and
      // titles, and the prefixes of the ids: an item added or removed that changes them takes the whole build.
      ['a film of a new genre', 'a.yaml', (text) => text + film('w', 'West', 'Western'), false],
      ['the one film of that genre removed', 'a.yaml', (text) => text.replace(film('w', 'West', 'Western'), ''), false],
      ['a title of a type no catalog lists', 'a.yaml', (text) => `${text}- { id: "f:s", type: series, name: "S" }\n`, false],
      ['that title removed', 'a.yaml', (text) => text.replace('- { id: "f:s", type: series, name: "S" }\n', ''), false],
      ['a film of another id prefix', 'a.yaml', (text) => text + film('x', 'X').replace('"f:x"', '"g:x"'), false],
      ['that film removed', 'a.yaml', (text) => text.replace(film('x', 'X').replace('"f:x"', '"g:x"'), ''), false],
      ['a film renamed and another added', 'a.yaml', (text) => text.replace('"Film 3"', '"Film three"') + film('y', 'Y', 'Comedy'), true],
    ];
    await editsAsClean(content, out, edits);
    const whole = await build({ contentDir: content, outDir: out, reuse: false });
    expect(whole.write?.written).toBe(0);
    expect(whole.write?.removed).toBe(0);
  }, 120_000);

  it('move pages that list ids JSON writes escaped or in several bytes, as a clean build', async () => {
    // The splice finds each preview on a page read by its id (plan/edit-pages.ts, pageElements):
    // these are written otherwise than one byte a character. Named to sort among the others.
    const oddFilm = (id: string, name: string) =>
      film(encodeURIComponent(id), name).replace(`"f:${encodeURIComponent(id)}"`, JSON.stringify(`f:${id}`));
    const odd = ['é1', 'say "hi"', '日本', '😀', "it's"].map((id, k) => oddFilm(id, `Film ${20 * k + 5}a`));
    const content = await contentDir({ 'addon.yaml': addon, 'a.yaml': films(0, 60) + odd.join(''), 'b.yaml': films(60, 80) });
    const out = await tempDir();
    const built = await build({ contentDir: content, outDir: out });
    expect(built.ok, JSON.stringify(built.diagnostics)).toBe(true);
    const first = film('aaa', 'Aaaa first');
    await editsAsClean(content, out, [
      ['a film first by name, before them all', 'b.yaml', (text) => first + text, true],
      ['one of them renamed', 'a.yaml', (text) => text.replace('"Film 25a"', '"Film 25b"'), true],
      ['another of them added', 'a.yaml', (text) => text + oddFilm('ü "2"', 'Film 0a'), true],
      ['the first removed', 'b.yaml', (text) => text.replace(first, ''), true],
    ]);
  }, 60_000);

  it('remove the files of an item removed, and the folder of its subtitles requests, as a clean build', async () => {
    const subtitled = (id: string) =>
      `- id: "f:${id}"\n  type: movie\n  name: "S ${id}"\n  genres: [Drama]\n` +
      `  streams: [{ url: "https://example.org/${id}.mp4", behaviorHints: { filename: "${id}.mp4" } }]\n` +
      `  subtitles: [{ lang: eng, url: "https://example.org/${id}.srt" }]\n`;
    const content = await contentDir({ 'addon.yaml': addon, 'a.yaml': films(0, 20) + subtitled('s1') + subtitled('s2') });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const folder = path.join(out, 'subtitles', 'movie', 'f:s2');
    expect((await readdir(folder)).length).toBeGreaterThan(0);
    await editsAsClean(content, out, [['a film with subtitles removed', 'a.yaml', (text) => text.replace(subtitled('s2'), ''), true]]);
    await expect(readdir(folder)).rejects.toThrow();
    // Its subtitles requests' folder is new: the whole build makes it.
    await editsAsClean(content, out, [['and added again', 'a.yaml', (text) => text + subtitled('s2'), false]]);
  }, 60_000);

  it("take a film's file copied or deleted, as a clean build: one film a file, as `init` writes them", async () => {
    const one = (id: string, name: string, genre = 'Drama') =>
      `id: "f:${id}"\ntype: movie\nname: "${name}"\ngenres: [${genre}]\nstreams: [{ url: "https://example.org/${id}.mp4" }]\n`;
    const files = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`films/f${i}.yaml`, one(String(i), `Film ${i}`, i % 2 ? 'Drama' : 'Comedy')]),
    );
    const content = await contentDir({ 'addon.yaml': addon, ...files });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const steps: [what: string, change: () => Promise<void>, edited: boolean][] = [
      ['a file copied, first by name', () => writeFile(path.join(content, 'films/f2b.yaml'), one('2b', 'Aaa sequel')), true],
      ['a file deleted', () => rm(path.join(content, 'films/f4.yaml')), true],
      ['a file at the end of the order read', () => writeFile(path.join(content, 'films/g.yaml'), one('g', 'Gg')), true],
      [
        'two files deleted and one copied',
        async () => {
          await rm(path.join(content, 'films/f5.yaml'));
          await rm(path.join(content, 'films/g.yaml'));
          await writeFile(path.join(content, 'films/f1b.yaml'), one('1b', 'Film 1 again', 'Comedy'));
        },
        true,
      ],
      // Its names are the first of those GitHub Pages needs the Actions workflow for (":"), the
      // host report's examples: the state file lists the output's paths, which give the next.
      ['the first film by id deleted', () => rm(path.join(content, 'films/f0.yaml')), true],
      // A genre no film had: the manifest lists it.
      ['a file of a film of a new genre', () => writeFile(path.join(content, 'films/w.yaml'), one('w', 'West', 'Western')), false],
      // A file that holds nothing: no result kept for it, and its bytes not measured.
      ['an empty file', () => writeFile(path.join(content, 'films/empty.yaml'), ''), true],
      ['that file deleted', () => rm(path.join(content, 'films/empty.yaml')), true],
      ["a film's file emptied, its film commented out", () => writeFile(path.join(content, 'films/f1b.yaml'), '# later\n'), true],
      ['its film back', () => writeFile(path.join(content, 'films/f1b.yaml'), one('1b', 'Film 1 again', 'Comedy')), true],
      ['another film in its place', () => writeFile(path.join(content, 'films/f1b.yaml'), `# later\n${one('1c', 'Film 1 more')}`), true],
    ];
    for (const [what, change, edited] of steps) {
      await change();
      expect((await buildAsClean(content, out, what)).edited, what).toBe(edited || undefined);
    }
  }, 60_000);

  it('find the files a checkout rewrote as they were, with a byte order mark, CRLF, a lone CR or wide characters, and take edits of each', async () => {
    const one = (id: string, name: string, eol = '\n') =>
      [`id: "f:${id}"`, 'type: movie', `name: "${name}"`, 'genres: [Drama]', `streams: [{ url: "https://example.org/${id}.mp4" }]`, ''].join(eol);
    const files: Record<string, string> = {
      'films/plain.yaml': one('p', 'Plain'),
      'films/bom.yaml': `\ufeff${one('b', 'Bom')}`,
      'films/crlf.yaml': one('c', 'Crlf', '\r\n'),
      'films/cr.yaml': one('r', 'Lone', '\r'),
      'films/wide.yaml': one('w', 'Wide 日本😀'),
      // Measured as holding nothing (-1), after the checkout too.
      'films/none.yaml': '# nothing yet\n',
    };
    const content = await contentDir({ 'addon.yaml': addon, ...files });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    // What the next edit compares each file with: its text's fingerprint and bytes.
    const keptFiles = async () =>
      keptOf((await readEditJournal(out))?.kept)?.files.map(([relative, , fingerprint, bytes]) => [relative, fingerprint, bytes]);
    const before = await keptFiles();
    expect(before?.length).toBe(7);
    expect(before).toContainEqual(['films/none.yaml', expect.any(String), -1]);
    for (const [relative, text] of Object.entries(files)) await writeFile(path.join(content, relative), text);
    // Settled, so that the build after the checkout keeps what it found (load/read.ts, SETTLED_MS).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // Each file found as it was: the last build stands, as when nothing was rewritten.
    const checkout = await buildAsClean(content, out, 'a checkout');
    expect([checkout.edited, checkout.reused]).toEqual([undefined, true]);
    expect(await keptFiles()).toEqual(before);
    for (const relative of Object.keys(files).filter((file) => file !== 'films/none.yaml')) {
      await editsAsClean(content, out, [[`${relative} renamed`, relative, (text) => text.replace(/name: "/, 'name: "Zz '), true]]);
    }
  }, 60_000);

  it('take titles other addons describe added or removed, as a clean build, when the manifest stays as it was', async () => {
    const title = (id: string, type = 'movie', added = '  streams: [{ url: "https://example.org/s.mp4" }]\n') =>
      `- id: "${id}"\n  type: ${type}\n${added}`;
    const content = await contentDir({
      'addon.yaml': addonYaml(),
      'a.yaml': title('tt1:1:1', 'series') + title('tt2') + title('tt3'),
      'b.yaml': title('tt4') + title('tt5:1:1', 'series'),
    });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const subtitlesOnly = '  subtitles: [{ lang: eng, url: "https://example.org/s.srt" }]\n';
    await editsAsClean(content, out, [
      ['a film added', 'b.yaml', (text) => text + title('tt6'), true],
      ['a film removed', 'a.yaml', (text) => text.replace(title('tt2'), ''), true],
      ['an episode added', 'a.yaml', (text) => text + title('tt7:2:1', 'series'), true],
      // The manifest's types come as the titles give them: series first, then movie.
      ['a film first of all', 'a.yaml', (text) => title('tt8') + text, false],
      ['and removed', 'a.yaml', (text) => text.replace(title('tt8'), ''), false],
      // Subtitles alone: the subtitles resource is declared for it, and hosts without rewrites miss its requests.
      ['subtitles without a stream', 'b.yaml', (text) => text + title('tt9', 'movie', subtitlesOnly), false],
      // A warning counts them (subtitles-need-rewrites), at the first: another changes it, or one fewer.
      ['another, in the other file', 'a.yaml', (text) => text + title('tt12', 'movie', subtitlesOnly), false],
      ['that one removed', 'a.yaml', (text) => text.replace(title('tt12', 'movie', subtitlesOnly), ''), false],
      ['the first removed', 'b.yaml', (text) => text.replace(title('tt9', 'movie', subtitlesOnly), ''), false],
      ['a title of another id scheme', 'b.yaml', (text) => text + title('kitsu:1'), false],
      [
        'the last episode of a series removed, then a film added',
        'b.yaml',
        (text) => text.replace(title('tt5:1:1', 'series'), '') + title('tt10'),
        true,
      ],
    ]);
    // A title that adds nothing, or takes another's id, is reported by the whole build.
    for (const [what, added] of [
      ['a title that adds nothing', '- { id: "tt11", type: movie }\n'],
      ['an id taken', title('tt4')],
    ] as const) {
      await editFile(content, 'b.yaml', (text) => text + added);
      const result = await build({ contentDir: content, outDir: out });
      expect(result.ok, what).toBe(false);
      expect(result.edited, what).toBeUndefined();
      await editFile(content, 'b.yaml', (text) => text.replace(added, ''));
    }
  }, 60_000);

  it('go the whole way to report an id taken, or one that differs from another only in case', async () => {
    const content = await contentDir({ 'addon.yaml': addon, 'a.yaml': films(0, 30) + film('abc', 'Abc'), 'b.yaml': films(30, 30) });
    const out = await tempDir();
    expect((await build({ contentDir: content, outDir: out })).ok).toBe(true);
    const before = await readTree(out);
    for (const [what, added] of [
      ['an id another file has', film('0001', 'Again')],
      // The same id prefix: only their files' paths tell (plan/conflicts.ts).
      ['an id in another case', film('ABC', 'Again')],
    ] as const) {
      await editFile(content, 'b.yaml', (text) => text + added);
      const result = await build({ contentDir: content, outDir: out });
      expect(result.ok, what).toBe(false);
      expect(result.edited, what).toBeUndefined();
      expect(
        result.diagnostics.map((d) => d.code),
        what,
      ).toContain(what === 'an id another file has' ? 'duplicate-id' : 'case-conflict');
      expectSameTree(await readTree(out), before, what);
      await editFile(content, 'b.yaml', (text) => text.replace(added, ''));
    }
    // Items that clash only with each other, in a file of their own: each new, the clash between them.
    const series = (id: string) => `- { id: "s:${id}", type: series, name: "S ${id}", videos: [{ id: "s:v", title: V }] }\n`;
    for (const [what, file, code] of [
      ['two new ids that differ only in case', film('XYZ', 'One') + film('xyz', 'Two'), 'case-conflict'],
      ['two new ids that differ only in normalization', film('caf\u00e9', 'One') + film('cafe\u0301', 'Two'), 'case-conflict'],
      ['two new series with one video id', series('1') + series('2'), 'output-conflict'],
    ] as const) {
      await writeFile(path.join(content, 'c.yaml'), file);
      const result = await build({ contentDir: content, outDir: out });
      expect(result.ok, what).toBe(false);
      expect(
        result.diagnostics.map((d) => d.code),
        what,
      ).toContain(code);
      expectSameTree(await readTree(out), before, what);
      await rm(path.join(content, 'c.yaml'));
    }
    expect((await buildAsClean(content, out, 'both gone again')).ok).toBe(true);
  }, 60_000);
});
