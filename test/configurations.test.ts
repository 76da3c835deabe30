// Configurable addons on real folders: which trees a build writes and what each holds, the
// segments' names, rebuilds that touch only what changed, the limits, and `when` checked at its line.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { configurations, valueNames, type ConfigOption } from '../src/shared/configurations.js';
import { contentDir, readTree, tempDir } from './support/content.js';
import { envelopeProblems } from './support/envelope.js';
import { walkAddon } from './support/client-walk.js';
import { startS3 } from './support/s3.js';
import { BROWSER_ORIGIN, startCore } from './support/stremio-core.js';

const FIXTURE = path.resolve('test/fixtures/configurable');
const SEGMENTS = ['quality=sd,silent=true', 'quality=sd,silent=false', 'quality=hd,silent=true', 'quality=hd,silent=false'];

async function fixtureFiles(): Promise<Record<string, string>> {
  return {
    'addon.yaml': await readFile(path.join(FIXTURE, 'addon.yaml'), 'utf8'),
    'films.yaml': await readFile(path.join(FIXTURE, 'films.yaml'), 'utf8'),
  };
}

const json = (tree: Map<string, Buffer>, file: string): unknown => {
  const bytes = tree.get(file);
  if (!bytes) throw new Error(`no ${file}`);
  return JSON.parse(bytes.toString('utf8'));
};
const names = (tree: Map<string, Buffer>, file: string) => (json(tree, file) as { streams: { name: string }[] }).streams.map((s) => s.name);

