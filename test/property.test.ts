// Property tests: random content folders, mostly valid, sometimes with fields of the wrong type,
// unknown keys, bad ids, or YAML text cut and pasted at random. Whatever the input, the build
// returns a result; its errors say where they are; and a successful build's files are all
// accepted by a client and page to their end. PROPERTY_RUNS=5000 runs more; PROPERTY_SEED (and
// PROPERTY_PATH, both printed on failure) replays a failure.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import util, { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { z } from 'zod';
import { build, type BuildResult } from '../src/build/index.js';
import { diagnosticJson, formatDiagnostics, type DiagnosticCode } from '../src/diagnostics/index.js';
import { loadContent, locate, sourceLineOf, type SourceFile } from '../src/load/index.js';
import { contentSchemas } from '../src/validate/schema.js';
import { derivePrefixes } from '../src/validate/index.js';
import { checkTree } from './support/walk.js';
import { readTree, removeOutput } from './support/content.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);
const PATH = process.env.PROPERTY_PATH;

/**
 * Errors that concern a whole file, not a place in it: they have a file and no line. Problems of
 * the whole output (host-limit, manifest-too-large) have neither, and are warnings.
 */
const FILE_ONLY: readonly DiagnosticCode[] = ['missing-addon-yaml', 'file-too-large', 'unreadable-file', 'symlink-not-followed'];
const WHOLE_OUTPUT: readonly DiagnosticCode[] = ['host-limit', 'manifest-too-large'];

// ---------------------------------------------------------------------------------------------
// Values: mostly what the format wants, sometimes not

const TYPES = ['movie', 'series', 'channel', 'tv'] as const;
const GENRES = ['Drama', 'Comedy', 'Horror', 'Film-Noir', 'Science Fiction', 'Animação', '日本'];

/** Mostly `clean`; `dirty` values, which the format refuses, in one of `oneIn` when `dirty` is on. */
function mostly<T, U>(clean: fc.Arbitrary<T>, dirty: fc.Arbitrary<U>, on: boolean, oneIn = 4): fc.Arbitrary<T | U> {
  return on ? fc.oneof({ weight: oneIn - 1, arbitrary: clean }, { weight: 1, arbitrary: dirty }) : clean;
}

/** Absent in most values, present in one of `oneIn`. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
);
const hex40 = fc.stringMatching(/^[0-9a-f]{40}$/);

/**
 * One item as people write them. With `dirty`, some of its values are of a kind the format
 * refuses: ids that cannot be file names or are not text, relative or broken URLs, dates that do
 * not exist, negative, fractional and infinite numbers, streams with two sources or none.
 */
