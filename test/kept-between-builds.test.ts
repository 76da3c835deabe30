// Builds that keep what they found for the next (build/index.ts, keptBetweenBuilds), as serve
// --watch does: a file whose text and settings are as they were is neither parsed nor checked
// again (validate/checked-files.ts), an unchanged item's preview is not measured again
// (plan/preview-sizes.ts), and every build ends as a clean one would, with the same problems.
import { execFileSync } from 'node:child_process';
import { cp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build, keptBetweenBuilds, type BuildOptions, type BuildResult, type KeptBetweenBuilds } from '../src/build/index.js';
import { keptBeside, startKeeping } from '../src/build/kept-store.js';
import { CheckedFiles, storedBytes, type StoredFile } from '../src/validate/checked-files.js';
import { loadContent } from '../src/load/index.js';
import { PreviewSizes } from '../src/plan/preview-sizes.js';
import { keptFileOf, stateFileOf } from '../src/write/index.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';

const settings = (config: string) =>
  addonYaml(`baseUrl: https://example.org/addon/\n${config}catalogs:\n  - { id: films, type: movie, name: Films }\n`);
const QUALITY = 'config: [ { key: quality, type: select, options: [sd, hd] } ]\n';
const files = {
  'addon.yaml': settings(QUALITY),
  'a.yaml': [
    '- { id: "m:1", type: movie, name: One, streams: [ { url: "https://example.org/1.mp4", when: { quality: hd } } ] }',
    '- { id: "m:2", type: movie, name: Two, streams: [ { url: "https://example.org/2.mp4" } ] }',
    '',
  ].join('\n'),
  'b.yaml': '- { id: "m:3", type: movie, name: Three }\n- { id: "m:4", type: movie, name: Four, genres: [Drama] }\n',
  'c.yaml': 'id: "m:5"\ntype: movie\nname: "Five ${TITLE}"\n',
  'd.yaml': 'id: "m:6"\ntype: movie\nname: Six\nposter: poster.png\n',
  'poster.png': Buffer.from('PNG, not really a picture'),
};

/** Keeps `kept` beside `out` as a build does, all at once. */
async function keepBeside(out: string, kept: KeptBetweenBuilds): Promise<void> {
  const keeping = await startKeeping(out, kept);
  await keeping?.finish();
}

/** The item files a build with `checked` would not parse: those it kept, unchanged since. */
async function knownFiles(dir: string, checked: CheckedFiles): Promise<string[]> {
  const loaded = await loadContent(dir, { known: (file) => checked.has(file) });
  const known: string[] = [];
  for await (const next of loaded.items) if ('known' in next) known.push(next.known.relative);
  return known.sort();
}

/** That `result`, of a build into `out`, is what a clean build of the same content gives. */
async function expectClean(result: BuildResult, dir: string, out: string, env: Record<string, string>, step: string) {
  const cleanOut = await tempDir();
  const clean = await build({ contentDir: dir, outDir: cleanOut, env, reuse: false });
  expect(result.ok, step).toBe(clean.ok);
  // Which configurations' folders went is news only to a build into a folder that held them.
  const own = result.diagnostics.filter((d) => d.code !== 'removed-configurations');
  expect(own, step).toEqual(clean.diagnostics);
  if (clean.ok) expect(await readTree(out), step).toEqual(await readTree(cleanOut));
  await rm(cleanOut, { recursive: true, force: true });
}

/**
 * The two ways builds keep what they found: in a caller's memory (serve --watch), and in the file
 * that a build of the CLI leaves beside its output folder for the next (build/kept-store.ts).
 */
const KEEPING = [
  {
    where: 'in memory',
    options: (kept: KeptBetweenBuilds): Partial<BuildOptions> => ({ reuse: false, kept }),
    checked: (kept: KeptBetweenBuilds) => kept.checkedFiles,
  },
  {
    where: 'beside the output folder',
    options: (): Partial<BuildOptions> => ({}),
    checked: async (_: KeptBetweenBuilds, out: string) => (await keptBeside(out, true)).checkedFiles,
  },
];

