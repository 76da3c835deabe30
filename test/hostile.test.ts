// Hostile input: every malformed content file ends as diagnostics at the right place, with exit
// status 1 and the output folder untouched, never as an exception, a hang or a stack trace.
// The corpus in test/fixtures/hostile/ says what each file must produce; large, generated, binary
// and file-system cases are made here.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../src/build/index.js';
import { formatDiagnostics, sortDiagnostics, type Diagnostic } from '../src/diagnostics/index.js';
import { loadContent, parseByteSize, sourceLineOf, type SourceValue } from '../src/load/index.js';
import { addonYaml, contentDir, movies, readTree, tempDir } from './support/content.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/hostile/', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));
const CATALOGS = 'catalogs:\n  - { id: films, type: movie, name: Films }\n  - { id: serials, type: series, name: Serials }\n';
const isRoot = process.getuid?.() === 0;
const onWindows = process.platform === 'win32';

/** `# expect: CODE LINE:COLUMN` lines of a fixture, as `CODE LINE:COLUMN` strings; [] for `# expect: ok`. */
function expectations(bytes: Buffer): string[] {
  const header = bytes.toString('latin1').replace(/^\u00ef\u00bb\u00bf/, '');
  const lines = [...header.matchAll(/^# expect: (.+?)\r?$/gm)].map((m) => m[1]!.trim());
  expect(lines.length, 'the fixture has # expect: lines').toBeGreaterThan(0);
  return lines.includes('ok') ? [] : lines;
}

/** The diagnostics as `CODE FILE:LINE:COLUMN`, file relative to the content folder, in reading order. */
function located(result: BuildResult, dir: string): string[] {
  return sortDiagnostics(result.diagnostics).map((d) => `${d.code} ${d.file ? path.relative(dir, d.file) : '-'}:${d.line}:${d.column}`);
}

function only(diagnostics: Diagnostic[], code: string): Diagnostic {
  const found = diagnostics.filter((d) => d.code === code);
  expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
  expect(
    diagnostics.filter((d) => d.severity === 'error'),
    JSON.stringify(diagnostics, null, 2),
  ).toHaveLength(found[0]!.severity === 'error' ? 1 : 0);
  return found[0]!;
}

/** What every run must give, whatever the input: a result whose diagnostics print in every format. */
function checkPrintable(result: BuildResult) {
  const text = formatDiagnostics(result.diagnostics, sourceLineOf(result.sources));
  expect(typeof text).toBe('string');
  for (const d of result.diagnostics) {
    expect(typeof d.message).toBe('string');
    expect(d.hint === undefined || typeof d.hint === 'string', `hint of ${d.code}`).toBe(true);
  }
  JSON.stringify(result.diagnostics);
}

async function buildFiles(files: Record<string, string | Buffer>, options: { maxFileSize?: number } = {}) {
  const dir = await contentDir(files);
  const result = await build({ contentDir: dir, ...options });
  checkPrintable(result);
  return { dir, result };
}

/** An output folder with files a build did not write, and its bytes. */
async function previousOutput(): Promise<{ out: string; before: Map<string, Buffer> }> {
  const out = await tempDir('addon-gen-out-');
  await mkdir(path.join(out, 'meta', 'movie'), { recursive: true });
  await writeFile(path.join(out, 'manifest.json'), '{"id":"org.example.previous"}');
  await writeFile(path.join(out, 'meta', 'movie', 'pd:x.json'), '{"meta":{}}');
  await writeFile(path.join(out, 'CNAME'), 'addon.example.org\n');
  return { out, before: await readTree(out) };
}

/** The CLI in a process of its own; `through`, a command that runs it (setpriv and its options). */
function runCli(
  args: string[],
  cwd?: string,
  nodeFlags: string[] = [],
  through: string[] = [],
): Promise<{ status: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const name of ['FORCE_COLOR', 'NO_COLOR', 'GITHUB_ACTIONS']) delete env[name];
  const [command, ...rest] = [...through, process.execPath, ...nodeFlags, BIN, ...args];
  return new Promise((resolve) =>
    execFile(command!, rest, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/**
 * Root reads any file whatever its mode, unless it runs without the capabilities that let it:
 * as root (as CI runs), the CLI is run through setpriv (util-linux) without them.
 */
const UNPRIVILEGED = isRoot ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-dac_override,-dac_read_search', '--'] : [];

/** The command, and the peak memory of its process (resident set, in bytes), which it prints last on stderr. */
async function runMeasured(args: string[]): Promise<{ status: number; stdout: string; maxRss: number }> {
  const report = 'process.on("exit", () => process.stderr.write(`\\nmaxRSS ${process.resourceUsage().maxRSS}\\n`))';
  const { status, stdout, stderr } = await runCli(args, undefined, ['--import', `data:text/javascript,${encodeURIComponent(report)}`]);
  const kilobytes = /\nmaxRSS (\d+)\n$/.exec(stderr)?.[1];
  expect(kilobytes, stderr.slice(-2_000)).toBeDefined();
  return { status, stdout, maxRss: Number(kilobytes) * 1024 };
}

// ---------------------------------------------------------------------------------------------
// The corpus

const itemFixtures = (await readdir(path.join(FIXTURES, 'items'))).sort();
const addonFixtures = (await readdir(path.join(FIXTURES, 'addon'))).sort();

describe('the corpus', () => {
  it('holds at least 40 hostile files, each with its expectation', () => {
    expect(itemFixtures.length + addonFixtures.length).toBeGreaterThanOrEqual(40);
  });

  const sharedAddon = readFile(path.join(FIXTURES, 'addon.yaml'));

  for (const name of itemFixtures) {
    it(`items/${name}`, async () => {
      const bytes = await readFile(path.join(FIXTURES, 'items', name));
      const expected = expectations(bytes).map((e) => e.replace(/ (\d+:\d+)$/, ` ${name}:$1`));
      const { out, before } = await previousOutput();
      const dir = await contentDir({ 'addon.yaml': await sharedAddon, [name]: bytes });
      const result = await build({ contentDir: dir, outDir: expected.length > 0 ? out : undefined });
      checkPrintable(result);
      expect(located(result, dir)).toEqual(expected);
      expect(result.ok).toBe(expected.length === 0);
      if (expected.length > 0) expect(await readTree(out)).toEqual(before);
    });
  }

  // Large content is parsed on worker threads and comes back as a structured clone: every file
  // of the corpus must read the same there, problems, positions and shared aliases included.
  it('reads the same on parse threads as on the main thread', async () => {
    const files: Record<string, Buffer> = { 'addon.yaml': await sharedAddon };
    for (const name of itemFixtures) files[name] = await readFile(path.join(FIXTURES, 'items', name));
    // Over 256 KiB: its syntax error is js-yaml's own, with js-yaml's position (3,000 items of 4 lines, then the tab).
    files['large-broken.yaml'] = Buffer.from(`${movies(3000)}- id: tt9\n\ttype: movie\n`);
    files['shared.yaml'] = Buffer.from(
      '- {id: tt1, type: movie, name: A, genres: &g [Drama, Comedy]}\n- {id: tt2, type: movie, name: B, genres: *g}\n',
    );
    // Numbers JSON cannot carry: a thread sends these values another way.
    files['infinite.yaml'] = Buffer.from('- {id: tt3, type: movie, name: C, runtime: .nan, season: -.inf}\n');
    files['negative-zero.yaml'] = Buffer.from('- {id: tt4, type: movie, name: D, fileIdx: -0.0}\n');
    const dir = await contentDir(files);
    const read = async (parseThreads: number) => {
      const loaded = await loadContent(dir, { parseThreads });
      const values: SourceValue[] = [];
      for await (const value of loaded.items) if (!('known' in value)) values.push(value);
      return { values, diagnostics: loaded.diagnostics.list() };
    };
    const [inline, threaded] = [await read(0), await read(1)];
    expect(threaded.values.length).toBeGreaterThan(40);
    expect(threaded.diagnostics.length).toBeGreaterThan(20);
    const comparable = ({ source, document, at, value }: SourceValue) => ({ file: source.file, spans: source.spans, document, at, value });
    expect(threaded.values.map(comparable)).toEqual(inline.values.map(comparable));
    expect(threaded.diagnostics).toEqual(inline.diagnostics);
    expect(threaded.diagnostics.find((d) => d.file?.endsWith('large-broken.yaml'))).toMatchObject({ code: 'yaml-syntax', line: 12_002 });
    const proto = threaded.values.find((v) => v.source.relative === 'key-proto.yaml')!.value as object;
    expect([Object.getPrototypeOf(proto) === Object.prototype, Object.hasOwn(proto, '__proto__')]).toEqual([true, true]);
    const shared = threaded.values.filter((v) => v.source.relative === 'shared.yaml').map((v) => (v.value as { genres: unknown }).genres);
    expect(shared[0]).toBe(shared[1]);
    const number = (file: string, key: string) => (threaded.values.find((v) => v.source.relative === file)!.value as Record<string, number>)[key];
    expect([number('infinite.yaml', 'runtime'), number('infinite.yaml', 'season'), Object.is(number('negative-zero.yaml', 'fileIdx'), -0)]).toEqual([
      NaN,
      -Infinity,
      true,
    ]);
  });

  for (const name of addonFixtures) {
    it(`addon/${name}`, async () => {
      const bytes = await readFile(path.join(FIXTURES, 'addon', name));
      const expected = expectations(bytes).map((e) => e.replace(/ (\d+:\d+)$/, ' addon.yaml:$1'));
      const { dir, result } = await buildFiles({ 'addon.yaml': bytes });
      expect(located(result, dir)).toEqual(expected);
      expect(result.ok).toBe(expected.length === 0);
    });
  }

  // The command as people run it, on a sample: exit status 1, the location on stderr, no stack
  // trace, and a previous output folder left byte for byte as it was.
  const sample = [
    'syntax-unclosed-flow.yaml',
    'tab-indent-map.yaml',
    'duplicate-key.yaml',
    'alias-billion-laughs.yaml',
    'deep-flow.yaml',
    'nul-byte.yaml',
    'latin1.yaml',
    'key-constructor.yaml',
    'season-infinite.yaml',
    'released-february-30.yaml',
  ];
  for (const name of sample) {
    it(`addon-gen build and validate --json: items/${name}`, async () => {
      const bytes = await readFile(path.join(FIXTURES, 'items', name));
      const [first] = expectations(bytes);
      const [code, position] = first!.split(' ');
      const dir = await contentDir({ 'addon.yaml': await sharedAddon, [`movies/${name}`]: bytes });
      const { out, before } = await previousOutput();
      const built = await runCli(['build', dir, '--out', out]);
      expect(built.status, built.stderr).toBe(1);
      expect(built.stderr).toContain(`${path.join(dir, 'movies', name)}:${position}: error[${code}]: `);
      expect(built.stderr).toContain('Nothing was written.');
      expect(built.stderr).not.toMatch(/^\s+at /m);
      expect(await readTree(out)).toEqual(before);
      const validated = await runCli(['validate', dir, '--json']);
      expect(validated.status).toBe(1);
      const json = JSON.parse(validated.stdout) as { ok: boolean; diagnostics: { code: string; line: number; column: number }[] };
      expect(json.ok).toBe(false);
      expect(json.diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`)).toContain(`${code} ${position}`);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Generated: too large or too regular to commit

const ADDON = addonYaml(CATALOGS);

describe('alias bombs', () => {
  it('refuses a billion laughs of 30 levels (9^30 strings) at once, in both quoting styles', async () => {
    const levels = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i <= 30; i++)
      levels.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'bomb.yaml': `${levels.join('\n')}\n` });
    expect(only(result.diagnostics, 'yaml-alias')).toMatchObject({ line: 1, column: 1 });
    expect(result.diagnostics[0]!.message).toBe('aliases repeat about 10^29 values in this document, more than the 100000 allowed');

    const json = ['{"a0":&a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i <= 30; i++)
      json.push(
        `,"a${i}":&a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(',')}]`,
      );
    const { result: jsonResult } = await buildFiles({ 'addon.yaml': ADDON, 'bomb.yaml': `${json.join('')}}\n` });
    expect(only(jsonResult.diagnostics, 'yaml-alias').line).toBe(1);
  });

  it('refuses one large anchor repeated: 200,000 values used 100 times', async () => {
    const lines = [`- { id: a0, type: movie, name: A, genres: &g [${Array(200_000).fill('x').join(',')}] }`];
    for (let i = 1; i < 100; i++) lines.push(`- { id: a${i}, type: movie, name: A, genres: *g }`);
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': `${lines.join('\n')}\n` });
    const d = only(result.diagnostics, 'yaml-alias');
    expect(d.message).toMatch(/aliases repeat \d+ values in this document, more than the 100000 allowed/);
  });

  it('refuses aliases that nest an anchor past 100 levels, although each part is within them', async () => {
    const text = `a: &a ${'['.repeat(60)}x${']'.repeat(60)}\nb: ${'['.repeat(50)}*a${']'.repeat(50)}\n`;
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': text });
    expect(only(result.diagnostics, 'yaml-alias').message).toBe('aliases nest the values more than 100 levels deep');
  });

  it('allows an anchor used 1,000 times while the values stay few, and refuses an alias inside its own anchor', async () => {
    const uses = Array.from({ length: 1_000 }, (_, i) => `- { id: a${i}, type: movie, name: A, streams: *s }`);
    const { result } = await buildFiles({
      'addon.yaml': ADDON,
      'a.yaml': `- { id: s, type: movie, name: S, streams: &s [{ url: "https://e.org/s.mp4" }] }\n${uses.join('\n')}\n`,
    });
    expect(result.diagnostics).toEqual([]);
    const { result: cycle } = await buildFiles({
      'addon.yaml': ADDON,
      'a.yaml': 'id: a\ntype: movie\nname: A\nlinks: &l [{ name: x, category: y, url: "https://e.org" }, *l]\n',
    });
    expect(only(cycle.diagnostics, 'yaml-alias')).toMatchObject({ line: 4, column: 60 });
  });
});

describe('nesting', () => {
  const cases: [string, string, string][] = [
    ['10,000 [', `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, '1:101'],
    ['10,000 [ never closed', '['.repeat(10_000), '1:101'],
    ['10,000 {a: ', `${'{a: '.repeat(10_000)}x${'}'.repeat(10_000)}\n`, '1:401'],
    ['10,000 - on one line', `${'- '.repeat(10_000)}x\n`, '1:201'],
    // Each line one space deeper: 600 of them make 180 KB.
    ['600 - on their own lines', `${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}-`).join('\n')} x\n`, '101:101'],
    ['600 nested mappings', `${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} x\n`, '101:101'],
    ['10,000 [ after an anchor', `x: &a 1\ny: ${'['.repeat(10_000)}\n`, '2:103'],
  ];
  for (const [name, text, position] of cases) {
    it(`refuses ${name} at the first level past 100`, async () => {
      const { dir, result } = await buildFiles({ 'addon.yaml': ADDON, 'deep.yaml': text });
      expect(located(result, dir)).toEqual([`yaml-too-deep deep.yaml:${position}`]);
    });
  }

  it('accepts 100 levels and refuses 101, whichever parser reads the file', async () => {
    for (const anchor of ['', 'x: &a 1\n---\n']) {
      for (const [depth, refused] of [
        [100, false],
        [101, true],
      ] as const) {
        // A list nested `depth` levels deep, counting the string inside: a value of the wrong form.
        const text = `${anchor}id: a\ntype: movie\nname: A\ngenres: ${'['.repeat(depth - 2)}x${']'.repeat(depth - 2)}\n`;
        const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': text });
        const codes = result.diagnostics.map((d) => d.code);
        expect(codes.includes('yaml-too-deep'), `${depth} levels${anchor ? ', careful path' : ''}: ${codes}`).toBe(refused);
        expect(codes.length, codes.join()).toBeGreaterThan(0);
      }
    }
  });
});

describe('size', () => {
  it('refuses a file over 16 MiB without reading it, and names the limit', async () => {
    const dir = await contentDir({ 'addon.yaml': ADDON });
    await writeFile(path.join(dir, 'big.yaml'), '');
    await truncate(path.join(dir, 'big.yaml'), 16 * 1024 * 1024 + 1); // sparse: nothing is written
    const result = await build({ contentDir: dir });
    const d = only(result.diagnostics, 'file-too-large');
    expect(d.file).toBe(path.join(dir, 'big.yaml'));
    expect(d.line).toBeUndefined();
    expect(d.message).toBe('16777217 bytes, over the limit of 16777216 bytes (16 MiB) for a content file, so it is not read');
    expect(result.sources.map((s) => s.relative)).toEqual(['addon.yaml']);
  });

  it('refuses a 2 GiB file as fast as a small one: its size is checked before it is read', async () => {
    const dir = await contentDir({ 'addon.yaml': ADDON });
    await writeFile(path.join(dir, 'huge.yml'), '');
    await truncate(path.join(dir, 'huge.yml'), 2 * 1024 ** 3);
    const result = await build({ contentDir: dir });
    expect(only(result.diagnostics, 'file-too-large').message).toMatch(/^2147483648 bytes, over/);
  });

  it('reads a file of exactly the limit and refuses one byte more', async () => {
    const item = 'id: a\ntype: movie\nname: A\n';
    const exact = `${item}#${'x'.repeat(1024 - item.length - 2)}\n`;
    expect(Buffer.byteLength(exact)).toBe(1024);
    const { result: fits } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': exact }, { maxFileSize: 1024 });
    expect(fits.ok).toBe(true);
    const { result: over } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': `${exact} ` }, { maxFileSize: 1024 });
    expect(only(over.diagnostics, 'file-too-large').message).toBe(
      '1025 bytes, over the limit of 1024 bytes (1 KiB) for a content file, so it is not read',
    );
  });

  it('applies the limit to addon.yaml too, with no second error saying it is missing', async () => {
    const { result } = await buildFiles({ 'addon.yaml': `${ADDON}#${'x'.repeat(2000)}\n` }, { maxFileSize: 1024 });
    only(result.diagnostics, 'file-too-large');
  });

  it('reads sizes as --max-file-size takes them', () => {
    expect(parseByteSize('1048576')).toBe(1048576);
    expect(parseByteSize('16M')).toBe(16 * 1024 * 1024);
    expect(parseByteSize('16MiB')).toBe(16 * 1024 * 1024);
    expect(parseByteSize('16mb')).toBe(16 * 1024 * 1024);
    expect(parseByteSize('512k')).toBe(512 * 1024);
    expect(parseByteSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('100B')).toBe(100);
    for (const bad of ['', 'M', '-1', '12X', '1e6', '16 MB extra', 'Infinity']) expect(parseByteSize(bad), bad).toBeUndefined();
  });

  it('takes --max-file-size on build, validate and serve, and refuses a size that is not one', async () => {
    const dir = await contentDir({ 'addon.yaml': ADDON, 'a.yaml': `id: a\ntype: movie\nname: A\n#${'x'.repeat(2000)}\n` });
    const refused = await runCli(['validate', dir, '--max-file-size', '1K']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${path.join(dir, 'a.yaml')}: error[file-too-large]: `);
    expect(refused.stderr).toContain('raise the limit with --max-file-size');
    expect((await runCli(['validate', dir, '--max-file-size', '4K'])).status).toBe(0);
    const bad = await runCli(['build', dir, '--max-file-size', '12X', '--out', path.join(await tempDir(), 'out')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--max-file-size 12X: expected a size in bytes, or with K, M or G');
    expect((await runCli(['serve', dir, '--max-file-size', 'lots'])).status).toBe(2);
  });
});

describe('bytes that are not YAML text', () => {
  it('reports a PNG with a .yaml name once, at its first NUL byte', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
        '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e1d6a90000000049454e44ae426082',
      'hex',
    );
    const { dir, result } = await buildFiles({ 'addon.yaml': ADDON, 'poster.yaml': png });
    expect(located(result, dir)).toEqual(['binary-file poster.yaml:3:1']);
  });

  it('reports random bytes once, whatever they hold', async () => {
    let seed = 7;
    const random = Buffer.from(Array.from({ length: 64 * 1024 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff));
    random[100] = 0; // at least one NUL
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'noise.yaml': random });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['binary-file']);
    // Without NUL bytes, random high bytes are not UTF-8.
    const { result: high } = await buildFiles({ 'addon.yaml': ADDON, 'noise.yaml': Buffer.from(random.map((b) => b | 0x80)) });
    expect(high.diagnostics.map((d) => d.code)).toEqual(['invalid-utf8']);
  });

  it('reports UTF-16 text, with its byte order mark or without', async () => {
    const item = 'id: a\ntype: movie\nname: A\n';
    const { dir, result } = await buildFiles({
      'addon.yaml': ADDON,
      'a.yaml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(item, 'utf16le')]),
    });
    expect(located(result, dir)).toEqual(['invalid-utf8 a.yaml:1:1']);
    expect(result.diagnostics[0]!.message).toContain('UTF-16');
    const { dir: dir2, result: bare } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': Buffer.from(item, 'utf16le') });
    expect(located(bare, dir2)).toEqual(['binary-file a.yaml:1:2']);
  });

  it('accepts a UTF-8 byte order mark on addon.yaml and on item files', async () => {
    const bom = '\ufeff';
    const { result } = await buildFiles({ 'addon.yaml': `${bom}${ADDON}`, 'a.yaml': `${bom}id: a\ntype: movie\nname: A\n` });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.addon.id).toBe('org.example.test');
    expect(result.content!.items.map((i) => i.id)).toEqual(['a']);
  });

  it('names the column of the first bad byte in UTF-16 units, after wide characters', async () => {
    const { dir, result } = await buildFiles({
      'addon.yaml': ADDON,
      'a.yaml': Buffer.concat([Buffer.from('id: a\ntype: movie\nname: 日本😀'), Buffer.from([0xff]), Buffer.from('\n')]),
    });
    // "name: " is 6 units, 日本 two, 😀 two: the bad byte is the 11th unit.
    expect(located(result, dir)).toEqual(['invalid-utf8 a.yaml:3:11']);
  });
});

describe('floods of errors', () => {
  it('prints a problem on a line of 200,000 characters, cut around its column', async () => {
    const line = `genres: [${Array(100_000).fill('x').join(',')}, [nested]]`;
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': `id: a\ntype: movie\nname: A\n${line}\n` });
    const d = only(result.diagnostics, 'invalid-value');
    expect(d).toMatchObject({ line: 4, column: line.indexOf('[nested]') + 1 });
    const text = formatDiagnostics(result.diagnostics, sourceLineOf(result.sources));
    const [shown, caret] = text.split('\n').slice(1, 3);
    expect(shown!.length).toBeLessThan(120);
    expect(shown![caret!.indexOf('^')]).toBe('[');
  });

  it('reports one syntax error for 4 MiB of stray ]', async () => {
    const { dir, result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': ']'.repeat(4 * 1024 * 1024) });
    expect(located(result, dir)).toEqual(['yaml-syntax a.yaml:1:1']);
  });

  it('reports at most 100 of 200,000 repeated keys', async () => {
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': 'id: a\n'.repeat(200_000) });
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(result.diagnostics.length).toBeLessThanOrEqual(100);
    expect(new Set(result.diagnostics.map((d) => d.code))).toEqual(new Set(['duplicate-key']));
  });

  // Past the first 100 problems of a file the build only counts them: it neither locates them
  // (which parses their item again) nor describes them, nor keeps them. Run as people run it, in
  // a process of its own, whose peak memory is compared with that of a build of a small folder.
  // Before the limit, the first flood gave a million diagnostics and took about 2 GB.
  describe('as the command builds them, in bounded memory', () => {
    const measured = async (files: Record<string, string>) => {
      const dir = await contentDir({ 'addon.yaml': ADDON, ...files });
      const { out, before } = await previousOutput();
      const run = await runMeasured(['build', dir, '--out', out, '--json']);
      expect(run.status).toBe(1);
      expect(await readTree(out)).toEqual(before);
      const diagnostics = (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
      return { diagnostics, maxRss: run.maxRss };
    };
    let small: number;
    beforeAll(async () => {
      small = (await measured({ 'a.yaml': 'id: a\ntype: movie\nname: A\nrelased: 2001\n' })).maxRss;
    });
    const growth = (maxRss: number) => maxRss - small;
    const MiB = 1024 * 1024;

    it('shows 100 of a million list entries that are not items, and counts the rest', async () => {
      const { diagnostics, maxRss } = await measured({ 'a.yaml': '- a\n'.repeat(MiB) }); // 4 MiB
      expect(diagnostics).toHaveLength(101);
      expect(diagnostics.slice(0, 100).every((d, i) => d.code === 'invalid-value' && d.line === i + 1 && d.column === 3)).toBe(true);
      expect(diagnostics[100]).toMatchObject({
        code: 'too-many-problems',
        severity: 'error',
        line: 101,
        column: 3,
        message: '1,048,476 more errors in this file are not shown',
      });
      expect(growth(maxRss)).toBeLessThan(400 * MiB);
    }, 120_000);

    it('shows 100 of 20,000 items with a wrong value deep inside, and counts the rest', async () => {
      const item = (i: number) =>
        `- id: "t:${i}"\n  type: series\n  name: S\n  videos:\n    - season: 1\n      episode: 1\n      streams:\n        - url: https://example.org/${i}.mp4\n          behaviorHints: { bingeGroup: 3 }\n`;
      const { diagnostics, maxRss } = await measured({ 'a.yaml': Array.from({ length: 20_000 }, (_, i) => item(i)).join('') }); // 3.5 MiB
      expect(diagnostics).toHaveLength(101);
      // Each at the 3 on the 9th line of its item, found by parsing that item again.
      expect(
        diagnostics
          .slice(0, 100)
          .every((d, i) => d.path === 'videos[0].streams[0].behaviorHints.bingeGroup' && d.line === 9 * i + 9 && d.column === 40),
      ).toBe(true);
      expect(diagnostics[100]).toMatchObject({
        code: 'too-many-problems',
        line: 909,
        column: 40,
        message: '19,900 more errors in this file are not shown',
      });
      expect(growth(maxRss)).toBeLessThan(400 * MiB);
    }, 120_000);
  });
});