function itemOf(dirty: boolean) {
  const id = mostly(
    fc.oneof({ weight: 6, arbitrary: fc.stringMatching(/^[a-z]{1,3}:[a-z0-9-]{1,10}$/) }, { weight: 1, arbitrary: fc.stringMatching(/^tt\d{7}$/) }),
    fc.oneof(
      fc.constantFrom('', '.', '..', 'a/b', 'a\\b', 'x\u0001', 'x'.repeat(201), '日本:映画'),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant([]),
    ),
    dirty,
  );
  const url = mostly(
    fc.stringMatching(/^[a-z0-9]{1,8}$/).map((s) => `https://example.org/${s}.mp4`),
    fc.constantFrom('relative/file.jpg', 'ftp://x', 'https://', 'javascript:alert(1)', 'http://[::1]/a', ''),
    dirty,
  );
  const day = fc.date({ min: new Date('1890-01-01'), max: new Date('2030-12-31'), noInvalidDate: true });
  const date = mostly(
    fc.oneof({ weight: 4, arbitrary: day.map((d) => d.toISOString().slice(0, 10)) }, { weight: 1, arbitrary: day.map((d) => d.toISOString()) }),
    fc.constantFrom('2023-02-30', '1922-13-04', '2023-01-01T25:00:00Z', 'yesterday', 1922),
    dirty,
  );
  const number = mostly(
    fc.nat({ max: 40 }),
    fc.constantFrom(-1, 1.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 1e300, 65536),
    dirty,
  );
  const stream = mostly(
    fc.oneof(
      { weight: 4, arbitrary: fc.record({ url, name: text, description: text }, { requiredKeys: ['url'] }) },
      { weight: 1, arbitrary: fc.record({ ytId: fc.stringMatching(/^[A-Za-z0-9_-]{11}$/) }) },
      { weight: 2, arbitrary: fc.record({ infoHash: hex40, fileIdx: number }, { requiredKeys: ['infoHash'] }) },
      { weight: 1, arbitrary: fc.record({ externalUrl: url }) },
      {
        weight: 1,
        arbitrary: fc.record({
          url,
          behaviorHints: fc.record({ notWebReady: fc.boolean(), bingeGroup: text, videoSize: number }, { requiredKeys: [] }),
        }),
      },
    ),
    fc.oneof(fc.record({ url, ytId: fc.constant('FC6jFoYm3xs') }), fc.record({ name: text }), fc.record({ infoHash: fc.constant('abc') })),
    dirty,
  );
  const subtitle = fc.record({ lang: mostly(fc.constantFrom('eng', 'fra', 'deu', 'por'), fc.constantFrom('english', 'EN', ''), dirty), url });
  const video = fc.record(
    {
      season: number,
      episode: number,
      title: text,
      released: date,
      streams: fc.array(stream, { maxLength: 2 }),
      subtitles: fc.array(subtitle, { maxLength: 1 }),
    },
    { requiredKeys: ['season', 'episode'] },
  );
  return fc
    .record(
      {
        id,
        type: mostly(fc.constantFrom(...TYPES), fc.constantFrom('documentary', 'a/b', ''), dirty),
        name: text,
        genres: fc.array(mostly(fc.constantFrom(...GENRES), fc.constantFrom('a/b', '', 42), dirty), { maxLength: 3 }),
        released: date,
        releaseInfo: fc.oneof(fc.constantFrom('1922', '1941–1943'), fc.nat({ max: 2030 })),
        posterShape: mostly(fc.constantFrom('poster', 'square', 'landscape'), fc.constant('wide'), dirty),
        poster: url,
        description: text,
        // Only dirty items name catalogs: which exist for their type is up to chance.
        catalogs: dirty ? fc.array(fc.constantFrom('films', 'serials', 'shows', 'missing'), { maxLength: 2 }) : fc.constant(undefined),
        streams: fc.array(stream, { maxLength: 3 }),
        subtitles: fc.array(subtitle, { maxLength: 2 }),
        videos: fc.array(video, { maxLength: 4 }),
      },
      { requiredKeys: ['id', 'type', 'name'] },
    )
    .map((i) => {
      // Videos are for series and channels, streams for the rest.
      const { videos, streams, subtitles, ...rest } = i;
      return i.type === 'series' || i.type === 'channel'
        ? { ...rest, ...(videos && { videos }) }
        : { ...rest, ...(streams && { streams }), ...(subtitles && { subtitles }) };
    });
}

const item = fc.oneof({ weight: 12, arbitrary: itemOf(false) }, { weight: 1, arbitrary: itemOf(true) });

/** A field replaced by something of the wrong type, an unknown field, a required field removed. */
const WRONG: unknown[] = [42, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN, true, null, [], ['x'], { x: 1 }, '', 'text', [[[]]]];
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('wrong' as const), value: fc.constantFrom(...WRONG), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('unknown' as const),
    key: fc.constantFrom('relased', 'title', 'genre', 'stream', '__proto__', 'constructor', 'toString', '<<', 'x'),
    value: fc.constantFrom(...WRONG),
  }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(value: unknown, m: Mutation): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (m.kind === 'unknown') {
    Object.defineProperty(copy, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
  } else if (keys.length > 0) {
    const key = keys[m.pick % keys.length]!;
    if (m.kind === 'remove') delete copy[key];
    else copy[key] = m.value;
  }
  return copy;
}

