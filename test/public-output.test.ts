// What must never be published: secrets (by variable or by value), credentials in stream
// headers; and names that case-insensitive or Windows file systems would merge or refuse.
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { build, type BuildOptions } from '../src/build/index.js';
import type { Diagnostic } from '../src/diagnostics/index.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';

const CATALOG = 'catalogs:\n  - { id: films, type: movie, name: Films }\n';
const TOKEN = 'tok_9f8e7d6c5b4a';
const BIN = path.resolve('bin/addon-gen.js');

async function check(files: Record<string, string | Buffer>, options: Partial<BuildOptions> = {}) {
  const dir = await contentDir(files);
  const result = await build({ contentDir: dir, env: {}, ...options });
  const diagnostics = result.diagnostics.map((d): Diagnostic => ({ ...d, file: d.file && path.relative(dir, d.file) }));
  return { result, diagnostics, dir };
}

function codes(diagnostics: Diagnostic[], code: string): Diagnostic[] {
  return diagnostics.filter((d) => d.code === code);
}

describe('variables', () => {
  it('replace ${NAME} in any value, addon.yaml included, and $${…} stays literal', async () => {
    const out = await tempDir();
    const { result } = await check(
      {
        'addon.yaml': addonYaml(`baseUrl: \${BASE}\n${CATALOG}`),
        'a.yaml': 'id: a\ntype: movie\nname: "${TITLE} ($${NOT_A_VAR})"\nstreams: [{ url: "${CDN}/a.mp4" }]\n',
      },
      { outDir: out, env: { BASE: 'https://addon.example.org/x/', TITLE: 'Metropolis', CDN: 'https://cdn.example.org' } },
    );
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const meta = JSON.parse(await readFile(path.join(out, 'meta/movie/a.json'), 'utf8'));
    expect(meta.meta.name).toBe('Metropolis (${NOT_A_VAR})');
    const streams = JSON.parse(await readFile(path.join(out, 'stream/movie/a.json'), 'utf8'));
    expect(streams.streams[0].url).toBe('https://cdn.example.org/a.mp4');
    expect(result.manifestUrl).toBe('https://addon.example.org/x/manifest.json');
  });

  it('rebuild what uses them when only their value changed', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\nstreams: [{ url: "${CDN}/a.mp4" }]\n' });
    const out = await tempDir();
    await build({ contentDir: dir, outDir: out, env: { CDN: 'https://one.example.org' } });
    const again = await build({ contentDir: dir, outDir: out, env: { CDN: 'https://two.example.org' } });
    expect(again.write!.written).toBeGreaterThan(0);
    expect(await readFile(path.join(out, 'stream/movie/a.json'), 'utf8')).toContain('https://two.example.org/a.mp4');
  });

  it('that are not set are errors at the field that uses them', async () => {
    const { diagnostics } = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': 'id: a\ntype: movie\nname: A\nstreams:\n  - url: "${MISSING}/a.mp4"\n',
    });
    expect(codes(diagnostics, 'unset-variable')).toEqual([
      expect.objectContaining({ file: 'a.yaml', line: 5, column: 10, path: 'streams[0].url', severity: 'error' }),
    ]);
  });
});