describe('links and the file system', () => {
  const links = it.skipIf(onWindows);

  links('does not follow a link to a file outside the content folder, and warns', async () => {
    const outside = await contentDir({ 'secret.yaml': 'not: [valid\n', 'shared.yaml': 'id: shared\ntype: movie\nname: S\n' });
    const dir = await contentDir({ 'addon.yaml': ADDON });
    await symlink(path.join(outside, 'secret.yaml'), path.join(dir, 'secret.yaml'));
    await symlink(path.join(outside, 'shared.yaml'), path.join(dir, 'shared.yml'));
    await symlink('/dev/zero', path.join(dir, 'zero.yaml'));
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual([
      'symlink-not-followed secret.yaml:undefined:undefined',
      'symlink-not-followed shared.yml:undefined:undefined',
      'symlink-not-followed zero.yaml:undefined:undefined',
    ]);
    expect(result.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    expect(result.diagnostics[0]!.message).toBe(
      `symbolic link to ${path.join(outside, 'secret.yaml')}, which is outside the content folder: not read`,
    );
    expect(result.ok).toBe(true);
    expect(result.content!.items).toEqual([]);
  });

  links('follows a link to a file inside the content folder, resolving local files from the target', async () => {
    const dir = await contentDir({
      'addon.yaml': `${ADDON}baseUrl: https://example.org/addon/\n`,
      'drafts/films.txt': 'id: a\ntype: movie\nname: A\nposter: a.jpg\n',
      'drafts/a.jpg': 'jpeg',
    });
    await mkdir(path.join(dir, 'movies'));
    await symlink('../drafts/films.txt', path.join(dir, 'movies', 'films.yaml'));
    const result = await build({ contentDir: dir });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.items.map((i) => [i.id, i.poster])).toEqual([['a', 'https://example.org/addon/assets/drafts/a.jpg']]);
  });

  links('follows no link to a folder: inside, its files are read once; outside, a warning', async () => {
    const outside = await contentDir({ 'more.yaml': 'id: more\ntype: movie\nname: M\n' });
    const dir = await contentDir({ 'addon.yaml': ADDON, 'movies/a.yaml': 'id: a\ntype: movie\nname: A\n' });
    await symlink('movies', path.join(dir, 'films'));
    await symlink('.', path.join(dir, 'loop'));
    await symlink('..', path.join(dir, 'movies', 'up'));
    await symlink(outside, path.join(dir, 'more'));
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual(['symlink-not-followed more:undefined:undefined']);
    expect(result.diagnostics[0]!.message).toContain('the YAML files in it are not read');
    expect(result.content!.items.map((i) => i.id)).toEqual(['a']);
  });

  links('reports broken links and loops of links as unreadable', async () => {
    const dir = await contentDir({ 'addon.yaml': ADDON });
    await symlink('missing.yaml', path.join(dir, 'broken.yaml'));
    await symlink('b.yaml', path.join(dir, 'a.yaml'));
    await symlink('a.yaml', path.join(dir, 'b.yaml'));
    await symlink('missing.jpg', path.join(dir, 'poster.jpg')); // not content: someone else's business
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual([
      'unreadable-file a.yaml:undefined:undefined',
      'unreadable-file b.yaml:undefined:undefined',
      'unreadable-file broken.yaml:undefined:undefined',
    ]);
    expect(result.diagnostics[0]!.message).toBe('symbolic link to b.yaml, which leads back to itself (a loop of links)');
    expect(result.diagnostics[2]!.message).toBe('symbolic link to missing.yaml, which does not exist');
  });

  links('refuses an addon.yaml that links outside the content folder, with one error', async () => {
    const outside = await contentDir({ 'addon.yaml': ADDON });
    const dir = await contentDir({});
    await symlink(path.join(outside, 'addon.yaml'), path.join(dir, 'addon.yaml'));
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual(['missing-addon-yaml addon.yaml:undefined:undefined']);
    expect(result.diagnostics[0]!.message).toContain('outside the content folder');
  });

  links('publishes no local file that a link leads to outside the content folder', async () => {
    const outside = await contentDir({ 'secret.txt': 'secret' });
    const dir = await contentDir({
      'addon.yaml': `${ADDON}baseUrl: https://example.org/\n`,
      'a.yaml': 'id: a\ntype: movie\nname: A\nposter: poster.jpg\nbackground: elsewhere/secret.txt\nlogo: inside.jpg\n',
      'images/logo.jpg': 'jpeg',
    });
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'poster.jpg'));
    await symlink(outside, path.join(dir, 'elsewhere'));
    await symlink('images/logo.jpg', path.join(dir, 'inside.jpg'));
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual([
      'asset-outside-content a.yaml:4:9',
      'asset-outside-content a.yaml:5:13',
      'symlink-not-followed elsewhere:undefined:undefined',
    ]);
    expect(result.diagnostics.find((d) => d.path === 'poster')!.message).toBe(
      `"poster.jpg" leads through a symbolic link to ${path.join(await realpath(outside), 'secret.txt')}, outside the content folder`,
    );
  });

  links('builds a content folder that is itself a link', async () => {
    const real = await contentDir({
      'addon.yaml': `${ADDON}baseUrl: https://example.org/\n`,
      'a.yaml': 'id: a\ntype: movie\nname: A\nposter: a.jpg\n',
      'a.jpg': 'x',
    });
    const link = path.join(await tempDir(), 'content');
    await symlink(real, link);
    const result = await build({ contentDir: link });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.items[0]!.poster).toBe('https://example.org/assets/a.jpg');
  });

  it.skipIf(onWindows)('reports files and folders that cannot be read', async () => {
    const dir = await contentDir({
      'addon.yaml': ADDON,
      'a.yaml': 'id: a\ntype: movie\nname: A\n',
      'locked/b.yaml': 'id: b\ntype: movie\nname: B\n',
    });
    await chmod(path.join(dir, 'a.yaml'), 0o000);
    await chmod(path.join(dir, 'locked'), 0o000);
    try {
      const out = path.join(await tempDir(), 'dist');
      const json = await runCli(['build', dir, '--out', out, '--json'], undefined, [], UNPRIVILEGED);
      expect(json.status, json.stderr).toBe(1);
      const { diagnostics } = JSON.parse(json.stdout) as { diagnostics: Diagnostic[] };
      expect(diagnostics.map((d) => `${d.code} ${path.relative(dir, d.file!)}`)).toEqual(['unreadable-file a.yaml', 'unreadable-file locked']);
      expect(diagnostics[0]!.message).toBe('cannot be read: permission denied');
      expect(diagnostics[1]!.hint).toContain('chmod a+rx');
      const human = await runCli(['build', dir, '--out', out], undefined, [], UNPRIVILEGED);
      expect(human.status).toBe(1);
      expect(human.stderr).toContain(`${path.join(dir, 'a.yaml')}: error[unreadable-file]: cannot be read: permission denied`);
      expect(human.stderr).toContain('Nothing was written.');
      expect(human.stderr).not.toMatch(/^\s+at /m);
      expect(existsSync(out)).toBe(false);
    } finally {
      await chmod(path.join(dir, 'a.yaml'), 0o644);
      await chmod(path.join(dir, 'locked'), 0o755);
    }
  });

  it.skipIf(onWindows)('refuses a named pipe with a .yaml name instead of waiting on it', async () => {
    const dir = await contentDir({ 'addon.yaml': ADDON });
    execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
    const result = await build({ contentDir: dir });
    expect(located(result, dir)).toEqual(['unreadable-file pipe.yaml:undefined:undefined']);
  });

  it.skipIf(onWindows)(
    'does not wait on a named pipe put where a local file the last build copied was',
    async () => {
      const dir = await contentDir({
        'addon.yaml': addonYaml(`baseUrl: https://example.org/ff/\nlogo: logo.png\n${CATALOGS}`),
        'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
      });
      const out = path.join(await tempDir(), 'dist');
      expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
      await rm(path.join(dir, 'logo.png'));
      execFileSync('mkfifo', [path.join(dir, 'logo.png')]);
      // Before, the check of the last build's local files read the pipe, and the build never ended.
      const result = await build({ contentDir: dir, outDir: out });
      expect(result.ok).toBe(false);
      expect(result.diagnostics.map((d) => d.code)).toContain('missing-asset');
    },
    20_000,
  );

  it('reads a folder named like a YAML file as a folder', async () => {
    const { result } = await buildFiles({ 'addon.yaml': ADDON, 'films.yaml/a.yaml': 'id: a\ntype: movie\nname: A\n' });
    expect(result.diagnostics).toEqual([]);
    expect(result.content!.items.map((i) => i.id)).toEqual(['a']);
  });
});