describe('a configurable addon', () => {
  it('is written as one tree per configuration, each holding exactly what its values keep', async () => {
    const out = await tempDir();
    const result = await build({ contentDir: FIXTURE, outDir: out, baseUrl: 'https://example.org/repo/' });
    expect(result.diagnostics).toEqual([]);
    expect(result.counts?.configurations).toBe(4);
    const tree = await readTree(out);
    for (const [file, bytes] of tree) {
      if (file.endsWith('.json') && file !== 'vercel.json') expect(envelopeProblems(path.basename(file), bytes.toString('utf8')), file).toEqual([]);
    }

    const folders = new Set([...tree.keys()].map((f) => f.split('/')[0]!).filter((f) => f.includes('=')));
    expect([...folders].sort()).toEqual([...SEGMENTS].sort());
    for (const segment of SEGMENTS) {
      const silent = segment.endsWith('silent=true');
      const sd = segment.startsWith('quality=sd');
      const manifest = json(tree, `${segment}/manifest.json`) as { catalogs: { id: string }[]; behaviorHints: object; config?: unknown };
      expect(manifest.catalogs.map((c) => c.id)).toEqual(silent ? ['films', 'silents'] : ['films']);
      expect(manifest.behaviorHints).toEqual({ configurable: true, configurationRequired: false });
      expect(manifest.config).toBeUndefined();
      const listed = (json(tree, `${segment}/catalog/movie/films.json`) as { metas: { id: string }[] }).metas.map((m) => m.id);
      expect(listed).toEqual(silent ? ['cfg:film-1', 'cfg:film-2'] : ['cfg:film-2']);
      expect(tree.has(`${segment}/meta/movie/cfg:film-1.json`)).toBe(silent);
      if (silent) expect(names(tree, `${segment}/stream/movie/cfg:film-1.json`)).toEqual([sd ? 'SD' : 'HD']);
      expect(names(tree, `${segment}/stream/movie/cfg:film-2.json`)).toEqual(sd ? ['SD', 'Any'] : ['HD', 'Any']);
      const subtitles = (json(tree, `${segment}/subtitles/movie/cfg:film-2.json`) as { subtitles: { id: string }[] }).subtitles;
      expect(subtitles.map((s) => s.id)).toEqual(sd ? ['en'] : ['en', 'hd-only']);
      // Stremio opens `{installed URL}/../configure` to change the configuration.
      expect(tree.get(`${segment}/configure/index.html`)).toBeDefined();
    }

    // The root serves the defaults (quality=hd, silent=true), and declares the options as the SDK does.
    const root = json(tree, 'manifest.json') as { catalogs: { id: string }[]; behaviorHints: object; config: unknown };
    expect(root.behaviorHints).toEqual({ configurable: true, configurationRequired: false });
    expect(root.config).toEqual([
      { key: 'quality', type: 'select', title: 'Stream quality', options: ['sd', 'hd'], default: 'hd' },
      { key: 'silent', type: 'checkbox', title: 'Include silent films', default: 'checked' },
    ]);
    expect(root.catalogs.map((c) => c.id)).toEqual(['films', 'silents']);
    expect(names(tree, 'stream/movie/cfg:film-1.json')).toEqual(['HD']);
    expect(tree.get('catalog/movie/films.json')!.equals(tree.get('quality=hd,silent=true/catalog/movie/films.json')!)).toBe(true);

    // Host rules reach into every configuration's folder.
    const headers = tree.get('_headers')!.toString('utf8');
    expect(headers).toContain('/:config/stream/*\n  Content-Type: application/json; charset=utf-8');
    expect(tree.get('_redirects')!.toString('utf8')).toContain('/:config/subtitles/:type/:id/* /:config/subtitles/:type/:id.json 200');
    // One Cloudflare JSON 404 per resource folder of each tree.
    expect(tree.has('quality=sd,silent=false/stream/404.html')).toBe(true);
  });

  it('with configurationRequired, writes only a manifest to configure from at the root', async () => {
    const files = await fixtureFiles();
    files['addon.yaml'] = files['addon.yaml']!.replace('configurationRequired: false', 'configurationRequired: true');
    const dir = await contentDir(files);
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out });
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);
    // Cloudflare's JSON 404 pages under the resources it declares are all it has of a tree.
    const rootFiles = [...tree.keys()].filter((f) => !f.split('/')[0]!.includes('=') && !f.endsWith('/404.html')).sort();
    expect(rootFiles).toEqual([
      '.nojekyll',
      '404.html',
      '_headers',
      '_redirects',
      'configure/index.html',
      'index.html',
      'manifest.json',
      'vercel.json',
    ]);
    expect((json(tree, 'manifest.json') as { behaviorHints: object }).behaviorHints).toEqual({ configurable: true, configurationRequired: true });
    // Each configuration can be installed: it does not require configuring again.
    for (const segment of SEGMENTS) {
      expect((json(tree, `${segment}/manifest.json`) as { behaviorHints: object }).behaviorHints).toEqual({
        configurable: true,
        configurationRequired: false,
      });
    }
  });

  it('rebuilds only the files whose bytes change, in every configuration, as a clean build would write them', async () => {
    const files = await fixtureFiles();
    const dir = await contentDir(files);
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
    const edited = files['films.yaml']!.replace('https://example.com/film-2/hd.mp4', 'https://example.com/film-2/hd-new.mp4');
    await writeFile(path.join(dir, 'films.yaml'), edited);
    const again = await build({ contentDir: dir, outDir: out });
    expect(again.ok).toBe(true);
    // film-2's stream file in the root (the defaults: hd) and in the two hd configurations.
    expect(again.write?.written).toBe(3);

    const clean = await tempDir();
    expect((await build({ contentDir: dir, outDir: clean })).ok).toBe(true);
    const [a, b] = [await readTree(out), await readTree(clean)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [file, bytes] of a) expect(bytes.equals(b.get(file)!), file).toBe(true);
  });

  it('works out genres, types and id prefixes again for each configuration, and leaves out trailers none is left of', async () => {
    const dir = await contentDir({
      'addon.yaml': [
        'id: org.example.cfg',
        'version: 1.0.0',
        'name: Cfg',
        'config: [ { key: kind, type: select, options: [films, shows] } ]',
        'catalogs:',
        '  - { id: films, type: movie, name: Films, genres: auto }',
        '  - { id: shows, type: series, name: Shows, when: { kind: shows } }',
        '',
      ].join('\n'),
      'items.yaml': [
        '- { id: "m:1", type: movie, name: One, genres: [Drama], trailerStreams: [ { ytId: abc, when: { kind: shows } } ] }',
        '- { id: "m:2", type: movie, name: Two, genres: [Horror], when: { kind: shows } }',
        '- { id: "s:1", type: series, name: Show, when: { kind: shows }, videos: [ { season: 1, episode: 1 } ] }',
        '',
      ].join('\n'),
    });
    const out = await tempDir();
    const result = await build({ contentDir: dir, outDir: out, hosts: ['github-pages'] });
    expect(result.diagnostics).toEqual([]);
    const tree = await readTree(out);
    type Shown = { types: string[]; idPrefixes: string[]; catalogs: { id: string; extra: { name: string; options?: string[] }[] }[] };
    const films = json(tree, 'kind=films/manifest.json') as Shown;
    expect(films.types).toEqual(['movie']);
    expect(films.idPrefixes).toEqual(['m:']);
    expect(films.catalogs.map((c) => [c.id, c.extra.find((e) => e.name === 'genre')?.options])).toEqual([['films', ['Drama']]]);
    expect(tree.has('kind=films/catalog/movie/films/genre=Horror.json')).toBe(false);
    const shows = json(tree, 'kind=shows/manifest.json') as Shown;
    expect(shows.types).toEqual(['movie', 'series']);
    expect(shows.idPrefixes).toEqual(['m:', 's:']);
    expect(shows.catalogs[0]!.extra.find((e) => e.name === 'genre')?.options).toEqual(['Drama', 'Horror']);
    const trailers = (file: string) => (json(tree, file) as { meta: { trailerStreams?: unknown[] } }).meta.trailerStreams;
    expect(trailers('kind=films/meta/movie/m:1.json')).toBeUndefined();
    expect(trailers('kind=shows/meta/movie/m:1.json')).toEqual([{ ytId: 'abc' }]);
  });

  it('the bundled example (examples/configurable) builds silently, each configuration with its own genres', async () => {
    const out = await tempDir();
    const result = await build({ contentDir: path.resolve('examples/configurable'), outDir: out, baseUrl: 'https://example.org/films/' });
    expect(result.diagnostics).toEqual([]);
    expect(result.counts?.configurations).toBe(4);
    const tree = await readTree(out);
    type Shown = { catalogs: { id: string; extra: { name: string; options?: string[] }[] }[] };
    const sound = json(tree, 'quality=sd,silent=false/manifest.json') as Shown;
    expect(sound.catalogs.map((c) => [c.id, c.extra.find((e) => e.name === 'genre')?.options])).toEqual([['films', ['Comedy']]]);
    const all = json(tree, 'manifest.json') as Shown;
    expect(all.catalogs.map((c) => c.id)).toEqual(['films', 'silents']);
    expect(all.catalogs[0]!.extra.find((e) => e.name === 'genre')?.options).toEqual(['Comedy', 'Horror']);
  });

  it('warns of subtitles that a configuration keeps without a stream, where the host cannot answer the player for them', async () => {
    const dir = await contentDir({
      'addon.yaml':
        'id: org.example.cfg\nversion: 1.0.0\nname: Cfg\nconfig: [ { key: quality, type: select, options: [sd, hd] } ]\ncatalogs: [ { id: films, type: movie, name: Films } ]\n',
      'a.yaml': [
        '- id: "m:1"',
        '  type: movie',
        '  name: One',
        '  streams: [ { url: https://example.org/hd.mp4, when: { quality: hd } } ]',
        '  subtitles: [ { lang: eng, url: https://example.org/en.vtt } ]',
        '',
      ].join('\n'),
    });
    const pages = await build({ contentDir: dir, hosts: ['github-pages'] });
    expect(pages.diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([['subtitles-need-rewrites', 5, 'subtitles']]);
    expect((await build({ contentDir: dir, hosts: ['cloudflare'] })).diagnostics).toEqual([]);
  });

  it('names each configuration readably, the same in every build, safely on every host and file system', () => {
    const options: ConfigOption[] = [
      { key: 'quality', type: 'select', title: 'Quality', options: ['4K HDR', 'HD', 'hd', 'Français', '日本語', '720'], default: 'HD' },
      { key: 'adult', type: 'checkbox', title: 'Adult', default: false },
    ];
    const [quality] = options;
    expect([...valueNames(quality!).values()]).toEqual(['4k-hdr', 'hd', 'hd-3', 'francais', '5', '720']);
    const segments = configurations(options).map((c) => c.segment);
    expect(segments).toEqual(configurations(options).map((c) => c.segment));
    expect(segments.slice(0, 2)).toEqual(['quality=4k-hdr,adult=true', 'quality=4k-hdr,adult=false']);
    // Windows refuses <>:"/\|?* and a trailing dot or space; case-insensitive file systems merge case.
    for (const segment of segments) expect(segment).toMatch(/^[a-z0-9=,._-]+$/i);
    expect(new Set(segments.map((s) => s.toLowerCase())).size).toBe(segments.length);
  });
});