/** Cuts and pastes in the YAML text, as a careless edit or a bad merge would. */
const textEdit = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    text: fc.constantFrom(
      ':',
      ': ',
      '- ',
      '[',
      ']',
      '{',
      '}',
      '&a ',
      '*a',
      '!!str ',
      '|',
      '>',
      "'",
      '"',
      '#',
      '\t',
      '\n',
      '\r',
      '\0',
      '%',
      '@',
      '`',
      '\ufeff',
      'é',
      '\\',
      '---\n',
      '  ',
      '? ',
    ),
  }),
);

function editText(text: string, edits: readonly { kind: string; at: number; length?: number; text?: string }[]): string {
  for (const edit of edits) {
    const at = Math.floor(edit.at * text.length);
    if (edit.kind === 'delete') text = text.slice(0, at) + text.slice(at + edit.length!);
    else if (edit.kind === 'duplicate') text = text.slice(0, at + edit.length!) + text.slice(at, at + edit.length!) + text.slice(at + edit.length!);
    else text = text.slice(0, at) + edit.text! + text.slice(at);
  }
  return text;
}

const catalog = fc.record(
  {
    id: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('films', 'serials', 'shows') }, { weight: 1, arbitrary: fc.constantFrom('a/b', '', '..') }),
    type: fc.constantFrom(...TYPES),
    name: text,
    genres: fc.oneof(fc.constant('auto'), fc.array(fc.constantFrom(...GENRES), { maxLength: 3 })),
    sort: fc.constantFrom('name', '-name', 'released', '-released', 'releaseInfo', '-releaseInfo'),
    items: fc.constantFrom('all', 'listed'),
  },
  { requiredKeys: ['id', 'type', 'name'] },
);

const addon = fc.record(
  {
    id: fc.oneof({ weight: 30, arbitrary: fc.constant('org.example.property') }, { weight: 1, arbitrary: fc.constantFrom('property', '', 42) }),
    version: fc.oneof({ weight: 30, arbitrary: fc.constant('1.0.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0', 1, '') }),
    name: text,
    baseUrl: fc.constantFrom('https://example.org/addon/', 'https://user.github.io/films'),
    catalogs: fc.uniqueArray(catalog, { maxLength: 4, selector: (c) => `${c.type} ${c.id}` }),
  },
  { requiredKeys: ['id', 'version', 'name', 'catalogs'] },
);

/** A content file: one item, a list of items, or several documents, each item perhaps mutated. */
const contentFile = fc.record({
  folder: fc.constantFrom('', 'movies/', 'series/', 'a/b/'),
  extension: fc.constantFrom('.yaml', '.yml'),
  shape: fc.constantFrom('one', 'list', 'documents'),
  items: fc.array(fc.tuple(item, sometimes(mutation, 30)), { minLength: 1, maxLength: 4 }),
  edits: sometimes(fc.array(textEdit, { minLength: 1, maxLength: 3 }), 12),
  bom: fc.constantFrom(false, false, false, true),
});

const content = fc.record({
  addon,
  addonMutation: sometimes(mutation, 20),
  addonEdits: sometimes(fc.array(textEdit, { minLength: 1, maxLength: 2 }), 30),
  files: fc.array(contentFile, { minLength: 1, maxLength: 4 }),
});

type Content = typeof content extends fc.Arbitrary<infer T> ? T : never;

/** The same content with every item file cut and pasted several times: mostly broken YAML. */
const mangled = content.chain((c) =>
  fc
    .array(fc.array(textEdit, { minLength: 1, maxLength: 6 }), { minLength: c.files.length, maxLength: c.files.length })
    .map((edits): Content => ({ ...c, files: c.files.map((f, i) => ({ ...f, edits: [...(f.edits ?? []), ...edits[i]!] })) })),
);

function yamlText(value: unknown): string {
  return stringify(value, { lineWidth: 0, keepUndefined: false });
}

