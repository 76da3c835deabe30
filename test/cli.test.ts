// The command line: exit statuses, where output goes, --json, --help, and the installed bin.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/index.js';
import { addonYaml, contentDir, tempDir } from './support/content.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));
const GOOD = { 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'x.yaml': 'id: x\ntype: movie\nname: X\n' };
// GOOD builds 5 addon files (manifest, 2 catalog pages, meta, stream) and 6 for pages and hosts
// (index.html, 404.html, _headers, _redirects, vercel.json, .nojekyll).
const BAD = { ...GOOD, 'x.yaml': 'id: x\ntype: movie\nname: X\nrelased: 2001-01-01\n' };

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { status, stdout, stderr };
}

describe('addon-gen build', () => {
  it('builds, prints a summary on stdout and exits 0', async () => {
    const dir = await contentDir(GOOD);
    const out = path.join(await tempDir(), 'dist');
    const { status, stdout, stderr } = await cli(['build', dir, '--out', out]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(/Built Test Addon 1\.0\.0/);
    expect(stdout).toMatch(/1 item, 0 videos, 0 streams, 0 subtitles/);
    expect(stdout).toMatch(/\d+ files, .*: \d+ written, 0 unchanged, 0 removed/);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(true);
  });

  it('prints problems on stderr with the source line, writes nothing, exits 1', async () => {
    const dir = await contentDir(BAD);
    const out = path.join(await tempDir(), 'dist');
    const { status, stdout, stderr } = await cli(['build', dir, '--out', out]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${path.join(dir, 'x.yaml')}:4:1: error[unknown-field]: unknown field "relased"\n`);
    expect(stderr).toContain('  4 | relased: 2001-01-01\n    | ^');
    expect(stderr).toContain('hint: did you mean "released"?');
    expect(stderr).toContain('Nothing was written.');
    expect(existsSync(out)).toBe(false);
  });

  it('exits 2 for a missing content folder, a bad flag or a bad base URL', async () => {
    const missing = await cli(['build', '/nonexistent/content']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^addon-gen: content folder \/nonexistent\/content does not exist/);
    const flag = await cli(['build', '--frobnicate']);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--frobnicate'/);
    const dir = await contentDir(GOOD);
    const base = await cli(['build', dir, '--base-url', 'not a url']);
    expect(base.status).toBe(2);
    // The install URL given for its folder: every file would be looked for below manifest.json.
    const manifest = await cli(['build', dir, '--base-url', 'https://user.github.io/repo/manifest.json']);
    expect(manifest.status).toBe(2);
    expect(manifest.stderr).toBe(
      "addon-gen: --base-url https://user.github.io/repo/manifest.json: expected the folder the files are published in, not the manifest's URL: leave out manifest.json\n",
    );
    // Every link would publish them; the message does not print them back.
    const secret = await cli(['build', dir, '--base-url', 'https://user:hunter2@cdn.example.org/']);
    expect(secret.status).toBe(2);
    expect(secret.stderr).toMatch(/^addon-gen: --base-url: expected a URL without a user name or password/);
    expect(secret.stderr).not.toContain('hunter2');
    // Not printed back either when the URL is wrong in another way as well.
    const both = await cli(['build', dir, '--base-url', 'https://user:hunter2@cdn.example.org/?x=1']);
    expect(both.stderr).toMatch(/^addon-gen: --base-url: expected a URL without a user name or password/);
    const overlap = await cli(['build', dir, '--out', dir]);
    expect(overlap.status).toBe(2);
    expect(overlap.stderr).toMatch(/overlaps the content folder/);
  });

  it('ends with one line naming the path when a file cannot be written, with and without write threads', async () => {
    // A file where the build needs a folder: fails even for root, which permissions cannot stop.
    // 700 items make over a thousand files, which are written by threads; one item is not.
    const items = (n: number) => Array.from({ length: n }, (_, i) => `- { id: "m${i}", type: movie, name: "M ${i}" }\n`).join('');
    for (const n of [1, 700]) {
      const dir = await contentDir({ ...GOOD, 'x.yaml': items(n) });
      const out = path.join(await tempDir(), 'dist');
      await mkdir(out);
      await writeFile(path.join(out, 'meta'), 'not a folder');
      const { status, stdout, stderr } = await cli(['build', dir, '--out', out]);
      expect(status).toBe(2);
      expect(stdout).toBe('');
      // Found before anything is written: a file where the build needs a folder.
      expect(stderr).toBe(
        `addon-gen: ${path.join(out, 'meta')} is a file, where the build writes a folder of the addon. Nothing was written; move the file away and build again\n`,
      );
      // The build stopped: no file of the addon was written after the failure, and none is half-written.
      const left = await readdir(out, { recursive: true });
      expect(left.filter((f) => f.endsWith('.addon-gen-tmp'))).toEqual([]);
    }
  });

  it('prints a machine-readable result with --json', async () => {
    const good = await cli(['build', await contentDir(GOOD), '--out', await tempDir(), '--json']);
    const result = JSON.parse(good.stdout);
    // 14: Cloudflare's JSON 404 pages only in the folders of the resources declared (no subtitles here).
    expect(result).toMatchObject({ ok: true, diagnostics: [], summary: { items: 1, videos: 0, files: 14, written: 14 } });
    const bad = await cli(['build', await contentDir(BAD), '--out', await tempDir(), '--json']);
    expect(bad.status).toBe(1);
    const errors = JSON.parse(bad.stdout);
    expect(errors.ok).toBe(false);
    expect(errors.diagnostics[0]).toMatchObject({ code: 'unknown-field', severity: 'error', line: 4, column: 1, path: 'relased' });
  });
});

describe('addon-gen init --schedule', () => {
  it('adds the schedule to the workflow, and refuses what is not a cron expression', async () => {
    const dir = path.join(await tempDir(), 'scheduled');
    const { status, stderr } = await cli(['init', dir, '--schedule', '0 6 * * *']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(await readFile(path.join(dir, '.github/workflows/addon.yml'), 'utf8')).toMatch(/^\s+schedule:\n\s+- cron: '0 6 \* \* \*'$/m);
    const bad = path.join(await tempDir(), 'bad');
    const refused = await cli(['init', bad, '--schedule', 'daily']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^addon-gen: --schedule "daily": expected a cron expression of 5 fields/);
    expect(existsSync(bad)).toBe(false);
  });
});

describe('a project folder as init makes it', () => {
  it('builds its content/ into its own dist/, named as the project or as its content folder', async () => {
    const project = path.join(await tempDir(), 'my-addon');
    await mkdir(path.join(project, 'content'), { recursive: true });
    for (const [name, text] of Object.entries(GOOD)) await writeFile(path.join(project, 'content', name), text);

    const asProject = await cli(['build', project]);
    expect(asProject.stderr).toBe('');
    expect(asProject.status).toBe(0);
    expect(asProject.stdout).toContain(`Built Test Addon 1.0.0 into ${path.join(project, 'dist')}/`);
    expect(existsSync(path.join(project, 'dist', 'manifest.json'))).toBe(true);
    // addon.yaml is read as the addon, not as an item of a folder above it.
    expect(JSON.parse(await readFile(path.join(project, 'dist', 'manifest.json'), 'utf8')).id).toBe('org.example.test');

    const asContent = await cli(['build', `${path.join(project, 'content')}/`]);
    expect(asContent.status).toBe(0);
    expect(asContent.stdout).toContain(`into ${path.join(project, 'dist')}/`);
    expect(asContent.stdout).toMatch(/0 written, \d+ unchanged/);
    // Nothing beside the project: the output and its bookkeeping are inside it.
    expect(await readdir(path.dirname(project))).toEqual(['my-addon']);

    expect((await cli(['validate', project])).status).toBe(0);
    // --out still wins.
    const elsewhere = path.join(await tempDir(), 'out');
    expect((await cli(['build', project, '--out', elsewhere])).status).toBe(0);
    expect(existsSync(path.join(elsewhere, 'manifest.json'))).toBe(true);
  });
});

describe('addon-gen validate', () => {
  it('runs every check and writes nothing', async () => {
    const dir = await contentDir(GOOD);
    const before = await readdir(dir, { recursive: true });
    const { status, stdout } = await cli(['validate', dir]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/Checked Test Addon 1\.0\.0/);
    expect(stdout).toMatch(/14 files would be written/);
    expect(await readdir(dir, { recursive: true })).toEqual(before);
    expect((await cli(['validate', await contentDir(BAD)])).status).toBe(1);
  });
});

describe('help and version', () => {
  it('answers --help on every command and --version', async () => {
    for (const argv of [['--help'], ['build', '--help'], ['validate', '--help']]) {
      const { status, stdout } = await cli(argv);
      expect(status, argv.join(' ')).toBe(0);
      expect(stdout).toMatch(/Usage: addon-gen/);
    }
    expect((await cli(['build', '--help'])).stdout).toContain('--base-url <url>');
    const version = await cli(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('the installed bin', () => {
  const exec = promisify(execFile);

  it('runs the compiled CLI and exits with its status', async () => {
    const dir = await contentDir(BAD);
    const failure = await exec(process.execPath, [BIN, 'validate', dir]).catch((e: { code: number; stderr: string }) => e);
    expect('code' in failure && failure.code).toBe(1);
    expect((failure as { stderr: string }).stderr).toContain('unknown field "relased"');
    const ok = await exec(process.execPath, [BIN, 'build', await contentDir(GOOD), '--out', await tempDir(), '--quiet']);
    expect(ok.stdout).toBe('');
  });

  it('ends with status 2 and no stack trace when the reader of its output goes away, or the device is full', async () => {
    const dir = await contentDir(GOOD);
    // `addon-gen build --json | head -c 0`: the pipe closed before the first write.
    const child = spawn(process.execPath, [BIN, 'build', dir, '--out', await tempDir(), '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(status).toBe(2);
    const full = await exec('sh', ['-c', `"${process.execPath}" "${BIN}" build "${dir}" --out "${await tempDir()}" > /dev/full`]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect('code' in full && full.code).toBe(2);
    expect((full as { stderr: string }).stderr).toBe('addon-gen: stdout: cannot write: no space left on the device (ENOSPC)\n');
  });

  it('renders everything again after its code or page templates changed, as after an upgrade', async () => {
    // A copy of the package, to change.
    const root = path.dirname(path.dirname(BIN));
    const copy = await tempDir();
    for (const folder of ['bin', 'lib', 'templates']) await cp(path.join(root, folder), path.join(copy, folder), { recursive: true });
    await cp(path.join(root, 'package.json'), path.join(copy, 'package.json'));
    await symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    const bin = path.join(copy, 'bin', 'addon-gen.js');
    const [dir, out] = [await contentDir(GOOD), await tempDir()];
    const build = async () => JSON.parse((await exec(process.execPath, [bin, 'build', dir, '--out', out, '--json'])).stdout).summary;
    await build();
    expect((await build()).reused).toBe(true);
    const template = path.join(copy, 'templates', 'index.html');
    await writeFile(template, (await readFile(template, 'utf8')).replace('<body', '<!-- changed --><body'));
    const afterTemplate = await build();
    expect(afterTemplate.reused).toBe(false);
    expect(afterTemplate.byResource.page.written).toBe(1);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toContain('<!-- changed -->');
    await writeFile(path.join(copy, 'lib', 'zz-new.js'), '// a changed checkout\n');
    const afterCode = await build();
    expect(afterCode.reused).toBe(false);
    // Another generator: no fingerprint is trusted, every body is rendered again (and found the same).
    expect(afterCode.written).toBe(0);
  });
});

describe('how problems are printed', () => {
  // A warning beside the error: a series that no catalog lists.
  const MIXED = { ...BAD, 's.yaml': 'id: s\ntype: series\nname: S\n' };

  async function cliWith(argv: string[], io: { stderrIsTTY?: boolean; env?: Record<string, string> }) {
    let stdout = '';
    let stderr = '';
    const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), ...io });
    return { status, stdout, stderr };
  }

  it('gives every diagnostic in --json the same eight keys, null where unknown, and summary null on failure', async () => {
    const { status, stdout } = await cli(['validate', await contentDir(MIXED), '--json']);
    expect(status).toBe(1);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(['ok', 'diagnostics', 'summary']);
    expect(result.summary).toBeNull();
    expect(result.diagnostics.map((d: { code: string }) => d.code)).toEqual(['uncovered-type', 'unknown-field']);
    for (const d of result.diagnostics) {
      expect(Object.keys(d)).toEqual(['code', 'severity', 'file', 'line', 'column', 'path', 'message', 'hint']);
    }
    const missing = await cli(['validate', await contentDir({ 'x.yaml': GOOD['x.yaml'] }), '--json']);
    const [d] = JSON.parse(missing.stdout).diagnostics;
    expect(d).toMatchObject({ code: 'missing-addon-yaml', line: null, column: null, path: null });
  });

  it('colors problems on a terminal, not with NO_COLOR, and with FORCE_COLOR anywhere', async () => {
    const dir = await contentDir(BAD);
    const tty = await cliWith(['validate', dir], { stderrIsTTY: true, env: {} });
    expect(tty.stderr).toContain('\u001b[31m\u001b[1merror\u001b[22m\u001b[39m');
    const noColor = await cliWith(['validate', dir], { stderrIsTTY: true, env: { NO_COLOR: '1' } });
    expect(noColor.stderr).not.toContain('\u001b');
    const forced = await cliWith(['validate', dir], { stderrIsTTY: false, env: { FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain('\u001b[');
    expect((await cli(['validate', dir])).stderr).not.toContain('\u001b');
  });

  it('adds GitHub Actions commands on stdout in a workflow, paths relative to the workspace', async () => {
    const dir = await contentDir(MIXED);
    const env = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: path.dirname(dir) };
    const { status, stdout, stderr } = await cliWith(['build', dir, '--out', path.join(await tempDir(), 'dist')], { env });
    expect(status).toBe(1);
    const name = path.basename(dir);
    expect(stdout).toBe(
      `::warning file=${name}/s.yaml,line=1,col=5,title=uncovered-type::1 series item is in no catalog (no catalog has type "series"): s (at id)%0Ahint: add a catalog with \`type: series\` to addon.yaml; until then these items can only be opened by id\n` +
        `::error file=${name}/x.yaml,line=4,col=1,title=unknown-field::unknown field "relased"%0Ahint: did you mean "released"?\n`,
    );
    // The human format beside them, colored: GitHub's log shows colors.
    expect(stderr).toContain('\u001b[31m\u001b[1merror\u001b[22m\u001b[39m\u001b[2m[unknown-field]\u001b[22m: unknown field "relased"');
    expect((await cli(['validate', dir])).stdout).toBe('');
  });

  it('keeps stdout pure JSON in a workflow with --json: the commands go to stderr', async () => {
    const dir = await contentDir(BAD);
    const { stdout, stderr } = await cliWith(['validate', dir, '--json'], { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir } });
    expect(JSON.parse(stdout).diagnostics).toHaveLength(1);
    expect(stderr).toBe('::error file=x.yaml,line=4,col=1,title=unknown-field::unknown field "relased"%0Ahint: did you mean "released"?\n');
  });

  it('the installed bin reads FORCE_COLOR and GITHUB_ACTIONS from its environment, paths relative to its folder', async () => {
    const dir = await contentDir(BAD);
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1', GITHUB_ACTIONS: 'true' };
    delete env.NO_COLOR;
    delete env.GITHUB_WORKSPACE;
    const failure = await promisify(execFile)(process.execPath, [BIN, 'validate', path.basename(dir)], { cwd: path.dirname(dir), env }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect('code' in failure && failure.code).toBe(1);
    const { stdout, stderr } = failure as { stdout: string; stderr: string };
    expect(stdout).toBe(
      `::error file=${path.basename(dir)}/x.yaml,line=4,col=1,title=unknown-field::unknown field "relased"%0Ahint: did you mean "released"?\n`,
    );
    expect(stderr).toContain(`\u001b[1m${path.basename(dir)}/x.yaml:4:1:\u001b[22m`);
  });
});

describe('progress and summary', () => {
  async function cliWith(argv: string[], io: { stdoutIsTTY?: boolean; env?: Record<string, string> }) {
    let stdout = '';
    const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: () => {}, ...io });
    return { status, stdout };
  }
  const MANY = {
    ...GOOD,
    'x.yaml': Array.from(
      { length: 300 },
      (_, i) => `- { id: "x${i}", type: movie, name: "X ${i}", streams: [{ url: "https://e.org/${i}.mp4" }] }`,
    ).join('\n'),
  };

  it('draws one progress line on a terminal, through every stage, and clears it before the summary', async () => {
    const dir = await contentDir(MANY);
    const { status, stdout } = await cliWith(['build', dir, '--out', path.join(await tempDir(), 'dist')], { stdoutIsTTY: true, env: {} });
    expect(status).toBe(0);
    const [progress, summary] = [stdout.slice(0, stdout.lastIndexOf('\r\x1b[2K')), stdout.slice(stdout.lastIndexOf('\r\x1b[2K') + 5)];
    const frames = progress.split('\r\x1b[2K').filter(Boolean);
    expect(frames.slice(0, 4)).toEqual(['load…', 'validate…', 'plan…', 'write…']);
    // The last frame counts every file; the line never holds a newline, so it redraws in place.
    expect(frames.at(-1)).toMatch(/^write… (\d[\d,]*) \/ \1 files$/);
    expect(progress).not.toContain('\n');
    expect(summary).toMatch(/^Built Test Addon/);
  });

  it('draws nothing when stdout is not a terminal, in CI, on a dumb terminal, with --quiet or with --json', async () => {
    const dir = await contentDir(GOOD);
    const out = path.join(await tempDir(), 'dist');
    const cases: [string[], { stdoutIsTTY?: boolean; env?: Record<string, string> }][] = [
      [[], { stdoutIsTTY: false, env: {} }],
      [[], { stdoutIsTTY: true, env: { CI: 'true' } }],
      [[], { stdoutIsTTY: true, env: { GITHUB_ACTIONS: 'true' } }],
      [[], { stdoutIsTTY: true, env: { TERM: 'dumb' } }],
      [['--quiet'], { stdoutIsTTY: true, env: {} }],
      [['--json'], { stdoutIsTTY: true, env: {} }],
    ];
    for (const [flags, io] of cases) {
      const { stdout } = await cliWith(['build', dir, '--out', out, ...flags], io);
      expect(stdout, JSON.stringify([flags, io])).not.toContain('\r');
    }
  });

  it('lists files, bytes and writes per resource and the time of each stage', async () => {
    const dir = await contentDir(GOOD);
    const out = path.join(await tempDir(), 'dist');
    const first = await cli(['build', dir, '--out', out, '--host', 'netlify']);
    const row = (resource: string) => new RegExp(`^ +${resource} +(\\d+) +([\\d.]+ (?:B|KiB)) +(\\d+)$`, 'm').exec(first.stdout)!.slice(1);
    // Counted from the files on disk, not from the summary's own numbers.
    const onDisk = (folder: string) =>
      readdir(path.join(out, folder), { recursive: true, withFileTypes: true }).then((e) => e.filter((f) => f.isFile()).length);
    const catalogs = String(await onDisk('catalog'));
    expect(row('catalog')).toEqual([catalogs, expect.any(String), catalogs]);
    expect(row('meta')).toEqual(['1', expect.any(String), '1']);
    expect(row('host')).toEqual(['2', expect.any(String), '2']);
    expect(first.stdout).toMatch(/\d+\.\d\d s \(load \d+\.\d\d s, validate \d+\.\d\d s, plan \d+\.\d\d s, write \d+\.\d\d s\)/);
    const again = await cli(['build', dir, '--out', out, '--host', 'netlify']);
    expect(/^ +meta +1 +\S+ \S+ +0$/m.test(again.stdout)).toBe(true);
    // Nothing changed: the build ended once it had read the content and looked at the output.
    const json = JSON.parse((await cli(['build', dir, '--out', out, '--host', 'netlify', '--json'])).stdout);
    expect(json.summary.reused).toBe(true);
    expect(Object.keys(json.summary.stages)).toEqual(['load', 'write']);
    expect(json.summary.byResource.meta).toEqual({ files: 1, bytes: expect.any(Number), written: 0 });
    // Unless told not to: every stage again, every file compared, none written.
    const forced = JSON.parse((await cli(['build', dir, '--out', out, '--host', 'netlify', '--json', '--no-reuse'])).stdout);
    expect(forced.summary.reused).toBe(false);
    expect(Object.keys(forced.summary.stages)).toEqual(['load', 'validate', 'plan', 'write']);
    expect(forced.summary.written).toBe(0);
    const fresh = JSON.parse((await cli(['build', dir, '--out', path.join(await tempDir(), 'dist'), '--json'])).stdout);
    expect(fresh.summary.reused).toBe(false);
    expect(Object.keys(fresh.summary.stages)).toEqual(['load', 'validate', 'plan', 'write']);
  });
});
