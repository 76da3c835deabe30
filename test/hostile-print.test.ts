// Content that tries to reach the terminal or the CI log raw, through the real bin: newlines that
// would start a GitHub Actions workflow command of their own (a spoofed annotation), escape
// sequences and bells, line separators and bidi overrides, in field names, ids, the addon's name and
// the names of files in the output folder. And failed system calls: exit 2, the path in words.
import { execFile, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUG_STATUS, failure } from '../src/cli/index.js';
import { IoError, UsageError } from '../src/diagnostics/index.js';
import { addonYaml, contentDir, tempDir } from './support/content.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));

/** What content puts after a newline: a line of its own would be a workflow command. */
const SPOOF = '::error file=x::spoofed';

/**
 * Item files with a problem at each hostile value, written as YAML escapes so that the files
 * themselves are plain text, except raw.yaml, whose line holds a raw ESC and BEL (its excerpt).
 */
const BAD_ITEMS = {
  'x.yaml': [
    `- id: "a\\n${SPOOF}"`,
    '  type: movie',
    '  name: A',
    '- id: b',
    '  type: movie',
    '  name: B',
    `  "x\\n${SPOOF}": 1`,
    `  "y\\r${SPOOF}": 2`,
    '  "z\\e]0;pwned\\a\\e[5m\\e[2J": 3',
    `  "w\\u2028${SPOOF}\\u202e\\x85": 4`,
    '',
  ].join('\n'),
  'raw.yaml': 'id: raw\ntype: movie\nname: Raw\nrelased: "\u001b[2J\u0007"\n',
  // A file name is content too.
  [`n\n${SPOOF}\u001b[2J.yaml`]: 'id: n\ntype: movie\nname: N\nrelased: 1\n',
};

/** An addon name that is all attack, valid as a name: the build succeeds and prints it. */
const EVIL_NAME = `"Evil\\n${SPOOF} \\e[2J\\a\\r${SPOOF}"`;
const EVIL_ADDON = `id: org.example.evil\nversion: 1.0.0\nname: ${EVIL_NAME}\ncatalogs:\n  - { id: c, type: movie, name: C }\n`;
/** How the name must print: every character of it visible, on the one line. */
const EVIL_SHOWN = `Evil␊${SPOOF} ␛[2J␇␍${SPOOF}`;

/** The SGR codes addon-gen's own colors use (bold, dim, red, yellow, cyan and their ends); content's are others. */
const OWN_COLORS = /\u001b\[(?:1|2|22|31|33|36|39)m/g;
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  const full = { ...process.env };
  for (const name of ['FORCE_COLOR', 'NO_COLOR', 'GITHUB_ACTIONS', 'GITHUB_WORKSPACE', 'CI']) delete full[name];
  return new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...full, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/**
 * The lines of `text` that the GitHub Actions runner takes as workflow commands: it reads output
 * line by line, a line ending at LF, CR or CR LF, and a line that starts with `::` once its
 * leading blanks are trimmed is a command.
 */
function commandLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => line.trimStart().startsWith('::'));
}

/** The first raw control character left once addon-gen's own colors are removed, as a code, or undefined. */
function rawControl(text: string): string | undefined {
  const found = RAW_CONTROL.exec(text.replace(OWN_COLORS, ''));
  return found
    ? `U+${found[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${JSON.stringify(text.slice(Math.max(0, found.index - 20), found.index + 20))}`
    : undefined;
}

/** The part of `--json` the annotations are checked against. */
const JsonResult = z.object({
  diagnostics: z.array(
    z.object({ code: z.string(), severity: z.string(), file: z.string().nullable(), line: z.number().nullable(), message: z.string() }),
  ),
});

/**
 * The annotations a run must print, one per diagnostic, as the start of each command line: the
 * file escaped as GitHub's toolkit escapes a property, then made printable.
 */
function annotationStarts(diagnostics: z.infer<typeof JsonResult>['diagnostics'], root: string): RegExp[] {
  const property = (text: string) =>
    text
      .replace(/%/g, '%25')
      .replace(/\r/g, '%0D')
      .replace(/\n/g, '%0A')
      .replace(/:/g, '%3A')
      .replace(/,/g, '%2C')
      .replace(/\u001b/g, '␛');
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return diagnostics.map((d) => {
    const file =
      d.file === null
        ? ''
        : `file=${literal(property(path.relative(root, d.file).split(path.sep).join('/')))},${d.line === null ? '' : `line=${d.line},col=\\d+,`}`;
    return new RegExp(`^::${d.severity} ${file}title=${d.code}::`);
  });
}