/** The content folder's files, as text. */
function filesOf(c: Content): Record<string, string> {
  const files: Record<string, string> = {};
  const addonValue = c.addonMutation ? mutate(c.addon, c.addonMutation) : c.addon;
  files['addon.yaml'] = editText(yamlText(addonValue), c.addonEdits ?? []);
  c.files.forEach((f, index) => {
    const items = f.items.map(([i, m]) => (m ? mutate(i, m) : i));
    const text =
      f.shape === 'one'
        ? items.map((i) => yamlText(i)).join('---\n')
        : f.shape === 'list'
          ? yamlText(items)
          : items.map((i) => `---\n${yamlText(i)}`).join('');
    files[`${f.folder}file-${index}${f.extension}`] = `${f.bom ? '\ufeff' : ''}${editText(text, f.edits ?? [])}`;
  });
  return files;
}

// ---------------------------------------------------------------------------------------------
// The properties

/** The output as a client would fetch it, from the plan, without writing it. */
async function treeOf(result: BuildResult): Promise<Map<string, Buffer>> {
  const tree = new Map<string, Buffer>();
  for (const file of result.files!) {
    if (file.copyFrom) tree.set(file.path, await readFile(file.copyFrom));
    else tree.set(file.path, Buffer.from(typeof file.body === 'function' ? file.body() : (file.body ?? '')));
  }
  return tree;
}