describe('configuration mistakes', () => {
  it('reports a when in addon.yaml at its line, and the limit follows maxConfigurations', async () => {
    const dir = await contentDir({
      'addon.yaml': [
        'id: org.example.cfg',
        'version: 1.0.0',
        'name: Cfg',
        'config:',
        '  - { key: lang, type: select, options: [en, fr, de, es, it, pt, nl, sv, pl] }',
        '  - { key: quality, type: select, options: [sd, hd, 4k] }',
        '  - { key: dubbed, type: checkbox }',
        '  - { key: extras, type: checkbox }',
        'catalogs:',
        '  - { id: films, type: movie, name: Films, when: { lang: [en, EN] } }',
        '',
      ].join('\n'),
      'a.yaml': '- { id: x:a, type: movie, name: A }\n',
    });
    const result = await build({ contentDir: dir });
    const codes = result.diagnostics.map((d) => [d.code, d.line, d.column, d.path]);
    expect(codes).toEqual([['too-many-configurations', 5, 3, 'config']]);
    expect(result.diagnostics[0]!.message).toContain('108 configurations');
    expect(result.diagnostics[0]!.message).toContain('"lang" multiplies them most (9 values)');

    const raised = await readFile(path.join(dir, 'addon.yaml'), 'utf8');
    await writeFile(path.join(dir, 'addon.yaml'), raised.replace('name: Cfg', 'name: Cfg\nmaxConfigurations: 108'));
    const second = await build({ contentDir: dir });
    expect(second.diagnostics.map((d) => [d.code, d.line, d.column, d.path, d.hint])).toEqual([
      ['unknown-config', 11, 63, 'catalogs[0].when.lang[1]', 'did you mean "en"?'],
      // The options no when names: each of their configurations would be a copy.
      ...[7, 8, 9].map((line, index) => [
        'unused-config',
        line,
        12,
        `config[${index + 1}].key`,
        'add when to the catalogs, items, streams or subtitles it should change, or remove the option',
      ]),
    ]);
  });

  it('refuses configurations that would multiply a large output, before laying out a single tree', async () => {
    // Four films listed on a hundred genre pages each: about 23 MiB, which one tree may write.
    const years = Array.from({ length: 100 }, (_, i) => `"${1920 + i}"`).join(', ');
    const films = Array.from({ length: 4 }, (_, i) => `- { id: "pd:f${i}", type: movie, name: Film ${i}, genres: [${years}] }`).join('\n');
    const catalogs = ['films', 'newest', 'by-name', 'picks'].map((id) => `  - { id: ${id}, type: movie, name: ${id}, genres: auto }`).join('\n');
    const settings = 'id: org.example.cfg\nversion: 1.0.0\nname: Cfg\nbaseUrl: https://example.org/films/\n';
    const plain = await contentDir({ 'addon.yaml': `${settings}catalogs:\n${catalogs}\n`, 'films.yaml': `${films}\n` });
    expect((await build({ contentDir: plain })).diagnostics).toEqual([]);

    // Ten checkboxes make 1,024 configurations, the most maxConfigurations allows: 1,025 trees of that.
    const checkboxes = Array.from({ length: 10 }, (_, i) => `  - { key: c${i}, type: checkbox }`).join('\n');
    const whens = Array.from({ length: 10 }, (_, i) => `c${i}: true`).join(', ');
    const configured = await contentDir({
      'addon.yaml': `${settings}maxConfigurations: 1024\nconfig:\n${checkboxes}\ncatalogs:\n${catalogs}\n  - { id: all, type: movie, name: All, when: { ${whens} } }\n`,
      'films.yaml': `${films}\n`,
    });
    const out = await tempDir();
    const started = performance.now();
    const result = await build({ contentDir: configured, outDir: out });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['output-too-large']);
    expect(result.diagnostics[0]!.message).toContain('files, from');
    expect(await readTree(out)).toEqual(new Map());
    // Refused from the count, not after making 1,025 trees (which take minutes): a generous bound.
    expect(performance.now() - started).toBeLessThan(20_000);

    const over = await contentDir({
      'addon.yaml': `${settings}maxConfigurations: 1025\nconfig:\n${checkboxes}\ncatalogs:\n${catalogs}\n`,
      'films.yaml': `${films}\n`,
    });
    expect((await build({ contentDir: over })).diagnostics.map((d) => [d.code, d.path])).toEqual([['invalid-value', 'maxConfigurations']]);
  });
});