describe('secrets', () => {
  it('are refused by name, at the field that would publish them, whatever their value', async () => {
    const { diagnostics, result } = await check(
      {
        'addon.yaml': addonYaml(CATALOG),
        'a.yaml': 'id: a\ntype: movie\nname: A\nstreams:\n  - url: "https://e.org/a.mp4?k=${TMDB_Api_Key}"\n',
      },
      { env: { TMDB_Api_Key: 'x' } },
    );
    expect(result.ok).toBe(false);
    expect(codes(diagnostics, 'secret-in-output')).toEqual([
      expect.objectContaining({ file: 'a.yaml', line: 5, column: 10, path: 'streams[0].url' }),
    ]);
  });

  it('are refused by value, however the value got into the content, files copied as they are included', async () => {
    const { diagnostics } = await check(
      {
        'addon.yaml': addonYaml(`baseUrl: https://addon.example.org/\nlogo: logo.txt\n${CATALOG}`),
        'logo.txt': `line one\nsee ${TOKEN}\n`,
        'a.yaml': `id: a\ntype: movie\nname: A\ndescription: "pasted ${TOKEN} by mistake"\nposter: "\${POSTER}"\n`,
      },
      { env: { GITHUB_TOKEN: TOKEN, POSTER: `https://e.org/p.jpg?t=${TOKEN}` } },
    );
    const found = codes(diagnostics, 'secret-in-output');
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'a.yaml', line: 4, path: 'description' }),
        expect.objectContaining({ file: 'a.yaml', line: 5, path: 'poster' }),
        expect.objectContaining({ file: 'logo.txt', line: 2, column: 5 }),
      ]),
    );
    expect(found).toHaveLength(3);
    expect(found[0]!.message).toContain('GITHUB_TOKEN');
    expect(JSON.stringify(diagnostics)).not.toContain(TOKEN);
  });

  it('include the names listed under secrets:, and publish: lets a named one through', async () => {
    const item = 'id: a\ntype: movie\nname: A\nstreams: [{ url: "https://e.org/${SIGNED}/a.mp4" }]\n';
    const env = { SIGNED: 'sig-0123456789' };
    const guarded = await check({ 'addon.yaml': addonYaml(`secrets: [SIGNED]\n${CATALOG}`), 'a.yaml': item }, { env });
    expect(codes(guarded.diagnostics, 'secret-in-output')).toHaveLength(1);

    const out = await tempDir();
    const published = await check(
      {
        'addon.yaml': addonYaml(`secrets: [SIGNED]\npublish: [SIGNED, CDN_TOKEN]\n${CATALOG}`),
        'a.yaml': item.replace('SIGNED}', 'SIGNED}/${CDN_TOKEN}'),
      },
      { env: { ...env, CDN_TOKEN: 'public-token-1' }, outDir: out },
    );
    expect(published.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(await readFile(path.join(out, 'stream/movie/a.json'), 'utf8')).toContain('sig-0123456789/public-token-1');
  });

  it('are looked for in --base-url too, and nothing is written when one is found', async () => {
    const out = await tempDir();
    const { result } = await check(
      { 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\n' },
      // In the path: a user name or password in a base URL is refused before (test/cli.test.ts).
      { outDir: out, baseUrl: `https://addon.example.org/${TOKEN}/`, env: { DEPLOY_PASSWORD: TOKEN } },
    );
    expect(codes(result.diagnostics, 'secret-in-output')).toHaveLength(1);
    expect(await readdir(out)).toEqual([]);
  });

  it('in the real environment of the command: a secret-looking variable never reaches the output', async () => {
    const dir = await contentDir({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': 'id: a\ntype: movie\nname: A\nstreams: [{ url: "https://e.org/a.mp4?auth=${MY_AUTH}" }]\n',
    });
    const out = await tempDir();
    const run = await promisify(execFile)(process.execPath, [BIN, 'build', dir, '--out', out, '--host', 'netlify'], {
      env: { ...process.env, MY_AUTH: TOKEN },
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in run ? run.code : 0).toBe(1);
    expect(run.stderr).toContain('error[secret-in-output]');
    expect(run.stderr).toContain('streams[0].url');
    expect(run.stderr).not.toContain(TOKEN);
    expect(await readdir(out)).toEqual([]);
  });
});

describe('credentials in stream headers', () => {
  const item = [
    'id: a',
    'type: series',
    'name: A',
    'videos:',
    '  - id: "a:1:1"',
    '    season: 1',
    '    episode: 1',
    '    streams:',
    '      - url: https://e.org/a.mp4',
    '        behaviorHints:',
    '          notWebReady: true',
    '          proxyHeaders:',
    '            request: { User-Agent: Stremio, authorization: "Bearer x", COOKIE: "s=1" }',
    '',
  ].join('\n');

  it('are errors at the header, in videos too, whatever its case', async () => {
    const { diagnostics, result } = await check({ 'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'), 'a.yaml': item });
    expect(result.ok).toBe(false);
    expect(codes(diagnostics, 'credentials-in-output')).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 13,
        column: 45,
        path: 'videos[0].streams[0].behaviorHints.proxyHeaders.request.authorization',
      }),
      expect.objectContaining({ severity: 'error', line: 13, column: 72, path: 'videos[0].streams[0].behaviorHints.proxyHeaders.request.COOKIE' }),
    ]);
  });

  it('are warnings with --allow-credentials-in-output', async () => {
    const { diagnostics, result } = await check(
      { 'addon.yaml': addonYaml('catalogs:\n  - { id: s, type: series, name: S }\n'), 'a.yaml': item },
      { allowCredentialsInOutput: true },
    );
    expect(result.ok).toBe(true);
    expect(codes(diagnostics, 'credentials-in-output').map((d) => d.severity)).toEqual(['warning', 'warning']);
  });
});