describe('files over 256 KiB, which the careful parser does not read whole', () => {
  // 3,000 items of about 100 bytes: over 256 KiB; a problem goes after them.
  const items = Array.from(
    { length: 3_000 },
    (_, i) => `- id: "t:${i}"\n  type: movie\n  name: Movie ${i}\n  streams: [{ url: "https://example.org/${i}.mp4" }]\n`,
  ).join('');
  const large = (tail: string) => `${items}${tail}`;
  const lineAfter = items.split('\n').length; // the first line of the tail

  it('are over 256 KiB', () => expect(items.length).toBeGreaterThan(256 * 1024));

  it('reports a duplicate key, a syntax error and deep nesting as js-yaml finds them', async () => {
    const cases: [string, string, string][] = [
      ['- id: x\n  type: movie\n  type: series\n', 'duplicate-key', `${lineAfter + 2}:3`],
      ['- id: x\n  name: [unclosed\n  type: movie\n', 'yaml-syntax', `${lineAfter + 2}:3`],
      // js-yaml stops at the 100th level of flow lists (the careful parser at the 101st).
      [`- ${'['.repeat(200)}\n`, 'yaml-too-deep', `${lineAfter}:101`],
      ['- id: x\n\ttype: movie\n', 'yaml-syntax', `${lineAfter + 1}:1`],
    ];
    for (const [tail, code, position] of cases) {
      const { dir, result } = await buildFiles({ 'addon.yaml': ADDON, 'large.yaml': large(tail) });
      expect(located(result, dir), tail).toEqual([`${code} large.yaml:${position}`]);
    }
  });

  it("checks the aliases of js-yaml's values: bombs and cycles", async () => {
    const { result } = await buildFiles({
      'addon.yaml': ADDON,
      'large.yaml': large(
        `- { id: x, type: movie, name: X, genres: &g [${Array(2_000).fill('x').join(',')}] }\n${Array.from({ length: 90 }, (_, i) => `- { id: y${i}, type: movie, name: Y, genres: *g }`).join('\n')}\n`,
      ),
    });
    expect(only(result.diagnostics, 'yaml-alias').message).toMatch(/aliases repeat 180090 values/);
    const { result: cycle } = await buildFiles({ 'addon.yaml': ADDON, 'large.yaml': large('- { id: x, type: movie, name: X, links: &l [*l] }\n') });
    expect(only(cycle.diagnostics, 'yaml-alias')).toMatchObject({ line: 1, column: 1 }); // the document's start
    const { result: shared } = await buildFiles({
      'addon.yaml': ADDON,
      'large.yaml': large('- { id: x, type: movie, name: X, genres: &g [Drama] }\n- { id: y, type: movie, name: Y, genres: *g }\n'),
    });
    expect(shared.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('points at a problem in an item exactly, parsing that item alone', async () => {
    const { dir, result } = await buildFiles({ 'addon.yaml': ADDON, 'large.yaml': large('- id: x\n  type: movie\n  name: X\n  relased: 1922\n') });
    expect(located(result, dir)).toEqual([`unknown-field large.yaml:${lineAfter + 3}:3`]);
  });
});

describe('the process', () => {
  it('prints no warning of the YAML parser: a collection as a key on the careful path', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      const { result } = await buildFiles({ 'addon.yaml': ADDON, 'a.yaml': 'id: &i a\ntype: movie\nname: A\n? { x: 1 }\n: y\n' });
      only(result.diagnostics, 'unknown-field');
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', listener);
    }
    expect(warnings.map((w) => w.message)).toEqual([]);
  });
});

describe('each content file is its own', () => {
  it('reports the problems of several hostile files together, each in its file', async () => {
    const { dir, result } = await buildFiles({
      'addon.yaml': ADDON,
      'a.yaml': Buffer.from([0x00, 0x01]),
      'b.yaml': `${'['.repeat(500)}\n`,
      'c.yaml': 'x: &a [*a]\n',
      'd.yaml': 'id: d\ntype: movie\nname: D\nname: E\n',
      'e.yaml': 'id: e\ntype: movie\nname: E\n',
    });
    expect(located(result, dir)).toEqual([
      'binary-file a.yaml:1:1',
      'yaml-too-deep b.yaml:1:101',
      'yaml-alias c.yaml:1:8',
      'duplicate-key d.yaml:4:1',
    ]);
  });
});