/** What must hold for any input. */
function checkResult(result: BuildResult, files: Record<string, string>, dir: string) {
  const lines = new Map(Object.entries(files).map(([name, text]) => [path.join(dir, name), text.split(/\r\n|\r|\n/).length]));
  for (const d of result.diagnostics) {
    const where = `${d.code} ${d.file}:${d.line}:${d.column}: ${d.message}`;
    if (WHOLE_OUTPUT.includes(d.code)) {
      expect(d.severity, where).toBe('warning');
      continue;
    }
    expect(d.file, where).toBeTruthy();
    if (d.severity !== 'error' || FILE_ONLY.includes(d.code)) continue;
    expect(d.line, where).toBeGreaterThanOrEqual(1);
    expect(d.column, where).toBeGreaterThanOrEqual(1);
    const count = lines.get(d.file!);
    if (count !== undefined) expect(d.line!, where).toBeLessThanOrEqual(count + 1);
  }
  // An unknown field is pointed at where its key is written, in a file that is valid YAML: js-yaml
  // reads some invalid text (`:a : b : c`) its own way, and the positions come from the other parser.
  const lineOf = sourceLineOf(result.sources);
  const valid = (file: string) => {
    const documents = parseAllDocuments(files[path.relative(dir, file)] ?? '', { logLevel: 'silent' });
    return Array.isArray(documents) && documents.every((document) => document.errors.length === 0);
  };
  for (const d of result.diagnostics) {
    const key = /^unknown field "([A-Za-z_<]+)"$/.exec(d.message)?.[1];
    // (null, true and false are how ~, an empty key or True read: their text differs.)
    if (d.code !== 'unknown-field' || !key || ['null', 'true', 'false'].includes(key) || !valid(d.file!)) continue;
    const at = lineOf(d.file!, d.line!)?.slice(d.column! - 1) ?? '';
    const file = JSON.stringify(files[path.relative(dir, d.file!)]?.slice(0, 300));
    expect(at.replace(/^["']/, ''), `${d.file}:${d.line}:${d.column} ${d.message} in ${file}`).toMatch(new RegExp(`^${key}`));
  }
  expect(result.ok).toBe(!result.diagnostics.some((d) => d.severity === 'error'));
  // Every diagnostic prints, for people and for machines.
  formatDiagnostics(result.diagnostics, sourceLineOf(result.sources));
  JSON.stringify(result.diagnostics.map(diagnosticJson));
}

function valueAt(value: unknown, at: readonly (string | number)[]): unknown {
  return at.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);
}

/** Paths to every value in `value` (and one that does not exist), and each key of each mapping. */
function placesIn(value: unknown, at: (string | number)[] = [], places: [(string | number)[], string?][] = []): [(string | number)[], string?][] {
  places.push([at]);
  if (at.length > 6 || places.length > 400) return places;
  if (Array.isArray(value)) value.forEach((v, i) => placesIn(v, [...at, i], places));
  else if (typeof value === 'object' && value !== null) {
    places.push([[...at, 'missing']], [at, 'missing']);
    for (const [k, v] of Object.entries(value)) {
      places.push([at, k]);
      placesIn(v, [...at, k], places);
    }
  }
  return places;
}

async function inFolder<T>(files: Record<string, string>, run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-property-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const settings = { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: PATH !== undefined };

describe('random content', () => {
  it(
    `builds without throwing, locates every error, and writes only files a client accepts (${RUNS} runs, seed ${SEED})`,
    async () => {
      let built = 0;
      let failed = 0;
      const codes = new Map<string, number>();
      const examples = new Map<string, string>();
      await fc.assert(
        fc.asyncProperty(content, async (c) => {
          const files = filesOf(c);
          await inFolder(files, async (dir) => {
            const result = await build({ contentDir: dir, hosts: [] });
            checkResult(result, files, dir);
            if (!result.ok) {
              failed++;
              for (const d of result.diagnostics.filter((x) => x.severity === 'error')) examples.set(d.code, `${d.path}: ${d.message}`);
              for (const code of new Set(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)))
                codes.set(code, (codes.get(code) ?? 0) + 1);
              return;
            }
            built++;
            checkTree(await treeOf(result));
          });
        }),
        settings,
      );
      // The arbitraries must produce both: content that builds, and content that does not.
      const tally = `${built} built, ${failed} refused; refused for: ${[...codes]
        .sort((a, b) => b[1] - a[1])
        .map(([c, n]) => `${c} ${n} (${examples.get(c)})`)
        .join(', ')}`;
      if (process.env.PROPERTY_RUNS) console.log(tally);
      expect(built, tally).toBeGreaterThan(RUNS / 10);
      expect(failed, tally).toBeGreaterThan(RUNS / 10);
    },
    Math.max(60_000, RUNS * 600),
  );

  it(
    `reports mangled YAML text at a place in its file, never by throwing (${RUNS} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(mangled, async (c) => {
          const files = filesOf(c);
          await inFolder(files, async (dir) => {
            const result = await build({ contentDir: dir, hosts: [] });
            checkResult(result, files, dir);
            if (result.ok) checkTree(await treeOf(result));
          });
        }),
        settings,
      );
    },
    Math.max(60_000, RUNS * 600),
  );

  it(
    `locates a place through its item alone exactly where the whole file says (${RUNS} runs)`,
    async () => {
      // Where the item does not parse alone, locate parses the whole file, which gives the same
      // answer slower: count those, so that a broken shortcut does not hide behind the fallback.
      let alone = 0;
      let fallback = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(content, mangled), async (c) => {
          const files = filesOf(c);
          await inFolder(files, async (dir) => {
            const loaded = await loadContent(dir);
            const whole = new Map<SourceFile, SourceFile>();
            const values = loaded.addon ? [loaded.addon] : [];
            for await (const value of loaded.items) if (!('known' in value)) values.push(value);
            for (const value of values) {
              if (!value.source.spans) continue; // read by the careful parser: whole already
              // Mangled text can read differently to the two parsers ("----" is a list to js-yaml):
              // positions can only agree where the values do.
              const documents = parseAllDocuments(value.source.text, { logLevel: 'silent' });
              const document = Array.isArray(documents) ? documents[value.document] : undefined;
              const same = document && document.errors.length === 0 && isDeepStrictEqual(valueAt(document.toJS(), value.at), value.value);
              if (!same) continue;
              if (!whole.has(value.source))
                whole.set(value.source, { ...value.source, spans: undefined, piece: undefined, parsed: undefined, lines: undefined });
              for (const [nodePath, key] of placesIn(value.value)) {
                const at = [...value.at, ...nodePath];
                const where = `${value.source.relative} ${JSON.stringify(at)} ${key ?? ''} in ${JSON.stringify(value.source.text.slice(0, 200))}`;
                expect(locate(value.source, value.document, at, key), where).toEqual(locate(whole.get(value.source)!, value.document, at, key));
              }
              if (value.source.piece?.parsed) alone++;
              else fallback++;
            }
          });
        }),
        settings,
      );
      expect(fallback, `${alone} items located alone, ${fallback} through the whole file`).toBeLessThan((alone + fallback) / 20);
    },
    Math.max(60_000, RUNS * 600),
  );

  it(
    `writes the same files it plans, and they pass the same checks (${Math.ceil(RUNS / 10)} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(content, async (c) => {
          const files = filesOf(c);
          await inFolder(files, async (dir) => {
            const out = `${dir}-out`;
            try {
              const result = await build({ contentDir: dir, outDir: out, hosts: [] });
              checkResult(result, files, dir);
              if (!result.ok) return;
              const written = await readTree(out);
              expect([...written.keys()].sort()).toEqual(result.files!.map((f) => f.path).sort());
              checkTree(written);
            } finally {
              await removeOutput(out);
            }
          });
        }),
        { ...settings, numRuns: Math.ceil(RUNS / 10) },
      );
    },
    Math.max(60_000, RUNS * 600),
  );
});

describe('derived idPrefixes', () => {
  it('are the candidates no other candidate is a prefix of, as the pairwise definition says', () => {
    // Short ids over a small alphabet, so that prefixes of one another are common.
    const id = fc.string({ unit: fc.constantFrom('a', 'b', ':', 't'), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(id, { maxLength: 40 }), (ids) => {
        const candidates = [...new Set(ids.map((i) => (i.indexOf(':') > 0 ? i.slice(0, i.indexOf(':') + 1) : i)))].sort();
        const pairwise = candidates.filter((p) => !candidates.some((other) => other !== p && p.startsWith(other)));
        expect(derivePrefixes(ids)).toEqual(pairwise);
      }),
      { numRuns: RUNS * 5, seed: SEED },
    );
  });
});

describe('the compiled item schema', () => {
  /** A URL field: an absolute URL, a local file that is there or missing, or neither. */
  const link = fc.constantFrom('https://example.org/a', 'images/a.jpg', 'missing.jpg', 'ftp://x', '');
  /** Streams of the sources and fields `item` leaves out, some of them wrong. */
  const otherStream = fc.oneof(
    fc.record(
      {
        rarUrls: fc.array(fc.oneof(link, fc.tuple(link), fc.tuple(link, fc.constantFrom(0, 10, -1, 1.5)), fc.constant([])), { maxLength: 2 }),
        fileIdx: fc.constantFrom(0, 3, 65535, 65536),
        fileMustInclude: fc.array(fc.constantFrom('\\.mkv$', ''), { maxLength: 2 }),
      },
      { requiredKeys: ['rarUrls'] },
    ),
    fc.record(
      {
        infoHash: fc.constantFrom('D73EB438A907D090402C802D7C5700893A34BD83', 'd73eb438a907d090402c802d7c5700893a34bd8', 42),
        announce: fc.array(fc.constantFrom('tracker:udp://t.example.org:80', ''), { maxLength: 2 }),
      },
      { requiredKeys: ['infoHash'] },
    ),
    fc.record({ externalUrl: link, androidTvUrl: link, tizenUrl: link, webosUrl: link }, { requiredKeys: [] }),
    fc.record({ playerFrameUrl: link, thumbnail: link, name: text, fileIdx: fc.constant(1) }, { requiredKeys: ['playerFrameUrl'] }),
    fc.record(
      {
        url: link,
        subtitles: fc.array(
          fc.record({ id: fc.constantFrom('s', ''), lang: fc.constantFrom('eng', 'EN'), url: link }, { requiredKeys: ['lang', 'url'] }),
          { maxLength: 2 },
        ),
        behaviorHints: fc.record(
          {
            notWebReady: fc.constantFrom(true, 'yes'),
            countryWhitelist: fc.array(fc.constantFrom('usa', 'US'), { maxLength: 2 }),
            proxyHeaders: fc.record(
              { request: fc.dictionary(fc.constantFrom('Referer', 'User-Agent'), fc.constantFrom('x', 1)), response: fc.constant({}) },
              { requiredKeys: [] },
            ),
            videoSize: fc.constantFrom(1, -1, 2.5),
            videoHash: text,
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['url'] },
    ),
  );
  /** Items with the fields `item` leaves out: links, hints, trailers, video ids, more dates. */
  const otherItem = fc.record(
    {
      id: fc.constantFrom('pd:a', 'CON', 'x.'),
      type: fc.constantFrom('movie', 'series'),
      name: fc.constantFrom('A', ''),
      logo: link,
      background: link,
      runtime: fc.constantFrom('94 min', 94, true),
      released: fc.constantFrom('1968-10-01 20:00', '1968-10-01T20:00:00+02:00', '1968-10-01t20:00:00.123456789z', '2024-02-29', '2023-02-29'),
      links: fc.array(fc.record({ name: text, category: fc.constantFrom('Cast', ''), url: link }, { requiredKeys: ['name', 'category'] }), {
        maxLength: 2,
      }),
      behaviorHints: fc.record({ defaultVideoId: fc.constantFrom('pd:a:1:1', ''), hasScheduledVideos: fc.boolean() }, { requiredKeys: [] }),
      trailerStreams: fc.array(fc.record({ ytId: fc.constantFrom('FC6jFoYm3xs', '') }), { maxLength: 1 }),
      streams: fc.array(otherStream, { maxLength: 3 }),
      videos: fc.array(
        fc.record(
          {
            id: fc.constantFrom('v1', 'a/b'),
            title: text,
            season: fc.constantFrom(0, 1, -1),
            thumbnail: link,
            overview: text,
            streams: fc.array(otherStream, { maxLength: 2 }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
      catalogs: fc.array(fc.constantFrom('films', 'a/b'), { maxLength: 2 }),
    },
    { requiredKeys: ['id', 'type', 'name'] },
  );

  it(`gives what the runtime parser gives, valid or not (${RUNS * 5} runs)`, () => {
    const schemas = contentSchemas((file) =>
      file.endsWith('.jpg') && file !== 'missing.jpg'
        ? { url: `https://example.org/addon/assets/${file}` }
        : { message: `"${file}" is missing`, params: { code: 'missing-asset' } },
    );
    // Strict: an item schema that could not be compiled would compare the runtime with itself.
    const compiled = z.compile(schemas.item, { strict: true });
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(fc.oneof(item, otherItem), sometimes(mutation, 3), (value, m) => {
        const input = m ? mutate(value, m) : value;
        const runtime = schemas.item.safeParse(input, { reportInput: true });
        const fast = compiled.safeParse(input, { reportInput: true });
        // Node's comparison, not vitest's: vitest compares `constructor` properties, and an item's
        // own `constructor: .nan` is not equal to itself.
        const same = (a: unknown, b: unknown) =>
          expect(isDeepStrictEqual(a, b), `${util.inspect(a, { depth: 9 })}\n${util.inspect(b, { depth: 9 })}`).toBe(true);
        if (runtime.success) {
          valid++;
          same(fast.data, runtime.data);
          // Objects are written as they come out of the parser: their keys' order is output too.
          expect(JSON.stringify(fast.data)).toBe(JSON.stringify(runtime.data));
        } else {
          invalid++;
          same(fast.error?.issues, runtime.error.issues);
        }
      }),
      { ...settings, numRuns: RUNS * 5 },
    );
    expect(valid).toBeGreaterThan(RUNS / 2);
    expect(invalid).toBeGreaterThan(RUNS / 2);
  });
});
