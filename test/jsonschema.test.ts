// addon-gen schema: the committed schemas are fresh, the content files name them on line one, and the
// JSON Schemas agree with validation: what the build accepts they accept, what they refuse it refuses.
// ajv checks each YAML document the way the YAML language server does: draft-07, parsed by `yaml`.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { build } from '../src/build/index.js';
import { run } from '../src/cli/index.js';
import type { DiagnosticCode } from '../src/diagnostics/index.js';
import { initProject } from '../src/cli/init.js';
import { contentJsonSchemas, jsonSchemaFiles, type JsonSchema } from '../src/validate/json-schema.js';
import { contentSchemas } from '../src/validate/schema.js';
import { addonYaml, contentDir, tempDir } from './support/content.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = path.join(ROOT, 'content');
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;

/** The YAML language server's own check of `format: email` (yaml-language-server, baseValidator.ts). */
const EDITOR_EMAIL =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

function compile(schema: JsonSchema): ValidateFunction {
  // strict: a keyword ajv does not know (a typo, a 2020-12 keyword in draft-07) fails the test.
  // strictRequired only objects to `oneOf: [{required: [url]}, …]` naming properties declared beside it.
  const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('email', EDITOR_EMAIL);
  return ajv.compile(schema);
}

const generated = contentJsonSchemas();
const editor = { addon: compile(generated.addon), item: compile(generated.item) };

