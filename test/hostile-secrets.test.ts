// Hostile content against the variables and the secret guard (validate/secrets.ts, the reuse check of
// build/last-build.ts): scans that stay linear on floods of the tokens they look for, and secrets
// written as keys, with YAML escapes or percent-encoded, refused as the plain ones are.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../bench/scanners.js';
import { build, type BuildOptions } from '../src/build/index.js';
import { DiagnosticList } from '../src/diagnostics/index.js';
import { expandText, expandVariables, needsWalk, readEscapes, secretPolicy, secretsIn } from '../src/validate/secrets.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';

const CATALOG = 'catalogs:\n  - { id: films, type: movie, name: Films }\n';
const SECRET = 'sk-live-4f3c2b1a0e9d';
const MiB = 1024 * 1024;

/** One movie whose description is `text` as it is, in a literal block scalar. */
function itemWithDescription(text: string): string {
  return `id: a\ntype: movie\nname: A\ndescription: |-\n${text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}

async function built(files: Record<string, string>, options: Partial<BuildOptions> = {}) {
  const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), ...files });
  const out = await tempDir();
  const result = await build({ contentDir: dir, outDir: out, env: {}, ...options });
  return { result, dir, out };
}

function secretErrors(result: Awaited<ReturnType<typeof build>>) {
  return result.diagnostics.filter((d) => d.code === 'secret-in-output');
}

describe('a flood of the tokens the variable scanner looks for', () => {
  it('is published as written, found in one pass (${, $${ and ${A without a closing brace)', async () => {
    // A pattern that looked for `}` again from each `$` took 14 s for 100,000 `${`.
    for (const token of ['${', '$${', '${A']) {
      const text = token.repeat(Math.floor(MiB / token.length));
      const { result, out } = await built({ 'a.yaml': itemWithDescription(text) }, { env: { A: 'a', API_KEY: SECRET } });
      expect(
        result.diagnostics.filter((d) => d.severity === 'error'),
        token,
      ).toEqual([]);
      const meta = JSON.parse(await readFile(path.join(out, 'meta/movie/a.json'), 'utf8'));
      expect(meta.meta.description === text, token).toBe(true);
    }
  });

  it('keeps replacing and reporting the references around them', async () => {
    const flood = (middle: string) => `${'$'.repeat(100_000)} ${middle} ${'}'.repeat(100_000)}${'${'.repeat(100_000)}`;
    const env = { A: 'alpha', API_KEY: SECRET };
    const failed = await built({ 'a.yaml': itemWithDescription(flood('${A} ${API_KEY} ${B}')) }, { env });
    expect(failed.result.diagnostics.map((d) => [d.code, d.path, d.message]).sort()).toEqual([
      ['secret-in-output', 'description', 'this value would publish ${API_KEY}, a secret: everything addon-gen writes is public'],
      ['unset-variable', 'description', 'this value uses ${B}, and B is not set'],
    ]);
    expect(await readTree(failed.out)).toEqual(new Map());

    const { result, out } = await built({ 'a.yaml': itemWithDescription(flood('${A} $${A} $$${A}')) }, { env });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const meta = JSON.parse(await readFile(path.join(out, 'meta/movie/a.json'), 'utf8'));
    expect(meta.meta.description === flood('alpha ${A} $${A}')).toBe(true);

    // A `${` takes the text up to the next `}` as its name, as before: that is not a variable name.
    const invalid = await built({ 'a.yaml': itemWithDescription('${x ${A}') }, { env });
    expect(invalid.result.diagnostics.map((d) => [d.code, d.message])).toEqual([['invalid-value', '"${x ${A}" is not a variable name']]);
  });

  // One test per token: each is well within the default timeout, on a busy machine too.
  it.each(TOKENS)('of 16 MiB of %j, passes every scanner of the guard (timed by npm run bench)', (token) => {
    const env = { A: 'a', API_KEY: SECRET };
    const policy = secretPolicy(env);
    const at = Object.assign(() => ({ file: 'a.yaml', line: 1, column: 1 }), { file: 'a.yaml' });
    const count = Math.ceil((16 * MiB) / token.length);
    const text = token.repeat(count);
    const expanded = token === '${A}' ? 'a'.repeat(count) : text;
    expect(expandText(text, env) === expanded).toBe(true);
    expect(needsWalk(text, policy)).toBe(token.includes('${'));
    const diagnostics = new DiagnosticList();
    const value = { description: text, [text]: 'a key' };
    expandVariables(value, env, policy, at, diagnostics);
    expect(value.description === expanded).toBe(true);
    expect(diagnostics.list().filter((d) => d.code === 'secret-in-output')).toEqual([]);
  });
});

describe("a flood of the tokens of the schema's patterns", () => {
  it('in addon.yaml is a problem at its field, not a crash (a repeated group overflowed the regex stack)', async () => {
    const dots = 'a.'.repeat(2.5 * MiB);
    const dir = await contentDir({
      'addon.yaml': `id: ${dots}a\nversion: 1.0.0-${dots}!\nname: X\ncontactEmail: ${dots}a@${dots}-\n${CATALOG}`,
    });
    const result = await build({ contentDir: dir, env: {}, maxFileSize: 32 * MiB });
    // The id is a valid one, if long; the others are not.
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message.split(',')[0]])).toEqual([
      ['invalid-value', 'version', 'expected a semantic version such as 1.0.0'],
      ['invalid-value', 'contactEmail', 'expected an email address'],
    ]);
  });
});

describe('a secret', () => {
  const env = { API_KEY: SECRET };

  it('as a header name is refused, and no message names it', async () => {
    const item = `id: a\ntype: movie\nname: A\nstreams:\n  - url: https://e.org/a.mp4\n    behaviorHints:\n      proxyHeaders:\n        request: { "${SECRET}": x }\n`;
    const { result, out } = await built({ 'a.yaml': item }, { env });
    expect(result.ok).toBe(false);
    expect(secretErrors(result).map((d) => [path.basename(d.file!), d.line, d.column, d.path, d.message])).toEqual([
      [
        'a.yaml',
        8,
        20,
        'streams[0].behaviorHints.proxyHeaders.request',
        'a key of this mapping holds the value of API_KEY, a secret: everything addon-gen writes is public',
      ],
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toContain(SECRET);
    expect(await readTree(out)).toEqual(new Map());
  });

  it('as any key, in addon.yaml too, written with YAML escapes or not', async () => {
    const { result } = await built(
      {
        'addon.yaml': addonYaml(`${CATALOG}behaviorHints: { "\\x73${SECRET.slice(1)}": true }\n`),
        'a.yaml': `id: a\ntype: movie\nname: A\nlinks: [{ name: x, category: y, url: "https://e.org/", ${SECRET}: 1 }]\n`,
      },
      { env },
    );
    expect(secretErrors(result).map((d) => [path.basename(d.file!), d.path])).toEqual([
      ['addon.yaml', 'behaviorHints'],
      ['a.yaml', 'links[0]'],
    ]);
    // The key is not named as an unknown field either: that message would show it.
    expect(JSON.stringify(result.diagnostics)).not.toContain(SECRET);
  });

  it('written with YAML escapes is refused (the file text does not hold it; the parsed value does)', async () => {
    const forms = [
      `"\\x73${SECRET.slice(1)}"`,
      `"\\u0073\\u006B${SECRET.slice(2)}"`,
      `"\\U00000073${SECRET.slice(1)}"`,
      `"${SECRET.slice(0, 6)}\\\n   ${SECRET.slice(6)}"`,
    ];
    for (const form of forms) {
      const { result, out } = await built({ 'a.yaml': `id: a\ntype: movie\nname: A\ndescription: ${form}\n` }, { env });
      expect(
        secretErrors(result).map((d) => [d.path, d.line, d.message]),
        form,
      ).toEqual([['description', 4, 'this value holds the value of API_KEY, a secret: everything addon-gen writes is public']]);
      expect(await readTree(out), form).toEqual(new Map());
    }
  });

  it('percent-encoded in a URL, once, twice or with + for a space, is refused', async () => {
    const spaced = 'correct horse battery staple';
    const forms: [string, string][] = [
      [SECRET, `https://e.org/a.mp4?sig=${SECRET.replace(/-/g, '%2D')}`],
      [SECRET, `https://e.org/a.mp4?sig=${[...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`],
      [SECRET, `https://e.org/a.mp4?sig=${SECRET.replace(/-/g, '%252D')}`],
      [
        SECRET,
        `https://e.org/a.mp4?sig=${encodeURIComponent(encodeURIComponent(`${SECRET.slice(0, 3)}%${SECRET.charCodeAt(3).toString(16)}${SECRET.slice(4)}`))}`,
      ],
      [spaced, `https://e.org/a.mp4?p=${spaced.replace(/ /g, '+')}`],
      [spaced, `https://e.org/a.mp4?p=${encodeURIComponent(spaced)}`],
      ['pässwörd-1234', `https://e.org/a.mp4?p=${encodeURIComponent('pässwörd-1234')}`],
    ];
    for (const [secret, url] of forms) {
      const { result } = await built(
        { 'a.yaml': `id: a\ntype: movie\nname: A\nstreams:\n  - url: "${url}"\n` },
        { env: { DEPLOY_PASSWORD: secret } },
      );
      expect(
        secretErrors(result).map((d) => [d.path, d.message]),
        url,
      ).toEqual([
        [
          'streams[0].url',
          'this value holds the value of DEPLOY_PASSWORD, a secret, written encoded (percent-encoding or escapes, read as a client reads them): everything addon-gen writes is public',
        ],
      ]);
    }
  });

  it('that the environment gains after a build is found in its escaped or encoded forms before the build is reused', async () => {
    const forms = [
      `description: "\\x73${SECRET.slice(1)}"`,
      `streams: [{ url: "https://e.org/a.mp4?sig=${encodeURIComponent(encodeURIComponent(SECRET + '/'))}" }]`,
      // Through a variable that an escaped reference uses: the file's text holds no `${`.
      `streams: [{ url: "\\x24{CDN}/a.mp4" }]`,
    ];
    for (const form of forms) {
      const dir = await contentDir({ 'addon.yaml': addonYaml(CATALOG), 'a.yaml': `id: a\ntype: movie\nname: A\n${form}\n` });
      const out = await tempDir();
      const before = { CDN: `https://cdn.example.org/${SECRET}` };
      expect((await build({ contentDir: dir, outDir: out, env: before })).ok, form).toBe(true);
      const tree = await readTree(out);
      const again = await build({ contentDir: dir, outDir: out, env: { ...before, API_KEY: SECRET } });
      expect(again.reused, form).toBeUndefined();
      expect(secretErrors(again).length, form).toBe(1);
      expect(await readTree(out), form).toEqual(tree);
    }
  });

  it('is looked for in every form by one function, and files without one are not walked', () => {
    const policy = secretPolicy(env);
    expect(readEscapes('a\\x41%41%2541+\\u00e9\\U0001F600')).toBe('aAAA é😀');
    expect(needsWalk('url: https://e.org/a%20b.mp4\nname: "caf\\u00e9"\n', secretPolicy({}))).toBe(false);
    expect(needsWalk('url: "\\x24{CDN}/a.mp4"\n', secretPolicy({}))).toBe(true);
    expect(needsWalk(`url: https://e.org/?k=${SECRET.replace('-', '%2D')}\n`, policy)).toBe(true);
    expect(needsWalk('url: https://e.org/a%20b.mp4\n', policy)).toBe(false);
    expect(secretsIn(`${SECRET.slice(0, 4)}%2${SECRET.slice(4)}`, policy)).toEqual([]);
  });
});

