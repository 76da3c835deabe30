// The formats of diagnostics (human, JSON, GitHub Actions commands, colors), and docs/diagnostics.md:
// every code has a section, and every section's example, built by the real bin, prints what it shows.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CODES,
  diagnosticJson,
  formatDiagnostic,
  formatDiagnostics,
  githubAnnotation,
  mapDiagnosticFiles,
  sourceExcerpt,
  useColor,
  type Diagnostic,
} from '../src/diagnostics/index.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));
const DOC = fileURLToPath(new URL('../docs/diagnostics.md', import.meta.url));
const ESC = '\u001b';

const unknownField: Diagnostic = {
  code: 'unknown-field',
  severity: 'error',
  file: 'content/movies/a.yaml',
  line: 4,
  column: 1,
  path: 'relased',
  message: 'unknown field "relased"',
  hint: 'did you mean "released"?',
};

/** A problem with a second place: where the duplicated id was first defined. */
const duplicateId: Diagnostic = {
  code: 'duplicate-id',
  severity: 'error',
  file: 'content/movies/b.yaml',
  line: 1,
  column: 5,
  message: 'id "tt1" is used twice',
  hint: 'give each item its own id',
  related: [{ file: 'content/movies/a.yaml', line: 1, column: 5, message: 'first defined here' }, { message: 'a note without a place' }],
};

describe('useColor', () => {
  it('colors a terminal and GitHub Actions unless NO_COLOR or TERM=dumb, and FORCE_COLOR decides when set', () => {
    const cases: [boolean, Record<string, string>, boolean][] = [
      [true, {}, true],
      [false, {}, false],
      [true, { NO_COLOR: '1' }, false],
      [true, { NO_COLOR: 'anything' }, false],
      [true, { NO_COLOR: '' }, true], // empty is unset, as no-color.org says
      [true, { TERM: 'dumb' }, false],
      [false, { GITHUB_ACTIONS: 'true' }, true], // its log shows colors
      [false, { GITHUB_ACTIONS: 'true', NO_COLOR: '1' }, false],
      [false, { GITHUB_ACTIONS: 'false' }, false],
      [false, { FORCE_COLOR: '1' }, true],
      [false, { FORCE_COLOR: '' }, true],
      [false, { FORCE_COLOR: '3' }, true],
      [false, { FORCE_COLOR: 'true' }, true],
      [true, { FORCE_COLOR: '0' }, false],
      [true, { FORCE_COLOR: 'false' }, false],
      [false, { FORCE_COLOR: '1', NO_COLOR: '1' }, true], // as in Node: FORCE_COLOR wins
      [true, { FORCE_COLOR: '0', NO_COLOR: '' }, false],
    ];
    for (const [isTTY, env, expected] of cases) expect(useColor(isTTY, env), `${isTTY} ${JSON.stringify(env)}`).toBe(expected);
  });
});