describe('names', () => {
  it('refuses ids that Windows cannot store: device names, trailing dots and spaces', async () => {
    const { diagnostics } = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml': [
        '- { id: CON, type: movie, name: A }',
        '- { id: nul.txt, type: movie, name: B }',
        '- { id: "c. ", type: movie, name: C }',
        '- { id: "d.", type: movie, name: D }',
        '- { id: com1x, type: movie, name: E, genres: ["Misc."] }',
        '',
      ].join('\n'),
    });
    expect(codes(diagnostics, 'bad-file-name').map((d) => [d.line, d.path])).toEqual([
      [1, 'id'],
      [2, 'id'],
      [3, 'id'],
      [4, 'id'],
    ]);
  });

  it('refuses ids that differ only in letter case, once per pair of items', async () => {
    const { diagnostics } = await check({
      'addon.yaml': addonYaml(CATALOG),
      'a.yaml':
        '- { id: "pd:Nosferatu", type: movie, name: A, streams: [{ url: "https://e.org/a.mp4", subtitles: [{ url: "https://e.org/a.srt", lang: eng }] }] }\n',
      'b.yaml': '- { id: "pd:nosferatu", type: movie, name: B, streams: [{ url: "https://e.org/b.mp4" }] }\n',
    });
    expect(codes(diagnostics, 'case-conflict')).toEqual([expect.objectContaining({ file: 'b.yaml', line: 1, severity: 'error' })]);
    expect(codes(diagnostics, 'case-conflict')[0]!.related).toEqual([expect.objectContaining({ file: expect.stringMatching(/a\.yaml$/), line: 1 })]);
  });
});

describe('the output folder', () => {
  it('may not be the home folder or the root', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG) });
    await expect(build({ contentDir: dir, outDir: os.homedir() })).rejects.toThrow(/home folder/);
    await expect(build({ contentDir: dir, outDir: path.parse(dir).root })).rejects.toThrow(/root folder/);
  });

  it('keeps others files, reports them once, and a failed build writes nothing at all', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': 'id: a\ntype: movie\nname: A\n' });
    const out = await tempDir();
    await writeFile(path.join(out, 'notes.txt'), 'mine');
    const first = await build({ contentDir: dir, outDir: out, env: {} });
    expect(codes(first.diagnostics, 'foreign-files')).toHaveLength(1);
    const tree = await readTree(out);
    await writeFile(path.join(dir, 'a.yaml'), 'id: a\ntype: movie\nname: "${NOPE}"\n');
    expect((await build({ contentDir: dir, outDir: out, env: {} })).ok).toBe(false);
    expect(await readTree(out)).toEqual(tree);
  });
});