describe('problems in an item far right on its line', () => {
  it('are located without parsing the spaces before it again, and in the same place', async () => {
    // A block sequence entry may be followed by any number of spaces; the item is then parsed
    // alone for the positions of its problems, without padding it back to its column.
    const flow = '{id: a, type: movie, name: x, genres: [[x], y, [z]]}';
    const { result } = await built({ 'a.yaml': `-${' '.repeat(MiB)}${flow}\n- id: b\n  type: movie\n  name: [x]\n` });
    const located = result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.path, d.line, d.column]);
    expect(located).toEqual([
      ['genres[0]', 1, 1 + MiB + 1 + flow.indexOf('[x]')],
      ['genres[2]', 1, 1 + MiB + 1 + flow.indexOf('[z]')],
      ['name', 4, 9],
    ]);
  });
});

describe('a secret in --base-url', () => {
  it('is refused percent-encoded too, as a pasted signed URL has it', async () => {
    const { result } = await built(
      { 'a.yaml': 'id: a\ntype: movie\nname: A\n' },
      { env: { CDN_TOKEN: SECRET }, baseUrl: `https://cdn.example.org/addon/${SECRET.replace(/-/g, '%2D')}/` },
    );
    expect(secretErrors(result).map((d) => d.message)).toEqual([
      '--base-url holds the value of CDN_TOKEN, a secret: every page and local file URL would publish it',
    ]);
  });
});

describe('"did you mean" for a long word', () => {
  it('is not worked out: an id of megabytes among hundreds of videos is reported at once', async () => {
    // The edit distance is quadratic: 4 MiB against 200 video ids ran for minutes.
    const videos = Array.from({ length: 200 }, (_, i) => `  - { id: "s:1:${i + 1}", title: E${i + 1}, season: 1, episode: ${i + 1} }`).join('\n');
    const { result } = await built({
      'a.yaml': `id: s\ntype: series\nname: S\nbehaviorHints:\n  defaultVideoId: "${'s:1:1x'.repeat(Math.floor((4 * MiB) / 6))}"\nvideos:\n${videos}\n`,
    });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.path])).toEqual([['unknown-default-video', 'behaviorHints.defaultVideoId']]);
    expect(errors[0]!.hint ?? '').not.toMatch(/did you mean/);
  });
});