/** The problems ajv finds in each document of a YAML file, as the editor would read them; [] if none. */
function editorProblems(text: string, validate: ValidateFunction): string[] {
  const problems: string[] = [];
  for (const document of parseAllDocuments(text)) {
    expect(document.errors).toEqual([]);
    if (!validate(document.toJS())) {
      problems.push(...validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`));
    }
  }
  return problems;
}

/** The error codes `addon-gen validate` reports for a content folder. */
async function validateCodes(files: Record<string, string>): Promise<DiagnosticCode[]> {
  const result = await build({ contentDir: await contentDir(files) });
  return result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);
}

const CATALOGS = 'catalogs:\n  - { id: films, type: movie, name: Films }\n  - { id: shows, type: series, name: Shows }\n';
const ADDON = addonYaml(CATALOGS);
const item = (lines: string) => `id: pd:x\ntype: movie\nname: X\n${lines}`;
/** A one-element YAML list of the mapping `text`. */
const listOf = (text: string) => `- ${text.replace(/\n(?=.)/g, '\n  ')}`;

// ---------------------------------------------------------------------------------------------

describe('the schema files', () => {
  it('in schema/ are what addon-gen schema writes now', async () => {
    const names = await fg('*', { cwd: path.join(ROOT, 'schema') });
    expect(names.sort()).toEqual(jsonSchemaFiles().map((f) => f.path));
    for (const file of jsonSchemaFiles()) {
      const committed = await readFile(path.join(ROOT, 'schema', file.path), 'utf8');
      // Stale after a change to the schemas in src/validate/: run `npx addon-gen schema` at the repository root.
      expect(committed, `schema/${file.path} is stale: run npx addon-gen schema`).toBe(file.body);
    }
  });

  it('are named on the first line of every YAML file of the example and of a new project', async () => {
    const project = path.join(await tempDir(), 'my-addon');
    await initProject({ dir: project });
    for (const [root, content] of [
      [ROOT, EXAMPLE],
      [project, path.join(project, 'content')],
    ] as const) {
      const files = await fg('**/*.{yaml,yml}', { cwd: content, absolute: true });
      expect(files.length).toBeGreaterThan(2);
      for (const file of files) {
        const firstLine = (await readFile(file, 'utf8')).split('\n')[0]!;
        const ref = MODELINE.exec(firstLine)?.[1];
        expect(ref, `${file}: ${firstLine}`).toBeDefined();
        const name = path.basename(file) === 'addon.yaml' ? 'addon.schema.json' : 'item.schema.json';
        expect(path.resolve(path.dirname(file), ref!), file).toBe(path.join(root, 'schema', name));
      }
      // init writes them as this version generates them, like the repository's copy.
      for (const schema of jsonSchemaFiles()) {
        expect(await readFile(path.join(root, 'schema', schema.path), 'utf8')).toBe(schema.body);
      }
    }
  });

  it('describe fields, for hover in the editor', () => {
    const { addon, item: file } = generated as any;
    expect(addon.properties.version.description).toMatch(/semantic version/);
    expect(addon.properties.catalogs.items.properties.sort.description).toMatch(/descending/);
    const definitions = file.definitions;
    expect(Object.keys(definitions).sort()).toEqual(['item', 'stream', 'subtitle', 'video']);
    expect(definitions.item.properties.poster.description).toMatch(/file relative to this YAML file/);
    expect(definitions.stream.properties.ytId.description).toMatch(/YouTube/);
    expect(definitions.video.properties.season.description).toMatch(/specials/);
    // Every property of every object has one.
    const undescribed: string[] = [];
    const walk = (schema: any, at: string) => {
      if (!schema || typeof schema !== 'object') return;
      for (const [key, value] of Object.entries<any>(schema.properties ?? {})) {
        if (!value.description) undescribed.push(`${at}.${key}`);
      }
      for (const [key, value] of Object.entries<any>(schema)) walk(value, `${at}.${key}`);
    };
    walk(addon, 'addon');
    walk(file, 'item');
    expect(undescribed).toEqual([]);
  });
});

describe('addon-gen schema', () => {
  async function cli(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
    return { status, stdout, stderr };
  }

  it('writes both schemas, prints them and the first lines that use them, and rewrites nothing unchanged', async () => {
    const out = path.join(await tempDir(), 'schema');
    const first = await cli(['schema', '--out', out]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`  ${path.join(out, 'addon.schema.json')}  addon.yaml\n`);
    expect(first.stdout).toContain(`  ${path.join(out, 'item.schema.json')}   the item files\n`);
    expect(first.stdout).toMatch(/# yaml-language-server: \$schema=\S+\/schema\/item\.schema\.json\n/);
    for (const file of jsonSchemaFiles()) expect(await readFile(path.join(out, file.path), 'utf8')).toBe(file.body);

    const mtime = (await stat(path.join(out, 'item.schema.json'))).mtimeMs;
    const again = await cli(['schema', '--out', out]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('the item files (unchanged)');
    expect((await stat(path.join(out, 'item.schema.json'))).mtimeMs).toBe(mtime);
  });

  it('exits 2 with one line when it cannot write, and for an argument it does not take', async () => {
    const dir = await contentDir({ taken: 'a file\n' });
    const blocked = await cli(['schema', '--out', path.join(dir, 'taken')]);
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toBe(`addon-gen: --out ${path.join(dir, 'taken')}: a file is in the way of the folder\n`);
    const extra = await cli(['schema', 'content']);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toMatch(/too many arguments/);
  });
});

// ---------------------------------------------------------------------------------------------
// Agreement with validation

describe('the schemas and validation', () => {
  it('both accept every file of the example and of a new project', async () => {
    const project = path.join(await tempDir(), 'my-addon');
    await initProject({ dir: project });
    for (const content of [EXAMPLE, path.join(project, 'content')]) {
      const result = await build({ contentDir: content });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      for (const file of await fg('**/*.{yaml,yml}', { cwd: content, absolute: true })) {
        // The schema the file's first line names, as the editor would load it.
        const text = await readFile(file, 'utf8');
        const schema = JSON.parse(await readFile(path.resolve(path.dirname(file), MODELINE.exec(text.split('\n')[0]!)![1]!), 'utf8'));
        expect(editorProblems(text, compile(schema)), file).toEqual([]);
      }
    }
  });

  // Forms of the format that the example does not use.
  const accepted: { name: string; files: Record<string, string> }[] = [
    { name: 'an empty file and empty documents', files: { 'a.yaml': '', 'b.yaml': '---\n---\n' } },
    { name: 'a list of items, and several documents', files: { 'a.yaml': `${listOf(item(''))}---\n${item('').replace('pd:x', 'pd:y')}` } },
    { name: 'numbers where text is written', files: { 'a.yaml': item('releaseInfo: 1922\nruntime: 94\n') } },
    {
      name: 'an uppercase addon id, a pre-release version',
      files: { 'addon.yaml': ADDON.replace('org.example.test', 'Org.Example.Test').replace('1.0.0', '2.0.0-beta.1+build.5') },
    },
    {
      name: 'a date with a time, and one with an offset',
      files: { 'a.yaml': item('released: 1922-03-04 20:00\n'), 'b.yaml': item('released: 1922-03-04T20:00:00+01:00\n').replace('pd:x', 'pd:y') },
    },
    {
      name: 'local files where URLs go',
      files: {
        'addon.yaml': `${ADDON}baseUrl: https://example.org/addon/\nlogo: images/logo.png\n`,
        'images/logo.png': 'png',
        'movies/a.yaml': item(
          'poster: ../images/logo.png\nstreams:\n  - url: ../images/logo.png\n    subtitles: [{ lang: eng, url: ../images/logo.png }]\n',
        ),
      },
    },
    {
      name: 'archive entries as a URL, [url] and [url, bytes]',
      files: {
        'a.yaml': item('streams:\n  - zipUrls: [https://e.org/a.zip, [https://e.org/b.zip], [https://e.org/c.zip, 1048576]]\n    fileIdx: 0\n'),
      },
    },
    {
      name: 'episodes without ids and titles',
      files: { 'a.yaml': 'id: pd:s\ntype: series\nname: S\nvideos:\n  - { season: 1, episode: 1 }\n  - { season: 0, episode: 1, title: Special }\n' },
    },
    {
      name: 'the fields that need a source, beside it',
      files: {
        'a.yaml': item(
          [
            'streams:',
            '  - { infoHash: DD8255ECDC7CA55FB0BBF81323D87062DB1F6D1C, fileIdx: 1, announce: ["dht:x"], fileMustInclude: [mp4] }',
            '  - { externalUrl: "https://e.org/a", androidTvUrl: "https://e.org/b", tizenUrl: "https://e.org/c", webosUrl: "https://e.org/d" }',
            '',
          ].join('\n'),
        ),
      },
    },
    {
      name: 'an email address, cache overrides, behaviorHints',
      files: {
        'addon.yaml': `${ADDON}contactEmail: o'brien+films@mail.example.org\ncache: { maxAge: 0, meta: { maxAge: 86400 } }\nbehaviorHints: { p2p: true }\n`,
      },
    },
  ];

  it.each(accepted)('both accept $name', async ({ files }) => {
    const all = { 'addon.yaml': ADDON, ...files };
    expect(await validateCodes(all)).toEqual([]);
    for (const [name, text] of Object.entries(files)) {
      if (!/\.ya?ml$/.test(name)) continue;
      expect(editorProblems(text, name === 'addon.yaml' ? editor.addon : editor.item), name).toEqual([]);
    }
  });

  // Each with the code validate gives, so that a case cannot pass for a mistake it did not mean.
  const refused: { name: string; file: 'addon.yaml' | 'a.yaml'; text: string; code: DiagnosticCode }[] = [
    { name: 'an unknown field', file: 'a.yaml', text: item('relased: 1922-03-04\n'), code: 'unknown-field' },
    {
      name: 'an unknown field in a stream',
      file: 'a.yaml',
      text: item('streams: [{ url: "https://e.org/a.mp4", title: HD }]\n'),
      code: 'unknown-field',
    },
    { name: 'an unknown field in addon.yaml', file: 'addon.yaml', text: `${ADDON}baseurl: https://example.org/\n`, code: 'unknown-field' },
    { name: 'a missing version', file: 'addon.yaml', text: ADDON.replace('version: 1.0.0\n', ''), code: 'missing-field' },
    { name: 'a subtitle without lang', file: 'a.yaml', text: item('subtitles: [{ url: "https://e.org/a.srt" }]\n'), code: 'missing-field' },
    { name: 'a link without url', file: 'a.yaml', text: item('links: [{ name: W, category: Wikipedia }]\n'), code: 'missing-field' },
    { name: 'a number for a string id', file: 'a.yaml', text: 'id: 123\ntype: movie\nname: X\n', code: 'invalid-value' },
    { name: 'a list for a string', file: 'a.yaml', text: item('description: [a, b]\n'), code: 'invalid-value' },
    { name: 'a mapping for a list', file: 'a.yaml', text: item('genres: { Drama: 1 }\n'), code: 'invalid-value' },
    { name: 'a mapping for the list of streams', file: 'a.yaml', text: item('streams: { url: "https://e.org/a.mp4" }\n'), code: 'invalid-value' },
    { name: 'a list for a mapping', file: 'a.yaml', text: item('behaviorHints: [hasScheduledVideos]\n'), code: 'invalid-value' },
    {
      name: 'a mapping for the list of catalogs',
      file: 'addon.yaml',
      text: addonYaml('catalogs: { id: films, type: movie, name: Films }\n'),
      code: 'invalid-value',
    },
    { name: 'a bad enum value', file: 'a.yaml', text: item('posterShape: round\n'), code: 'invalid-value' },
    { name: 'a bad catalog sort', file: 'addon.yaml', text: ADDON.replace('name: Films }', 'name: Films, sort: newest }'), code: 'invalid-value' },
    { name: 'a bad catalog items', file: 'addon.yaml', text: ADDON.replace('name: Films }', 'name: Films, items: some }'), code: 'invalid-value' },
    { name: 'text for a boolean', file: 'addon.yaml', text: `${ADDON}behaviorHints: { p2p: yes }\n`, code: 'invalid-value' },
    {
      name: 'a negative season',
      file: 'a.yaml',
      text: 'id: pd:s\ntype: series\nname: S\nvideos: [{ season: -1, episode: 1 }]\n',
      code: 'invalid-value',
    },
    {
      name: 'a fractional episode',
      file: 'a.yaml',
      text: 'id: pd:s\ntype: series\nname: S\nvideos: [{ season: 1, episode: 1.5 }]\n',
      code: 'invalid-value',
    },
    {
      name: 'a fileIdx over 65535',
      file: 'a.yaml',
      text: item('streams: [{ infoHash: dd8255ecdc7ca55fb0bbf81323d87062db1f6d1c, fileIdx: 65536 }]\n'),
      code: 'invalid-value',
    },
    { name: 'a short infoHash', file: 'a.yaml', text: item('streams: [{ infoHash: abc123 }]\n'), code: 'invalid-value' },
    { name: 'an uppercase language', file: 'a.yaml', text: item('subtitles: [{ lang: ENG, url: "https://e.org/a.srt" }]\n'), code: 'invalid-value' },
    {
      name: 'a country of two letters',
      file: 'a.yaml',
      text: item('streams: [{ url: "https://e.org/a.mp4", behaviorHints: { countryWhitelist: [us] } }]\n'),
      code: 'invalid-value',
    },
    { name: 'an empty archive list', file: 'a.yaml', text: item('streams: [{ zipUrls: [] }]\n'), code: 'invalid-value' },
    {
      name: 'an archive entry of three',
      file: 'a.yaml',
      text: item('streams: [{ zipUrls: [[https://e.org/a.zip, 1, 2]] }]\n'),
      code: 'invalid-value',
    },
    {
      name: 'an archive entry with negative bytes',
      file: 'a.yaml',
      text: item('streams: [{ zipUrls: [[https://e.org/a.zip, -1]] }]\n'),
      code: 'invalid-value',
    },
    { name: 'an empty name', file: 'a.yaml', text: 'id: pd:x\ntype: movie\nname: ""\n', code: 'invalid-value' },
    { name: 'an empty URL field', file: 'a.yaml', text: item('poster: ""\n'), code: 'invalid-value' },
    { name: 'a version that is not semver', file: 'addon.yaml', text: ADDON.replace('1.0.0', '"1.0"'), code: 'invalid-value' },
    { name: 'a version that is a number', file: 'addon.yaml', text: ADDON.replace('1.0.0', '1.0'), code: 'invalid-value' },
    { name: 'an id that is not reverse-domain', file: 'addon.yaml', text: ADDON.replace('org.example.test', 'films'), code: 'invalid-value' },
    { name: 'a bad email address', file: 'addon.yaml', text: `${ADDON}contactEmail: films at example.org\n`, code: 'invalid-value' },
    { name: 'a negative cache time', file: 'addon.yaml', text: `${ADDON}cache: { maxAge: -1 }\n`, code: 'invalid-value' },
    { name: 'a cache time as text', file: 'addon.yaml', text: `${ADDON}cache: { meta: { maxAge: 1h } }\n`, code: 'invalid-value' },
    { name: 'an empty idPrefixes', file: 'addon.yaml', text: `${ADDON}idPrefixes: []\n`, code: 'invalid-value' },
    { name: 'a null field', file: 'a.yaml', text: item('description:\n'), code: 'invalid-value' },
    { name: 'a stream without a source', file: 'a.yaml', text: item('streams: [{ name: Nothing }]\n'), code: 'stream-source' },
    {
      name: 'a stream with two sources',
      file: 'a.yaml',
      text: item('streams: [{ url: "https://e.org/a.mp4", ytId: abcdefghijk }]\n'),
      code: 'stream-source',
    },
    { name: 'a fileIdx beside a url', file: 'a.yaml', text: item('streams: [{ url: "https://e.org/a.mp4", fileIdx: 1 }]\n'), code: 'invalid-value' },
    {
      name: 'announce without infoHash',
      file: 'a.yaml',
      text: item('streams: [{ zipUrls: [https://e.org/a.zip], announce: ["dht:x"] }]\n'),
      code: 'invalid-value',
    },
    {
      name: 'a TV URL without externalUrl',
      file: 'a.yaml',
      text: item('streams: [{ url: "https://e.org/a.mp4", webosUrl: "https://e.org/b" }]\n'),
      code: 'invalid-value',
    },
    { name: 'a document that is a single value', file: 'a.yaml', text: 'just text\n', code: 'not-an-item' },
    { name: 'a list in a list', file: 'a.yaml', text: '- - id: pd:x\n    type: movie\n    name: X\n', code: 'invalid-value' },
    { name: 'addon.yaml as a list', file: 'addon.yaml', text: listOf(ADDON), code: 'not-an-item' },
  ];

  it.each(refused)('both refuse $name', async ({ file, text, code }) => {
    const files = { 'addon.yaml': ADDON, [file]: text };
    expect(await validateCodes(files)).toContain(code);
    expect(editorProblems(text, file === 'addon.yaml' ? editor.addon : editor.item)).not.toEqual([]);
  });

  // Known differences: what only `addon-gen validate` refuses, because JSON Schema cannot say it or
  // because the rule is not in the zod schemas. Each is accepted by the schema, so the editor stays
  // quiet (it is never stricter than the build). A case the schema starts to refuse belongs above.
  const onlyValidate: { name: string; file: 'addon.yaml' | 'a.yaml'; text: string; code: DiagnosticCode; why: string }[] = [
    // Refinements: zod functions, not JSON Schema keywords.
    {
      name: 'an item without a name that adds nothing',
      file: 'a.yaml',
      text: 'id: pd:x\ntype: movie\n',
      code: 'missing-field',
      why: 'without a name an item adds streams or subtitles to a title another addon describes: what it needs depends on its other fields',
    },
    {
      name: 'an id with a slash',
      file: 'a.yaml',
      text: 'id: pd/x\ntype: movie\nname: X\n',
      code: 'bad-file-name',
      why: 'file names are checked by a function',
    },
    {
      name: 'a type that is ".."',
      file: 'a.yaml',
      text: 'id: pd:x\ntype: ".."\nname: X\n',
      code: 'bad-file-name',
      why: 'file names are checked by a function',
    },
    {
      name: 'a genre of 201 bytes',
      file: 'a.yaml',
      text: item(`genres: [${'é'.repeat(101)}]\n`),
      code: 'bad-file-name',
      why: 'a length in UTF-8 bytes; maxLength counts characters',
    },
    {
      name: 'a date that does not exist',
      file: 'a.yaml',
      text: item('released: 2023-02-30\n'),
      code: 'invalid-value',
      why: 'whether a day exists is computed',
    },
    {
      name: 'a date that is not a date',
      file: 'a.yaml',
      text: item('released: yesterday\n'),
      code: 'invalid-value',
      why: 'dates are read by a transform, which the schema leaves out',
    },
    {
      name: 'a link URL that is not absolute',
      file: 'a.yaml',
      text: item('links: [{ name: W, category: Wikipedia, url: wiki/Nosferatu }]\n'),
      code: 'invalid-value',
      why: 'URLs are checked with URL.canParse',
    },
    {
      name: 'a baseUrl with a query',
      file: 'addon.yaml',
      text: `${ADDON}baseUrl: https://example.org/?a=1\n`,
      code: 'invalid-value',
      why: 'URLs are checked with URL.canParse',
    },
    // Local files: the schema accepts any path, the build looks for the file.
    {
      name: 'a local file that does not exist',
      file: 'a.yaml',
      text: item('poster: images/missing.png\n'),
      code: 'missing-asset',
      why: 'the build looks at the file system',
    },
    {
      name: 'a local file outside the content folder',
      file: 'a.yaml',
      text: item('poster: ../outside.png\n'),
      code: 'asset-outside-content',
      why: 'the build looks at the file system',
    },
    {
      name: 'a local file without a base URL',
      file: 'a.yaml',
      text: item('poster: a.yaml\n'),
      code: 'base-url-required',
      why: 'baseUrl is a setting of addon.yaml',
    },
    // Checks in validate.ts, across fields and items.
    {
      name: 'a video with neither id nor episode',
      file: 'a.yaml',
      text: 'id: pd:s\ntype: series\nname: S\nvideos: [{ title: Pilot }]\n',
      code: 'missing-field',
      why: 'validate.ts: defaults from season and episode',
    },
    {
      name: 'streams on an item with videos',
      file: 'a.yaml',
      text: 'id: pd:s\ntype: series\nname: S\nstreams: [{ url: "https://e.org/a.mp4" }]\nvideos: [{ season: 1, episode: 1 }]\n',
      code: 'invalid-value',
      why: 'validate.ts: a rule across fields',
    },
    {
      name: 'two videos with one id',
      file: 'a.yaml',
      text: 'id: pd:s\ntype: series\nname: S\nvideos: [{ season: 1, episode: 1 }, { season: 1, episode: 1 }]\n',
      code: 'duplicate-video-id',
      why: 'validate.ts: across videos',
    },
    {
      name: 'a defaultVideoId of no video',
      file: 'a.yaml',
      text: item('behaviorHints: { defaultVideoId: pd:x:1:1 }\n'),
      code: 'unknown-default-video',
      why: 'validate.ts: across fields',
    },
    {
      name: 'two items with one id',
      file: 'a.yaml',
      text: `${listOf(item(''))}${listOf(item(''))}`,
      code: 'duplicate-id',
      why: 'validate.ts: across items',
    },
    {
      name: 'a catalog that does not exist',
      file: 'a.yaml',
      text: item('catalogs: [flims]\n'),
      code: 'unknown-catalog',
      why: 'validate.ts: across files',
    },
    {
      name: 'an id that no idPrefix covers',
      file: 'addon.yaml',
      text: `${ADDON}idPrefixes: ["tt"]\n`,
      code: 'invalid-value',
      why: 'validate.ts: across files, with the item pd:x',
    },
    {
      name: 'two catalogs with one type and id',
      file: 'addon.yaml',
      text: `${ADDON}  - { id: films, type: movie, name: Again }\n`,
      code: 'duplicate-catalog',
      why: 'validate.ts: across catalogs',
    },
    // The file, not a document: the language server checks each document by itself.
    {
      name: 'addon.yaml of two documents',
      file: 'addon.yaml',
      text: `${ADDON}---\n${ADDON}`,
      code: 'not-an-item',
      why: 'the editor checks each document by itself',
    },
  ];

  it.each(onlyValidate)('only validate refuses $name ($why)', async ({ file, text, code }) => {
    const files = { 'addon.yaml': ADDON, ...(file === 'a.yaml' ? {} : { 'a.yaml': item('') }), [file]: text };
    expect(await validateCodes(files)).toContain(code);
    expect(editorProblems(text, file === 'addon.yaml' ? editor.addon : editor.item)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Random documents

describe('on random documents', () => {
  // Local files resolve: the build accepts any path that names an existing file, and so must the schema.
  const zod = contentSchemas((file) => ({ url: `https://example.org/assets/${file}` }));
  const zodAcceptsItemDocument = (value: unknown) =>
    value === null || (Array.isArray(value) ? value.every((v) => zod.item.safeParse(v).success) : zod.item.safeParse(value).success);

  /** Every field name the schemas know, so that added fields are often real ones. */
  const fieldNames: string[] = [];
  const collectNames = (schema: unknown) => {
    if (schema === null || typeof schema !== 'object') return;
    const properties = (schema as { properties?: object }).properties;
    if (properties) fieldNames.push(...Object.keys(properties));
    Object.values(schema).forEach(collectNames);
  };
  collectNames(generated);

  interface Mutation {
    kind: 'set' | 'delete' | 'add';
    /** At the top of the document, where most fields are, or in the `at`th container below it. */
    top: boolean;
    at: number;
    /** The field an `add` on a mapping creates. */
    key: string;
    value: unknown;
  }

  /** Up to three mutations, with the example's own values (a season as a runtime) and edge cases. */
  function mutations(examples: unknown[]): fc.Arbitrary<Mutation[]> {
    const found: unknown[] = [];
    const collect = (value: unknown) => {
      found.push(value);
      if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
    };
    examples.forEach(collect);
    const values = fc.oneof(
      fc.constantFrom(...found),
      fc.constantFrom(
        '',
        'x',
        'pd:x',
        'a/b',
        '..',
        'eng',
        'ENG',
        'usa',
        'https://example.org/a.mp4',
        'images/a.png',
        '1922-03-04',
        '2023-02-30',
        '1.0.0',
        '1.0',
        'org.example.x',
        'Org.Example',
        'auto',
        'all',
        'listed',
        'poster',
        'round',
        '-released',
        'dd8255ecdc7ca55fb0bbf81323d87062db1f6d1c',
        'x@example.org',
        'no-email',
        'http://127.0.0.1:7000/',
      ),
      fc.constantFrom(0, 1, -1, 1.5, 65535, 65536, 2 ** 53, true, false, null, [], {}),
      fc.constantFrom(['https://example.org/a.zip', 10], ['https://example.org/a.zip'], [{ url: 'https://e.org/a.mp4' }]),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const mutation: fc.Arbitrary<Mutation> = fc.record({
      kind: fc.constantFrom('set', 'delete', 'add'),
      top: fc.boolean(),
      at: fc.nat(),
      key: fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 6 })),
      value: values,
    });
    return fc.array(mutation, { minLength: 1, maxLength: 3 });
  }

  /** A copy of the document with the mutations applied: set or delete an entry, or add one. */
  function mutate(document: unknown, changes: Mutation[]): unknown {
    const copy = structuredClone(document);
    for (const change of changes) {
      const containers: any[] = [];
      const collect = (value: unknown) => {
        if (value === null || typeof value !== 'object') return;
        containers.push(value);
        Object.values(value).forEach(collect);
      };
      collect(copy);
      const container = change.top ? containers[0] : containers[change.at % containers.length];
      const value = structuredClone(change.value);
      if (Array.isArray(container)) {
        const index = change.at % Math.max(container.length, 1);
        if (change.kind === 'add') container.push(value);
        else if (change.kind === 'delete') container.splice(index, 1);
        else container[index] = value;
      } else {
        const keys = Object.keys(container);
        const key = change.kind === 'add' || keys.length === 0 ? change.key : keys[change.at % keys.length]!;
        if (change.kind === 'delete') delete container[key];
        else container[key] = value;
      }
    }
    return copy;
  }

  /** Small documents too, where the nested objects are a good share of the places a mutation hits. */
  const SMALL = {
    addon: [
      {
        id: 'org.example.x',
        version: '1.0.0',
        name: 'X',
        catalogs: [{ id: 'c', type: 'movie', name: 'C', genres: ['Drama'] }],
        cache: { meta: { maxAge: 1 } },
      },
    ],
    items: [
      {
        id: 's',
        type: 'series',
        name: 'S',
        videos: [
          {
            season: 1,
            episode: 2,
            subtitles: [{ lang: 'fra', url: 'a.srt' }],
            streams: [{ url: 'a.mp4', behaviorHints: { countryWhitelist: ['usa'], videoSize: 1 } }],
          },
        ],
      },
      {
        id: 'm',
        type: 'movie',
        name: 'M',
        streams: [
          { zipUrls: [['https://e.org/a.zip', 1]], fileIdx: 3 },
          { infoHash: 'dd8255ecdc7ca55fb0bbf81323d87062db1f6d1c', announce: ['dht:x'] },
        ],
      },
    ],
  };

  async function exampleDocuments(): Promise<{ addon: unknown[]; items: unknown[] }> {
    const documents: { addon: unknown[]; items: unknown[] } = { addon: [...SMALL.addon], items: [...SMALL.items] };
    for (const file of await fg('**/*.yaml', { cwd: EXAMPLE, absolute: true })) {
      const values = parseAllDocuments(await readFile(file, 'utf8')).map((d) => d.toJS());
      documents[path.basename(file) === 'addon.yaml' ? 'addon' : 'items'].push(...values);
    }
    return documents;
  }

  it('the schemas never refuse what zod accepts', async () => {
    const bases = await exampleDocuments();
    const tally = { bothAccept: 0, bothRefuse: 0, onlyZodRefuses: 0 };
    for (const [kind, accepts, validate] of [
      ['items', zodAcceptsItemDocument, editor.item],
      ['addon', (v: unknown) => zod.addon.safeParse(v).success, editor.addon],
    ] as const) {
      fc.assert(
        fc.property(fc.constantFrom(...bases[kind]), mutations([...bases.addon, ...bases.items]), (base, changes) => {
          const document = mutate(base, changes);
          const zodAccepts = accepts(document);
          const editorAccepts = validate(document);
          if (zodAccepts && !editorAccepts) {
            throw new Error(`the schema refuses what zod accepts: ${JSON.stringify(validate.errors)}\n${JSON.stringify(document)}`);
          }
          tally[zodAccepts ? 'bothAccept' : editorAccepts ? 'onlyZodRefuses' : 'bothRefuse']++;
        }),
        { numRuns: 1000 },
      );
    }
    // The mutations reach both sides of the line, and the schema refuses most of what zod refuses.
    expect(tally.bothAccept).toBeGreaterThan(50);
    expect(tally.bothRefuse).toBeGreaterThan(tally.onlyZodRefuses);
  });
});