describe('a configurable addon on S3', () => {
  it('gets the JSON type on every configuration’s files from upload.sh, and passes the real client', async () => {
    const s3 = await startS3();
    try {
      const out = path.join(await tempDir('addon-gen-s3-'), 'dist');
      const base = s3.bucketUrl('addons', 'films/');
      const result = await build({ contentDir: FIXTURE, outDir: out, baseUrl: base, hosts: ['s3'] });
      expect(result.diagnostics).toEqual([]);
      await s3.createBucket('addons', `${out}-s3/cors.json`);
      await s3.upload(`${out}-s3`, 'addons', 'films/');
      for (const file of [
        'quality=sd,silent=false/manifest.json',
        'quality=sd,silent=false/catalog/movie/films.json',
        'quality=hd,silent=true/stream/movie/cfg%3Afilm-1.json',
      ]) {
        const response = await fetch(base + file);
        expect(response.status, file).toBe(200);
        expect(response.headers.get('content-type'), file).toBe('application/json; charset=utf-8');
      }
      const index = await fetch(`${base}quality=sd,silent=false/configure/index.html`);
      expect(index.headers.get('content-type')).toMatch(/^text\/html/);
      const core = await startCore({ origin: BROWSER_ORIGIN, quietMs: 15 });
      try {
        const walked = await walkAddon(core, `${base}quality=sd,silent=false/manifest.json`);
        expect(walked.failures).toEqual([]);
        expect(walked.counts.streams).toBe(2);
      } finally {
        await core.stop();
      }
    } finally {
      await s3.close();
    }
  }, 120_000);
});