describe.each(KEEPING)('builds that keep what each file became $where', ({ where, options, checked: checkedOf }) => {
  it('parse only the files that changed, and end as a clean build after each change', async () => {
    const dir = await contentDir(files);
    const out = await tempDir();
    const kept = keptBetweenBuilds();
    const env = { TITLE: 'Hello' };
    const rebuild = () => build({ contentDir: dir, outDir: out, env, ...options(kept) });
    const known = async () => knownFiles(dir, await checkedOf(kept, out));
    const write = (name: string, text: string) => writeFile(path.join(dir, name), text);

    await expectClean(await rebuild(), dir, out, env, 'first');
    // A variable and a local file make what a file becomes depend on more than its text.
    expect(await known()).toEqual(['a.yaml', 'b.yaml']);

    const steps: [string, () => Promise<unknown>][] = [
      ['a name changed', () => write('b.yaml', files['b.yaml'].replace('Three', 'Drei'))],
      // Reported in a.yaml, with b.yaml's item (taken, not parsed) as the related location.
      ['a duplicate id', () => write('a.yaml', files['a.yaml'].replace('"m:2"', '"m:3"'))],
      ['the duplicate gone', () => write('a.yaml', files['a.yaml'])],
      ['an error', () => write('b.yaml', files['b.yaml'].replace('type: movie, name: Four', 'name: Four'))],
      ['the error fixed', () => write('b.yaml', files['b.yaml'])],
      ['a variable changed', async () => (env.TITLE = 'World')],
      ['a local file gone', () => rm(path.join(dir, 'poster.png'))],
      ['the local file back', () => write('poster.png', 'PNG again')],
      // a.yaml's `when` names an option that is no longer there.
      ['the config gone', () => write('addon.yaml', settings(''))],
      // An option no item names is a warning; the one a.yaml names (taken, not checked) is not.
      ['an option added', () => write('addon.yaml', settings(QUALITY.replace(' ]', ', { key: extras, type: checkbox } ]')))],
    ];
    for (const [step, change] of steps) {
      await change();
      await expectClean(await rebuild(), dir, out, env, step);
    }
    expect((await rebuild()).diagnostics.map((d) => d.code)).toEqual(['unused-config']);
    expect(await known()).toEqual(['a.yaml', 'b.yaml']);
    // A file with a problem is checked again by the next build.
    await write('b.yaml', files['b.yaml'].replace('"m:3", type: movie, ', '"m:3", '));
    expect((await rebuild()).ok).toBe(false);
    expect(await known()).toEqual(['a.yaml']);
  });

  it('check a kept file again once a variable set now guards a value in it', async () => {
    const dir = await contentDir({
      ...files,
      'b.yaml': '- { id: "m:3", type: movie, name: Three, streams: [ { url: "https://example.org/k-2f9a8c7d6e.mp4" } ] }\n',
    });
    const out = await tempDir();
    const kept = keptBetweenBuilds();
    const env: Record<string, string> = { TITLE: 'Hello' };
    const rebuild = () => build({ contentDir: dir, outDir: out, env, ...options(kept) });
    await expectClean(await rebuild(), dir, out, env, 'first');
    expect(await knownFiles(dir, await checkedOf(kept, out))).toContain('b.yaml');
    env.CDN_TOKEN = 'k-2f9a8c7d6e';
    const guarded = await rebuild();
    expect(guarded.diagnostics.map((d) => [d.code, d.file && path.basename(d.file)])).toContainEqual(['secret-in-output', 'b.yaml']);
    await expectClean(guarded, dir, out, env, 'a guarded value');
  });

  it('take playlists and tables as they were read: channels of two playlists merged, problems located in a table', async () => {
    const playlist = (host: string) =>
      `#EXTINF:-1 tvg-id="news" group-title="News",News One\nhttp://${host}/news.m3u8\n#EXTINF:-1,Café ${host}\nhttp://${host}/cafe.ts\n`;
    const yaml = 'id: "m:9"\ntype: movie\nname: Nine\n';
    const dir = await contentDir({
      'addon.yaml': addonYaml(
        'catalogs:\n  - { id: channels, type: tv, name: Channels, genres: auto }\n  - { id: films, type: movie, name: Films }\n',
      ),
      'a.m3u': playlist('a.example.org'),
      'b.m3u': playlist('b.example.org'),
      'films.csv': 'id,type,name,genres,url\npd:a,movie,A,Drama|Horror,https://example.org/a.mp4\npd:b,movie,B,,https://example.org/b.mp4\n',
      'c.yaml': yaml,
    });
    const out = await tempDir();
    const kept = keptBetweenBuilds();
    const env = {};
    const rebuild = () => build({ contentDir: dir, outDir: out, env, ...options(kept) });
    const write = (name: string, text: string) => writeFile(path.join(dir, name), text);
    await expectClean(await rebuild(), dir, out, env, 'first');
    // On disk, playlists are parsed again: the channels that several of them list are merged by their playlists.
    const playlists = where === 'in memory' ? ['a.m3u', 'b.m3u'] : [];
    expect(await knownFiles(dir, await checkedOf(kept, out))).toEqual([...playlists, 'c.yaml', 'films.csv']);
    const steps: [string, () => Promise<unknown>][] = [
      ['a YAML file edited', () => write('c.yaml', yaml.replace('Nine', 'Neun'))],
      ['a playlist edited', () => write('b.m3u', playlist('b2.example.org'))],
      // Reported at the table's row (taken, not parsed), the later of the two.
      ['an id a table row has', () => write('c.yaml', yaml.replace('m:9', 'pd:b'))],
      ['the id changed back', () => write('c.yaml', yaml)],
    ];
    for (const [step, change] of steps) {
      await change();
      const result = await rebuild();
      await expectClean(result, dir, out, env, step);
      if (step === 'an id a table row has')
        expect(result.diagnostics.map((d) => [d.file && path.basename(d.file), d.line])).toEqual([['films.csv', 3]]);
    }
  });

  it('sort catalogs with kept items into the order a clean build gives, ties as read', async () => {
    const sorted = addonYaml(
      'catalogs:\n  - { id: films, type: movie, name: Films, sort: name }\n  - { id: dated, type: movie, name: Dated, sort: -released }\n',
    );
    const movie = (id: string, name: string, released = '2001-01-01') => `- { id: "${id}", type: movie, name: "${name}", released: "${released}" }\n`;
    const a = movie('m:1', 'Same') + movie('m:2', 'Film 10') + movie('m:3', 'Film 9', '1999-05-05');
    const b = movie('m:4', 'Same') + movie('m:5', 'same') + movie('m:6', 'Alpha', '2020-02-02');
    const dir = await contentDir({ 'addon.yaml': sorted, 'a.yaml': a, 'b.yaml': b });
    const out = await tempDir();
    const kept = keptBetweenBuilds();
    const rebuild = () => build({ contentDir: dir, outDir: out, ...options(kept) });
    const write = (name: string, text: string) => writeFile(path.join(dir, name), text);
    await expectClean(await rebuild(), dir, out, {}, 'first');
    const steps: [string, () => Promise<unknown>][] = [
      ['a film renamed to the front', () => write('a.yaml', a.replace('Film 9', 'Aardvark'))],
      // Equal names and dates: the items read first come first, whatever the last order was.
      ['ties read in another order', () => write('b.yaml', movie('m:5', 'same') + movie('m:4', 'Same') + movie('m:6', 'Alpha', '2020-02-02'))],
      ['a tie moved to the file read first', () => Promise.all([write('a.yaml', movie('m:5', 'same') + a), write('b.yaml', movie('m:4', 'Same'))])],
      ['a film added, one gone', () => write('b.yaml', movie('m:7', 'Film 2', '2010-10-10'))],
    ];
    for (const [step, change] of steps) {
      await change();
      await expectClean(await rebuild(), dir, out, {}, step);
    }
  });
});

