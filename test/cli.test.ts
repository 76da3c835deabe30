// The command line: exit statuses, where output goes, --json, --help, and the installed bin.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli.js';
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
    const overlap = await cli(['build', dir, '--out', dir]);
    expect(overlap.status).toBe(2);
    expect(overlap.stderr).toMatch(/overlaps the content folder/);
  });

  it('prints a machine-readable result with --json', async () => {
    const good = await cli(['build', await contentDir(GOOD), '--out', await tempDir(), '--json']);
    const result = JSON.parse(good.stdout);
    expect(result).toMatchObject({ ok: true, diagnostics: [], summary: { items: 1, videos: 0, files: 11, written: 11 } });
    const bad = await cli(['build', await contentDir(BAD), '--out', await tempDir(), '--json']);
    expect(bad.status).toBe(1);
    const errors = JSON.parse(bad.stdout);
    expect(errors.ok).toBe(false);
    expect(errors.diagnostics[0]).toMatchObject({ code: 'unknown-field', severity: 'error', line: 4, column: 1, path: 'relased' });
  });
});

describe('addon-gen validate', () => {
  it('runs every check and writes nothing', async () => {
    const dir = await contentDir(GOOD);
    const before = await readdir(dir, { recursive: true });
    const { status, stdout } = await cli(['validate', dir]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/Checked Test Addon 1\.0\.0/);
    expect(stdout).toMatch(/11 files would be written/);
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
});