describe('the human format', () => {
  const lines = new Map([['content/movies/a.yaml', ['id: a', 'type: movie', 'name: A', 'relased: 2001-01-01']]]);
  const sourceLine = (file: string, line: number) => lines.get(file)?.[line - 1];

  it('gives the location, the source line with a caret, the message and the hint', () => {
    expect(formatDiagnostic(unknownField, sourceLine)).toBe(
      [
        'content/movies/a.yaml:4:1: error[unknown-field]: unknown field "relased"',
        '  4 | relased: 2001-01-01',
        '    | ^',
        '  hint: did you mean "released"?',
      ].join('\n'),
    );
  });

  it('names the field when the message does not, and prints what it knows without a file or line', () => {
    const d: Diagnostic = { code: 'invalid-value', severity: 'error', file: 'a.yaml', line: 2, column: 7, path: 'type', message: 'expected text' };
    expect(formatDiagnostic(d)).toBe('a.yaml:2:7: error[invalid-value]: expected text (at type)');
    expect(formatDiagnostic({ code: 'missing-addon-yaml', severity: 'error', file: 'c/addon.yaml', message: 'c/addon.yaml does not exist' })).toBe(
      'c/addon.yaml: error[missing-addon-yaml]: c/addon.yaml does not exist',
    );
    expect(formatDiagnostic({ code: 'host-limit', severity: 'warning', message: 'too big', hint: 'split it' })).toBe(
      'warning[host-limit]: too big\n  hint: split it',
    );
  });

  it('ends with the tally, diagnostics in reading order', () => {
    const warning: Diagnostic = { code: 'uncovered-type', severity: 'warning', file: 'content/a.yaml', line: 1, column: 1, message: 'w' };
    const text = formatDiagnostics([unknownField, warning], sourceLine);
    expect(text.indexOf('content/a.yaml:1:1')).toBeLessThan(text.indexOf('content/movies/a.yaml:4:1'));
    expect(text.endsWith('\n\n1 error, 1 warning')).toBe(true);
    expect(formatDiagnostics([warning, warning]).endsWith('\n\n2 warnings')).toBe(true);
  });

  it('colors only when asked: severity, location, code, caret and hint', () => {
    expect(formatDiagnostics([unknownField], sourceLine)).not.toContain(ESC);
    const colored = formatDiagnostics([unknownField], sourceLine, { color: true });
    expect(colored).toContain(`${ESC}[1mcontent/movies/a.yaml:4:1:${ESC}[22m`);
    expect(colored).toContain(`${ESC}[31m${ESC}[1merror${ESC}[22m${ESC}[39m`);
    expect(colored).toContain(`${ESC}[36m  hint: did you mean "released"?${ESC}[39m`);
    expect(colored).toContain(`${ESC}[31m${ESC}[1m1 error${ESC}[22m${ESC}[39m`);
    const warning = formatDiagnostic({ ...unknownField, severity: 'warning' }, sourceLine, { color: true });
    expect(warning).toContain(`${ESC}[33m${ESC}[1mwarning${ESC}[22m${ESC}[39m`);
    // Without the escapes, the colored text is the plain one.
    // eslint-disable-next-line no-control-regex
    expect(colored.replace(/\u001b\[\d+m/g, '')).toBe(formatDiagnostics([unknownField], sourceLine));
  });

  it('makes control characters in content visible instead of sending them to the terminal', () => {
    const d: Diagnostic = { ...unknownField, message: `unknown field "${ESC}[2J"`, path: `${ESC}[2J`, hint: undefined };
    const text = formatDiagnostic(d, () => `${ESC}[2J: 1\u0007`);
    expect(text).not.toContain(ESC);
    expect(text).toContain('unknown field "␛[2J"');
    expect(text).toContain('  4 | ␛[2J: 1␇');
  });

  it('prints each related location after the problem as a note, with its source line, and the hint last', () => {
    const sources = new Map([
      ['content/movies/a.yaml', ['id: tt1']],
      ['content/movies/b.yaml', ['id: tt1']],
    ]);
    const source = (file: string, line: number) => sources.get(file)?.[line - 1];
    expect(formatDiagnostic(duplicateId, source)).toBe(
      [
        'content/movies/b.yaml:1:5: error[duplicate-id]: id "tt1" is used twice',
        '  1 | id: tt1',
        '    |     ^',
        'content/movies/a.yaml:1:5: note: first defined here',
        '  1 | id: tt1',
        '    |     ^',
        'note: a note without a place',
        '  hint: give each item its own id',
      ].join('\n'),
    );
    const related = [{ file: 'a.yaml', message: `first${ESC}[2J here` }];
    expect(formatDiagnostic({ ...unknownField, related }, source)).toContain('\na.yaml: note: first␛[2J here\n');
    const colored = formatDiagnostic(duplicateId, source, { color: true });
    expect(colored).toContain(`${ESC}[1mcontent/movies/a.yaml:1:5:${ESC}[22m ${ESC}[1mnote${ESC}[22m: first defined here`);
    // eslint-disable-next-line no-control-regex
    expect(colored.replace(/\u001b\[\d+m/g, '')).toBe(formatDiagnostic(duplicateId, source));
  });
});

describe('sourceExcerpt', () => {
  /** The line as shown with the caret line under it, as a person would see them in a terminal. */
  function show(line: string, column: number, width?: number): string[] {
    const { text, caret } = sourceExcerpt(line, column, width);
    return [text, `${' '.repeat(caret)}^`];
  }

  it('puts the caret under the column', () => {
    expect(show('name: [a, b', 7)).toEqual(['name: [a, b', '      ^']);
    expect(show('name: x', 1)).toEqual(['name: x', '^']);
  });

  it('expands tabs to stops every 4 columns in the line and before the caret alike', () => {
    expect(show('a:\t\tb', 5)).toEqual(['a:      b', '        ^']);
    expect(show('\tx: 1', 2)).toEqual(['    x: 1', '    ^']);
    expect(show('abc\tx', 5)).toEqual(['abc x', '    ^']);
  });

  it('counts wide characters as two columns and combining marks as none', () => {
    // name: "日本語" x   — each ideograph takes two columns in a terminal
    expect(sourceExcerpt('name: "日本語" x', 13)).toEqual({ text: 'name: "日本語" x', caret: 15 });
    // An emoji with a skin tone is one character of two columns, four UTF-16 units.
    expect(sourceExcerpt('a: 👍🏽 x', 9)).toEqual({ text: 'a: 👍🏽 x', caret: 6 });
    // e + combining acute accent: one column.
    expect(sourceExcerpt('e\u0301: x', 5)).toEqual({ text: 'e\u0301: x', caret: 3 });
  });

  it('points after the end for a column past it', () => {
    expect(show('name:', 6)).toEqual(['name:', '     ^']);
    expect(show('', 1)).toEqual(['', '^']);
  });

  it('cuts a long line around the column, marking the cuts', () => {
    const line = `description: ${'x'.repeat(200)}, y: [${'z'.repeat(200)}`;
    const column = line.indexOf('[') + 1;
    const { text, caret } = sourceExcerpt(line, column, 40);
    expect(text.length).toBeLessThanOrEqual(40);
    expect(text.startsWith('…')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
    expect(text[caret]).toBe('[');
    // Near the start, only the end is cut.
    const head = sourceExcerpt(line, 1, 40);
    expect(head.text).toBe(`${line.slice(0, 38)}…`);
    expect(head.caret).toBe(0);
    // Near the end, only the start.
    const tail = sourceExcerpt(line, line.length, 40);
    expect(tail.text).toBe(`…${line.slice(-38)}`);
    expect(tail.text[tail.caret]).toBe('z');
  });

  it('never cuts a wide character in half', () => {
    const line = '日'.repeat(100);
    const { text, caret } = sourceExcerpt(line, 51, 21);
    expect(text).toMatch(/^…日+…$/);
    // 19 columns between the marks hold 9 ideographs; the caret is on one of them.
    expect(text.length).toBe(11);
    expect((caret - 1) % 2).toBe(0);
  });
});

describe('diagnosticJson', () => {
  it('has every key in a fixed order, null where unknown', () => {
    expect(Object.keys(diagnosticJson(unknownField))).toEqual(['code', 'severity', 'file', 'line', 'column', 'path', 'message', 'hint']);
    expect(diagnosticJson({ code: 'host-limit', severity: 'warning', message: 'too big' })).toEqual({
      code: 'host-limit',
      severity: 'warning',
      file: null,
      line: null,
      column: null,
      path: null,
      message: 'too big',
      hint: null,
    });
  });

  it('adds related last, only when there are some, each with its keys in a fixed order', () => {
    expect(diagnosticJson({ ...unknownField, related: [] })).not.toHaveProperty('related');
    const json = diagnosticJson(duplicateId);
    expect(Object.keys(json)).toEqual(['code', 'severity', 'file', 'line', 'column', 'path', 'message', 'hint', 'related']);
    expect(json.related).toEqual([
      { file: 'content/movies/a.yaml', line: 1, column: 5, message: 'first defined here' },
      { file: null, line: null, column: null, message: 'a note without a place' },
    ]);
    expect(Object.keys(json.related![0]!)).toEqual(['file', 'line', 'column', 'message']);
  });
});

describe('mapDiagnosticFiles', () => {
  it('maps the file and the files of related locations alike, and leaves file-less ones alone', () => {
    const mapped = mapDiagnosticFiles(duplicateId, (file) => `/site/${file}`);
    expect(mapped.file).toBe('/site/content/movies/b.yaml');
    expect(mapped.related).toEqual([{ ...duplicateId.related![0]!, file: '/site/content/movies/a.yaml' }, duplicateId.related![1]!]);
    expect(mapDiagnosticFiles({ code: 'host-limit', severity: 'warning', message: 'm' }, () => 'x')).toEqual({
      code: 'host-limit',
      severity: 'warning',
      message: 'm',
    });
  });
});

describe('githubAnnotation', () => {
  const cwd = path.resolve('/repo');

  it('writes an error command with file, line, column and code, the hint on a second line', () => {
    expect(githubAnnotation(unknownField, { cwd })).toBe(
      '::error file=content/movies/a.yaml,line=4,col=1,title=unknown-field::unknown field "relased"%0Ahint: did you mean "released"?',
    );
  });

  it('writes a warning, and a command without location for a diagnostic without file', () => {
    expect(githubAnnotation({ code: 'host-limit', severity: 'warning', message: 'too big' }, { cwd })).toBe('::warning title=host-limit::too big');
    expect(githubAnnotation({ code: 'missing-addon-yaml', severity: 'error', file: 'c/addon.yaml', message: 'missing' }, { cwd })).toBe(
      '::error file=c/addon.yaml,title=missing-addon-yaml::missing',
    );
  });

  it('gives paths relative to the repository root, however the content folder was named', () => {
    const absolute = { ...unknownField, file: path.join(cwd, 'site', 'content', 'a.yaml') };
    expect(githubAnnotation(absolute, { cwd })).toMatch(/^::error file=site\/content\/a\.yaml,/);
    // In a step with `working-directory: site`, relative to $GITHUB_WORKSPACE, not to the step's folder.
    const relative = { ...unknownField, file: 'content/a.yaml' };
    expect(githubAnnotation(relative, { cwd: path.join(cwd, 'site'), root: cwd })).toMatch(/^::error file=site\/content\/a\.yaml,/);
    // A playlist read from a URL has no file in the repository: the annotation names none.
    const remote = { ...unknownField, file: 'https://example.org/tv.m3u' };
    expect(githubAnnotation(remote, { cwd })).toMatch(/^::error title=unknown-field::/);
  });

  it('escapes what would end the command or start another', () => {
    const d: Diagnostic = {
      code: 'invalid-value',
      severity: 'error',
      file: 'a,b:c%d.yaml',
      line: 1,
      column: 2,
      message: '100% wrong:\r\n::error::injected, really',
    };
    expect(githubAnnotation(d, { cwd })).toBe(
      '::error file=a%2Cb%3Ac%25d.yaml,line=1,col=2,title=invalid-value::100%25 wrong:%0D%0A::error::injected, really',
    );
  });

  it('follows the problem with a notice on each related location, titled with its code', () => {
    const absolute = {
      ...duplicateId,
      related: [{ ...duplicateId.related![0]!, file: path.join(cwd, 'content', 'movies', 'a.yaml') }, duplicateId.related![1]!],
    };
    expect(githubAnnotation(absolute, { cwd }).split('\n')).toEqual([
      '::error file=content/movies/b.yaml,line=1,col=5,title=duplicate-id::id "tt1" is used twice%0Ahint: give each item its own id',
      '::notice file=content/movies/a.yaml,line=1,col=5,title=duplicate-id::first defined here',
      '::notice title=duplicate-id::a note without a place',
    ]);
    const hostile = { ...unknownField, related: [{ file: 'x,y.yaml', line: 2, message: 'here\n::error::injected' }] };
    expect(githubAnnotation(hostile, { cwd }).split('\n')[1]).toBe('::notice file=x%2Cy.yaml,line=2,title=unknown-field::here%0A::error::injected');
  });
});

// ---------------------------------------------------------------------------------------------
// docs/diagnostics.md

interface Example {
  /** The heading of the section it is in: `yaml-syntax` for a code's section. */
  section: string;
  /** Set in the section of a code, under `## Codes`. */
  code?: string;
  /** Project-relative path -> text, from ```yaml, ```csv and ```m3u file=PATH blocks (bytes with `encoding=latin1`). */
  files: Map<string, string | Buffer>;
  /**
   * ```yaml file=PATH before blocks: the files as the last build found them. With any, the
   * project is built with them first, then the example's command runs on the files as they are.
   */
  before: Map<string, string>;
  /** `<!-- file PATH N bytes -->`: files of N zero bytes (images, large files). */
  blobs: Map<string, number>;
  /** `<!-- link PATH TARGET -->`: symbolic links, PATH -> TARGET. */
  links: Map<string, string>;
  /** `NAME=value` before `addon-gen` on the command line. */
  env: Record<string, string>;
  /** The arguments after `addon-gen`, and the lines the console block shows after the command. */
  args: string[];
  output: string;
}

/**
 * Every ```console block is an example: `$ addon-gen ARGS` (or `$ NAME=value addon-gen ARGS`)
 * and what that prints. Its files are the ```yaml file=PATH blocks before it in its section and
 * in the introductions of the sections around it: the page's introduction holds the addon.yaml of
 * every example, a section's own files add to those or replace them. Code sections are the
 * `### \`code\`` headings under `## Codes`.
 */
function parseDoc(markdown: string): { examples: Example[]; codes: string[]; rows: string[] } {
  const examples: Example[] = [];
  const codes: string[] = [];
  const rows = [...markdown.matchAll(/^\| \[`([a-z0-9-]+)`\]\(#\1\) \|/gm)].map((m) => m[1]!);
  // Files and blobs by heading level: a heading drops those of its level and deeper.
  const files: Map<string, string | Buffer>[] = Array.from({ length: 7 }, () => new Map());
  const before: Map<string, string>[] = Array.from({ length: 7 }, () => new Map());
  const blobs: Map<string, number>[] = Array.from({ length: 7 }, () => new Map());
  const links: Map<string, string>[] = Array.from({ length: 7 }, () => new Map());
  let level = 0;
  let section = '';
  let inCodes = false;
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      level = heading[1]!.length;
      section = heading[2]!;
      for (let deeper = level; deeper < files.length; deeper++) {
        files[deeper]!.clear();
        before[deeper]!.clear();
        blobs[deeper]!.clear();
        links[deeper]!.clear();
      }
      if (level === 2) inCodes = section === 'Codes';
      const code = inCodes && level === 3 ? /^`([a-z0-9-]+)`$/.exec(section)?.[1] : undefined;
      if (code) codes.push(code);
      continue;
    }
    const blob = /^<!-- file (\S+) (\d+) bytes -->$/.exec(line);
    if (blob) blobs[level]!.set(blob[1]!, Number(blob[2]));
    const link = /^<!-- link (\S+) (\S+) -->$/.exec(line);
    if (link) links[level]!.set(link[1]!, link[2]!);
    const fence = /^```(\w*)(.*)$/.exec(line);
    if (!fence) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const file = /\bfile=(\S+)/.exec(fence[2]!)?.[1];
    const encoding = /\bencoding=(latin1)\b/.exec(fence[2]!)?.[1] as 'latin1' | undefined;
    const text = `${body.join('\n')}\n`;
    // Content files: YAML, tables (```csv file=PATH) and M3U playlists (```m3u file=PATH).
    const content = fence[1] === 'yaml' || fence[1] === 'csv' || fence[1] === 'm3u';
    if (content && file && /\bbefore\b/.test(fence[2]!)) before[level]!.set(file, text);
    else if (content && file) files[level]!.set(file, encoding ? Buffer.from(text, encoding) : text);
    if (fence[1] !== 'console') continue;
    const command = /^\$ ((?:[A-Z_]+=\S* )*)addon-gen (.*)$/.exec(body[0] ?? '');
    expect(command, `the console block in "${section}" starts with "$ addon-gen"`).toBeTruthy();
    const code = inCodes && level === 3 ? /^`([a-z0-9-]+)`$/.exec(section)?.[1] : undefined;
    examples.push({
      section,
      code,
      files: new Map(files.flatMap((m) => [...m])),
      before: new Map(before.flatMap((m) => [...m])),
      blobs: new Map(blobs.flatMap((m) => [...m])),
      links: new Map(links.flatMap((m) => [...m])),
      env: Object.fromEntries(
        command![1]!
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((v) => v.split('=', 2) as [string, string]),
      ),
      args: command![2]!.split(/\s+/),
      output: body.slice(1).join('\n'),
    });
  }
  return { examples, codes, rows };
}

/** Where the examples say the project is, in place of the temporary folder. */
const PROJECT = '/home/me/my-addon';

async function runExample(example: Example): Promise<{ stdout: string; stderr: string }> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'addon-gen-doc-')));
  try {
    for (const [file, text] of example.files) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    }
    for (const [file, bytes] of example.blobs) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), '');
      await truncate(path.join(root, file), bytes); // sparse: no disk written for zeros
    }
    for (const [file, target] of example.links) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await symlink(target, path.join(root, file));
    }
    // Plain output, whatever the environment running the tests: only what the example sets.
    const env = { ...process.env };
    for (const name of ['FORCE_COLOR', 'NO_COLOR', 'GITHUB_ACTIONS', 'GITHUB_WORKSPACE']) delete env[name];
    Object.assign(env, example.env);
    const run = (args: string[]) =>
      new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [BIN, ...args], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 }, (_error, stdout, stderr) =>
          resolve({ stdout, stderr }),
        ),
      );
    if (example.before.size > 0) {
      for (const [file, text] of example.before) await writeFile(path.join(root, file), text);
      const first = await run(['build']);
      expect(first.stderr, 'the build before the example').toBe('');
      for (const [file, text] of example.files) await writeFile(path.join(root, file), text);
    }
    const { stdout, stderr } = await run(example.args);
    return { stdout: stdout.split(root).join(PROJECT), stderr: stderr.split(root).join(PROJECT) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('docs/diagnostics.md', async () => {
  const doc = parseDoc(await readFile(DOC, 'utf8'));

  it('documents every code once, and no code that does not exist', () => {
    expect([...doc.codes].sort()).toEqual(Object.keys(CODES).sort());
    expect([...doc.rows].sort(), 'the table of codes').toEqual(Object.keys(CODES).sort());
    for (const code of doc.codes) {
      expect(
        doc.examples.filter((e) => e.code === code),
        `examples of ${code}`,
      ).toHaveLength(1);
    }
  });

  doc.examples.forEach((example, index) => {
    const name = example.code ?? `${example.section} (example ${index + 1})`;
    it.concurrent(`${name}: the example prints what the page shows`, async ({ expect }) => {
      if (example.code) expect(example.output).toContain(`[${example.code}]`);
      const { stdout, stderr } = await runExample(example);
      if (example.code) expect(stderr).toContain(`[${example.code}]: `);
      // What the page shows is on one of the two streams, as it is.
      expect(stdout.includes(example.output) ? stdout : stderr).toContain(example.output);
    });
  });
});