describe('builds that keep the sizes of previews', () => {
  it('measure the previews of the edited file’s items again, and no other', async () => {
    const dir = await contentDir({ ...files, 'c.yaml': 'id: "m:5"\ntype: movie\nname: Five\n', 'd.yaml': 'id: "m:6"\ntype: movie\nname: Six\n' });
    const measured: string[] = [];
    class Counted extends PreviewSizes {
      override sizeOf(id: string, fingerprint: string, measure: () => number): number {
        return super.sizeOf(id, fingerprint, () => (measured.push(id), measure()));
      }
    }
    const kept = { ...keptBetweenBuilds(), previewSizes: new Counted() };
    const rebuild = async () => {
      measured.length = 0;
      expect((await build({ contentDir: dir, outDir: await tempDir(), reuse: false, kept })).ok).toBe(true);
      return measured.sort();
    };
    expect(await rebuild()).toEqual(['m:1', 'm:2', 'm:3', 'm:4', 'm:5', 'm:6']);
    expect(await rebuild()).toEqual([]);
    await writeFile(path.join(dir, 'b.yaml'), files['b.yaml'].replace('Three', 'Drei'));
    expect(await rebuild()).toEqual(['m:3', 'm:4']);
    // Settings are part of what every preview is rendered from.
    await writeFile(path.join(dir, 'addon.yaml'), files['addon.yaml'].replace('https://example.org/addon/', 'https://example.org/other/'));
    expect(await rebuild()).toEqual(['m:1', 'm:2', 'm:3', 'm:4', 'm:5', 'm:6']);
  });
});