/** Every printed line safe: no command line but the expected annotations (on `annotated`), no raw control. */
function expectSafe(run: Run, annotations: RegExp[], annotated: 'stdout' | 'stderr' = 'stdout') {
  for (const stream of ['stdout', 'stderr'] as const) {
    const commands = commandLines(run[stream]);
    const expected = stream === annotated ? annotations : [];
    expect(commands, `${stream}: ${run[stream].slice(0, 2_000)}`).toHaveLength(expected.length);
    commands.forEach((line, index) => expect(line, stream).toMatch(expected[index]!));
    expect(rawControl(run[stream]), stream).toBeUndefined();
  }
}

describe('content cannot write raw to the terminal or the CI log', () => {
  it('prints the problems of hostile values with every character visible, in a terminal format and in GitHub Actions', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), ...BAD_ITEMS });
    const root = path.dirname(dir);
    const json = await runCli(['build', dir, '--out', path.join(await tempDir(), 'dist'), '--json']);
    expect(json.status).toBe(1);
    // --json is JSON as it was: the values as they are, escaped by JSON alone.
    const { diagnostics } = JsonResult.parse(JSON.parse(json.stdout));
    expect(diagnostics.map((d) => d.message)).toContain(`unknown field "x\n${SPOOF}"`);
    expect(json.stdout).toContain(`unknown field \\"x\\n${SPOOF}\\"`);
    const annotations = annotationStarts(diagnostics, root);
    expect(annotations.length).toBeGreaterThanOrEqual(6);

    const envs: Record<string, string>[] = [{}, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: root }, { FORCE_COLOR: '1' }];
    for (const env of envs) {
      const run = await runCli(['build', dir, '--out', path.join(await tempDir(), 'dist')], env);
      const label = JSON.stringify(env);
      expect(run.status, label).toBe(1);
      expectSafe(run, 'GITHUB_ACTIONS' in env ? annotations : []);
      const plain = run.stderr.replace(OWN_COLORS, '');
      expect(plain, label).toContain(`"a␊${SPOOF}" contains a control character`);
      expect(plain, label).toContain(`unknown field "x␊${SPOOF}"`);
      expect(plain, label).toContain(`unknown field "y␍${SPOOF}"`);
      expect(plain, label).toContain('unknown field "z␛]0;pwned␇␛[5m␛[2J"');
      expect(plain, label).toContain(`unknown field "w␤${SPOOF}��"`);
      expect(plain, label).toContain('  4 | relased: "␛[2J␇"');
      expect(plain, label).toContain(`n␊${SPOOF}␛[2J.yaml:4:1: error[unknown-field]`);
      // In an annotation a newline is GitHub's escape, which it shows as a line break inside the annotation.
      if ('GITHUB_ACTIONS' in env) expect(run.stdout, label).toContain(`title=unknown-field::unknown field "x%0A${SPOOF}"%0Ahint: `);
    }
    // With --json in a workflow the annotations go to stderr, as safe.
    const jsonInWorkflow = await runCli(['build', dir, '--out', path.join(await tempDir(), 'dist'), '--json'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: root,
    });
    expect(jsonInWorkflow.stdout).toBe(json.stdout);
    expectSafe({ ...jsonInWorkflow, stdout: '' }, annotations, 'stderr');
  });

  it('prints the addon name and the names of files found in the output folder visibly, in the summary, the warning and serve', async () => {
    const dir = await contentDir({ 'addon.yaml': EVIL_ADDON, 'x.yaml': 'id: x\ntype: movie\nname: X\n' });
    const root = path.dirname(dir);
    const foreign = [`f\n${SPOOF}`, 'g\u001b]0;pwned\u0007\u001b[2J'];
    const output = async () => {
      const out = path.join(await tempDir(), 'dist');
      await mkdir(out);
      for (const name of foreign) await writeFile(path.join(out, name), 'not the addon’s');
      return out;
    };
    let out = '';
    const envs: Record<string, string>[] = [{}, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: root }];
    for (const env of envs) {
      // A new output folder each time: foreign files are reported by the first build that sees them.
      out = await output();
      const run = await runCli(['build', dir, '--out', out], env);
      const label = JSON.stringify(env);
      expect(run.status, `${label} ${run.stderr}`).toBe(0);
      expectSafe(run, 'GITHUB_ACTIONS' in env ? [/^::warning title=foreign-files::/] : []);
      expect(run.stdout, label).toContain(`Built ${EVIL_SHOWN} 1.0.0 into ${out}/\n`);
      const plain = run.stderr.replace(OWN_COLORS, '');
      expect(plain, label).toContain(`f␊${SPOOF}`);
      expect(plain, label).toContain('g␛]0;pwned␇␛[2J');
      const validate = await runCli(['validate', dir], env);
      expectSafe(validate, []);
      expect(validate.stdout, label).toContain(`Checked ${EVIL_SHOWN} 1.0.0\n`);
    }

    // serve prints the name of the tree it serves; stopped by a signal once it has said so.
    const serve = spawn(process.execPath, [BIN, 'serve', '--dir', out, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Run = { status: -1, stdout: '', stderr: '' };
    let stopped = false;
    serve.stdout.on('data', (chunk: Buffer) => {
      run.stdout += chunk.toString();
      // Once: a second Ctrl-C ends serve without its clean stop.
      if (!stopped && run.stdout.includes('Press Ctrl-C to stop.')) stopped = serve.kill('SIGINT');
    });
    serve.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
    const timer = setTimeout(() => serve.kill('SIGKILL'), 20_000);
    run.status = await new Promise<number>((resolve) => serve.once('exit', (code) => resolve(code ?? -1)));
    clearTimeout(timer);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Serving ${EVIL_SHOWN.replace(/[[\]]/g, '\\$&')} 1\\.0\\.0 at http://127\\.0\\.0\\.1:\\d+/ from `));
    expectSafe(run, []);
  });
});

