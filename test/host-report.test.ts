// The host report: files and bytes against the chosen hosts' limits, and the names GitHub Pages needs the Actions workflow for.
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { hostReport, unsafeNames } from '../src/hosts/index.js';
import { addonYaml, contentDir, tempDir } from './support/content.js';

const SERIES = {
  'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'),
  's.yaml': 'id: s\ntype: series\nname: S\nvideos:\n  - { season: 1, episode: 1 }\n  - { season: 1, episode: 2 }\n',
};

describe('host report', () => {
  it('notes, not warns, that GitHub Pages needs the Actions workflow for ":" in file names', async () => {
    const result = await build({ contentDir: await contentDir(SERIES), outDir: await tempDir(), hosts: ['github-pages'] });
    // Correct content builds silently: the client needs these names.
    expect(result.diagnostics).toEqual([]);
    const [pages] = result.hosts!;
    expect(pages!.host).toBe('github-pages');
    expect(pages!.note).toContain('2 file names hold');
    expect(pages!.note).toContain('stream/series/s:1:1.json');
    expect(pages!.note).toMatch(/Actions workflow.*not from a branch/);
  });

  it('counts the paths with a folder or file name that ends in a dot or a space, and no others', () => {
    const paths = ['assets/a./x.jpg', 'assets/a /x.jpg', 'assets/x.jpg ', 'assets/x.', 'assets/a.b/x.jpg', 'assets/a b/x.jpg', 'assets/.x/y.jpg'];
    const { hosts, diagnostics } = hostReport(['github-pages'], unsafeNames(paths.map((path) => ({ path }))), {
      files: 7,
      bytes: 7,
      largest: { path: 'x', bytes: 1 },
    });
    expect(diagnostics).toEqual([]);
    // The first two in sorted order: a space before a dot.
    expect(hosts[0]!.note).toMatch(/^4 file names hold characters such as ":" \(assets\/a \/x\.jpg, assets\/a\.\/x\.jpg, …\)/);
  });

  it('says nothing of file names for hosts that accept them', async () => {
    const result = await build({ contentDir: await contentDir(SERIES), outDir: await tempDir(), hosts: ['cloudflare', 's3'] });
    expect(result.diagnostics).toEqual([]);
    expect(result.hosts!.map((h) => h.note)).toEqual([undefined, undefined]);
  });

  it('measures files and bytes against the free plans and warns when over', () => {
    const files = Array.from({ length: 20_001 }, (_, i) => ({ path: `meta/movie/${i}.json` }));
    const big = { files: 20_001, bytes: 2 * 1024 ** 3, largest: { path: 'catalog/movie/all.json', bytes: 26 * 1024 ** 2 } };
    const report = hostReport(['cloudflare', 'github-pages', 'netlify'], unsafeNames(files), big);
    expect(report.hosts.map((h) => [h.host, h.limits.map((l) => [l.limit, l.value])])).toEqual([
      [
        'cloudflare',
        [
          [20_000, 20_001],
          [25 * 1024 ** 2, 26 * 1024 ** 2],
        ],
      ],
      ['github-pages', [[1024 ** 3, 2 * 1024 ** 3]]],
      ['netlify', []],
    ]);
    const messages = report.diagnostics.map((d) => d.message);
    expect(messages).toHaveLength(3);
    expect(messages[1]).toContain('catalog/movie/all.json');
    const small = hostReport(['cloudflare'], unsafeNames(files.slice(0, 10)), { files: 10, bytes: 100, largest: { path: 'x', bytes: 50 } });
    expect(small.diagnostics).toEqual([]);
  });
});