describe('the file a build keeps beside its output folder', () => {
  // What `stored()` gave, changed by a test, as what a build reads back.
  const restoredFrom = (context: string, files: StoredFile[]) =>
    CheckedFiles.restore(
      context,
      files.map((stored) => ({ file: stored.file, fingerprint: stored.fingerprint, read: () => storedBytes(stored) })),
    );
  const build1 = (dir: string, out: string) => build({ contentDir: dir, outDir: out, env: {} });

  it('is what the next build takes for a file as it was, instead of parsing it, under the same settings', async () => {
    const addon = files['addon.yaml'].replace('name: Films', 'name: "Films \${DESC}"');
    const dir = await contentDir({ 'addon.yaml': addon, 'a.yaml': files['a.yaml'], 'b.yaml': files['b.yaml'] });
    const out = await tempDir();
    const rebuild = (env: Record<string, string>, reuse = true) => build({ contentDir: dir, outDir: out, env, reuse });
    const first = await rebuild({ DESC: 'old' });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    // What b.yaml became, changed where only a build that takes it instead of parsing b.yaml would show it.
    const tamper = async () => {
      const { checkedFiles, previewSizes } = await keptBeside(out, true);
      const stored = [...checkedFiles.stored()].map((file) => {
        if (path.basename(file.file) !== 'b.yaml') return file;
        const result = JSON.parse(Buffer.from(storedBytes(file)).toString('utf8')) as { items: { values: { name: string }[] } };
        result.items.values[0]!.name = 'Taken, not parsed';
        return { ...file, result: JSON.stringify(result) };
      });
      await keepBeside(out, { checkedFiles: restoredFrom(checkedFiles.storedContext!, stored), previewSizes });
    };
    // The catalog page, rendered again when an item of a.yaml changes (b.yaml's own files are not:
    // their inputs are as they were).
    let edits = 0;
    const namesAfterEdit = async (build: () => Promise<BuildResult>) => {
      await writeFile(path.join(dir, 'a.yaml'), files['a.yaml'].replace('name: One', `name: One ${++edits}`));
      expect((await build()).ok).toBe(true);
      const page = JSON.parse(await readFile(path.join(out, 'catalog', 'movie', 'films.json'), 'utf8')) as { metas: { name: string }[] };
      return page.metas.map((meta) => meta.name).slice(1);
    };
    await tamper();
    // Without reuse it is not read: every file is parsed.
    expect(await namesAfterEdit(() => rebuild({ DESC: 'old' }, false))).toEqual(['Two', 'Three', 'Four']);
    await tamper();
    // A variable that nothing uses changes nothing a file becomes.
    expect(await namesAfterEdit(() => rebuild({ DESC: 'old', UNUSED: 'set' }))).toEqual(['Two', 'Taken, not parsed', 'Four']);
    // One that addon.yaml uses may: every file is checked again.
    expect(await namesAfterEdit(() => rebuild({ DESC: 'new', UNUSED: 'set' }))).toEqual(['Two', 'Three', 'Four']);
    // A release: a new version, name, description or logo checks no item otherwise.
    await tamper();
    const release = addon
      .replace('version: 1.0.0', 'version: 1.1.0')
      .replace('name: Test Addon', 'name: Renamed')
      .replace('description: For tests', 'description: Released\nlogo: https://example.org/logo.png');
    await writeFile(path.join(dir, 'addon.yaml'), release);
    expect(await namesAfterEdit(() => rebuild({ DESC: 'new', UNUSED: 'set' }))).toEqual(['Two', 'Taken, not parsed', 'Four']);
    // Any other setting may: a catalog's name.
    await writeFile(path.join(dir, 'addon.yaml'), release.replace('Films', 'Movies'));
    expect(await namesAfterEdit(() => rebuild({ DESC: 'new', UNUSED: 'set' }))).toEqual(['Two', 'Three', 'Four']);
  });

  it('gives a clean build’s every file when only it is left of the last build', async () => {
    // The bundled example (series with videos, subtitles, a playlist, a table, local files) and
    // titles that Cinemeta describes, with values YAML shares through an anchor.
    const dir = await tempDir();
    await cp(path.resolve('content'), dir, { recursive: true });
    await cp(path.resolve('examples/streams/titles.yaml'), path.join(dir, 'described-elsewhere.yaml'));
    const shared = '- { id: "tt0000001", type: movie, streams: [ &s { url: "https://example.org/one.mp4", name: One } ] }\n';
    await writeFile(path.join(dir, 'anchored.yaml'), `${shared}- { id: "tt0000002", type: movie, streams: [ *s ] }\n`);
    // A series whose subtitles are not local files, which are checked each time.
    const series = await readFile(path.join(dir, 'series', 'superman.yaml'), 'utf8');
    const copy = series.replaceAll('pd:superman-1941', 'pd:superman-again').replaceAll('../subtitles/', 'https://example.org/subtitles/');
    await writeFile(path.join(dir, 'series', 'again.yaml'), copy);
    const out = await tempDir();
    const first = await build({ contentDir: dir, outDir: out });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    const taken = await knownFiles(dir, (await keptBeside(out, true)).checkedFiles);
    expect(taken).toEqual(expect.arrayContaining(['anchored.yaml', 'described-elsewhere.yaml', 'movies/forties.yaml', 'series/again.yaml']));
    // The output and its bookkeeping gone: every file is rendered again, from what was taken.
    await rm(out, { recursive: true, force: true });
    await rm(stateFileOf(out), { force: true });
    await expectClean(await build({ contentDir: dir, outDir: out }), dir, out, {}, 'from what was kept alone');
  });

  it('is read only when whole: a cut or damaged one is as none, and a build repairs it', async () => {
    const dir = await contentDir({ 'addon.yaml': files['addon.yaml'], 'a.yaml': files['a.yaml'], 'b.yaml': files['b.yaml'] });
    const out = await tempDir();
    expect((await build1(dir, out)).ok).toBe(true);
    const kept = keptFileOf(out);
    const whole = await readFile(kept);
    expect(await knownFiles(dir, (await keptBeside(out, true)).checkedFiles)).toEqual(['a.yaml', 'b.yaml']);

    // Cut short: its index is gone, and nothing is taken from it.
    await writeFile(kept, whole.subarray(0, whole.length - 10));
    expect(await knownFiles(dir, (await keptBeside(out, true)).checkedFiles)).toEqual([]);
    // The first file's result damaged, the index whole: that file alone is parsed again.
    const damaged = Buffer.from(whole);
    damaged.fill(0xff, 0, 40);
    await writeFile(kept, damaged);
    const known = await knownFiles(dir, (await keptBeside(out, true)).checkedFiles);
    expect(known).toHaveLength(1);
    await writeFile(path.join(dir, 'b.yaml'), files['b.yaml'].replace('Three', 'Drei'));
    await expectClean(await build1(dir, out), dir, out, {}, 'damaged');
    // A result that reads, but as something no build made: that file is parsed again.
    const { checkedFiles, previewSizes } = await keptBeside(out, true);
    const odd = [...checkedFiles.stored()].map((file) => ({
      ...file,
      result: JSON.stringify({
        items: { values: [null], documents: [0], paths: [[]] },
        externalTitles: { values: [], documents: [], paths: [] },
        usedKeys: [],
      }),
    }));
    await keepBeside(out, { checkedFiles: restoredFrom(checkedFiles.storedContext!, odd), previewSizes });
    expect(await knownFiles(dir, (await keptBeside(out, true)).checkedFiles)).toEqual([]);
    await writeFile(path.join(dir, 'a.yaml'), files['a.yaml'].replace('One', 'Eins'));
    await expectClean(await build1(dir, out), dir, out, {}, 'odd');
    expect(await knownFiles(dir, (await keptBeside(out, true)).checkedFiles)).toEqual(['a.yaml', 'b.yaml']);
  });

  it('is not followed when it is a link, not waited on when it is a pipe, and left as it was by a build that fails', async () => {
    const dir = await contentDir({ 'addon.yaml': files['addon.yaml'], 'a.yaml': files['a.yaml'] });
    const out = await tempDir();
    // A device that never ends: read, the build would never end either.
    await symlink('/dev/zero', keptFileOf(out));
    expect((await build1(dir, out)).ok).toBe(true);
    expect((await stat(keptFileOf(out))).isFile()).toBe(true);
    // A named pipe that nothing writes to: opened to be read, the build would wait for good.
    await rm(keptFileOf(out));
    execFileSync('mkfifo', [keptFileOf(out)]);
    await writeFile(path.join(dir, 'a.yaml'), files['a.yaml'].replace('One', 'Eins'));
    expect((await build1(dir, out)).ok).toBe(true);
    expect((await stat(keptFileOf(out))).isFile()).toBe(true);
    const before = await readFile(keptFileOf(out));
    await writeFile(path.join(dir, 'a.yaml'), files['a.yaml'].replace('type: movie, name: One', 'name: One'));
    expect((await build1(dir, out)).ok).toBe(false);
    expect((await readFile(keptFileOf(out))).equals(before)).toBe(true);
  });

  it('is left as it was by a build that fails once its content is checked, in plan or in write', async () => {
    const dir = await contentDir({ 'addon.yaml': files['addon.yaml'], 'a.yaml': files['a.yaml'], 'b.yaml': files['b.yaml'] });
    const out = await tempDir();
    expect((await build1(dir, out)).ok).toBe(true);
    const before = await readFile(keptFileOf(out));
    const unfinished = `${keptFileOf(out)}.addon-gen-tmp`;
    // Each file is valid alone; plan finds that two items' files differ only in case.
    await writeFile(path.join(dir, 'b.yaml'), files['b.yaml'].replace('"m:3"', '"M:1"'));
    const conflicted = await build1(dir, out);
    expect(conflicted.ok).toBe(false);
    expect(conflicted.diagnostics.map((d) => d.code)).toContain('case-conflict');
    expect((await readFile(keptFileOf(out))).equals(before)).toBe(true);
    await expect(stat(unfinished)).rejects.toThrow(/ENOENT/);
    // Write finds a file where the output has a folder, and stops.
    await writeFile(path.join(dir, 'b.yaml'), files['b.yaml'].replace('Three', 'Drei'));
    await rm(path.join(out, 'meta'), { recursive: true });
    await writeFile(path.join(out, 'meta'), 'in the way');
    await expect(build1(dir, out)).rejects.toThrow(/is a file, where the build writes a folder/);
    expect((await readFile(keptFileOf(out))).equals(before)).toBe(true);
    await expect(stat(unfinished)).rejects.toThrow(/ENOENT/);
    // Once out of the way, the next build keeps what this content became.
    await rm(path.join(out, 'meta'));
    await expectClean(await build1(dir, out), dir, out, {}, 'after the failures');
    expect((await readFile(keptFileOf(out))).equals(before)).toBe(false);
  });
});