describe('failed system calls', () => {
  it('exit 2 with one line that names the path in plain words, escaped, and no stack trace', async () => {
    const dir = await tempDir();
    // A file where init needs a folder: fails even for root, which permissions cannot stop.
    const file = path.join(dir, `f\n${SPOOF}`);
    await writeFile(file, '');
    const init = await runCli(['init', path.join(file, 'project')]);
    expect(init.status).toBe(2);
    expect(init.stdout).toBe('');
    expect(init.stderr).toBe(
      `addon-gen: cannot create the folder ${path.join(dir, `f␊${SPOOF}`, 'project', '.github', 'workflows')}: a part of the path is a file, not a folder (ENOTDIR)\n`,
    );

    // serve's private folder, where no folder can be made.
    const content = await contentDir({ 'addon.yaml': addonYaml(), 'x.yaml': 'id: x\ntype: movie\nname: X\n' });
    const serve = await runCli(['serve', content, '--port', '0'], { TMPDIR: path.join(file, 'tmp') });
    expect(serve.status).toBe(2);
    expect(serve.stderr).toMatch(
      /^addon-gen: cannot create a temporary folder at [^\n]*tmp\/addon-gen-serve-\S*: a part of the path is a file, not a folder \(ENOTDIR\)\n$/,
    );
    expect(serve.stderr).toContain(`f␊${SPOOF}`);
  });

  it('tells usage errors, system errors and bugs apart', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/x/y'"), {
      code: 'ENOSPC',
      errno: -28,
      syscall: 'write',
      path: '/x/y',
    });
    expect(failure(enospc)).toEqual({ status: 2, message: 'cannot write /x/y: no space left on the device (ENOSPC)' });
    const rename = Object.assign(new Error('EXDEV'), { code: 'EXDEV', syscall: 'rename', path: '/a', dest: '/b' });
    expect(failure(rename)).toEqual({ status: 2, message: 'cannot rename /a to /b: it is on another file system (EXDEV)' });
    // A code the table does not word: the system's own description.
    const other = Object.assign(new Error('E2BIG'), { code: 'E2BIG', errno: -7, syscall: 'open', path: '/z' });
    expect(failure(other)).toEqual({ status: 2, message: 'cannot open /z: argument list too long (E2BIG)' });
    // Usage errors keep the lines they were written in; IoError is one.
    expect(failure(new UsageError(`two\nlines \u001b[2J`))).toEqual({ status: 2, message: 'two\nlines ␛[2J' });
    expect(failure(new IoError('cannot write /out/x: disk full', '/out/x', 'ENOSPC'))).toEqual({
      status: 2,
      message: 'cannot write /out/x: disk full',
    });
    // Node's own errors have codes too (ERR_*), but no system call: bugs, like a TypeError.
    const invalid = Object.assign(new TypeError('The "path" argument must be of type string'), { code: 'ERR_INVALID_ARG_TYPE' });
    for (const bug of [invalid, new TypeError("Cannot read properties of undefined (reading 'x')"), 'thrown text']) {
      const { status, message } = failure(bug);
      expect(status).toBe(BUG_STATUS);
      expect(message).toMatch(/^internal error: .*; this is a bug in addon-gen, please report it/);
      expect(message).not.toContain('\n');
    }
  });
});
