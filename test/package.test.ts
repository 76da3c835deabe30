// The npm package as users get it: `npm pack` (which compiles, through `prepack`) in a copy of this
// checkout, the tarball installed globally into a temporary prefix, then the installed command run
// with a PATH that has only that prefix and node: --version, init, build and serve, as the README's
// first steps do. Also: the tarball holds what users need and nothing else, package.json has what
// publishing needs, and the release route (the tarball by URL) installs too. Needs npm beside node
// and the npm registry (for the dependencies); without them the test fails, it never skips.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;
const NODE_DIR = path.dirname(process.execPath);
const NPM = path.join(NODE_DIR, process.platform === 'win32' ? 'npm.cmd' : 'npm');
const exec = promisify(execFile);

/** What is not copied for `npm pack`: installed, compiled or made by runs (`prepack` compiles lib/ afresh, as in CI). */
const NOT_COPIED = new Set(['.git', 'node_modules', 'lib', 'test-artifacts', 'dist', 'dist-s3', 'coverage']);

/**
 * The environment of every child: this one without the variables `npm test` sets for its script
 * (they would point the inner npm at this checkout) and with PATH as given. The user's npm
 * settings (registry, cache, proxy) stay.
 */
function childEnv(PATH: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower === 'path' || lower === 'init_cwd' || lower === 'node_env' || lower.startsWith('vitest')) continue;
    if (lower.startsWith('npm_') && !/^npm_config_(registry|cache|userconfig|globalconfig|(https?_|no)proxy|strict_ssl|cafile|ca)$/.test(lower))
      continue;
    env[key] = value;
  }
  return { ...env, PATH, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** A command with its exit status and output, also when it fails. */
async function command(file: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; timeout?: number }) {
  try {
    const { stdout, stderr } = await exec(file, args, { ...options, timeout: options.timeout ?? 60_000, maxBuffer: 16 << 20 });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error; // not found, timed out: the message says which
    return { status: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The entries of a .tgz, path -> bytes (files only), read with zlib and the ustar header layout. */
function untar(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  const text = (start: number, length: number) => tar.toString('utf8', start, start + length).replace(/\0.*$/s, '');
  for (let offset = 0; offset + 512 <= tar.length;) {
    const name = text(offset, 100);
    if (name === '') break; // the two zero blocks at the end
    const size = parseInt(text(offset + 124, 12).trim() || '0', 8);
    const prefix = text(offset + 345, 155);
    const type = text(offset + 156, 1);
    if (type === '0' || type === '') files.set(prefix ? `${prefix}/${name}` : name, tar.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

describe('the npm package, packed and installed as users get it', () => {
  let work: string;
  let tarball: string;
  let prefix: string;
  /** Only the prefix's bin and node's own folder: no node_modules/.bin of this checkout. */
  let cleanEnv: NodeJS.ProcessEnv;
  let entries: Map<string, Buffer>;

  beforeAll(async () => {
    if (!existsSync(NPM)) throw new Error(`npm not found beside node (${NPM}); this test needs it`);
    // One folder for all the tests below (support/content's tempDir goes after each test).
    work = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-package-'));

    // A copy, so that `prepack` compiles into the copy's lib/ and never rewrites this checkout's
    // while other tests read it; node_modules is linked (it has tsc, which `prepack` runs).
    const source = path.join(work, 'source');
    await cp(ROOT, source, { recursive: true, filter: (from) => !NOT_COPIED.has(path.relative(ROOT, from)) });
    await symlink(path.join(ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
    const packs = path.join(work, 'packs');
    await mkdir(packs);
    const packEnv = childEnv(NODE_DIR);
    const packed = await command(NPM, ['pack', '--pack-destination', packs], { cwd: source, env: packEnv, timeout: 120_000 });
    expect(packed.stderr + packed.stdout, 'npm pack').toMatch(/addon-gen-[\w.-]+\.tgz/);
    expect(packed.status, `npm pack failed:\n${packed.stderr}`).toBe(0);
    const made = await readdir(packs);
    expect(made).toEqual([`addon-gen-${PACKAGE.version}.tgz`]);
    tarball = path.join(packs, made[0]!);
    entries = untar(await readFile(tarball));

    prefix = path.join(work, 'prefix');
    cleanEnv = childEnv([path.join(prefix, 'bin'), NODE_DIR].join(path.delimiter));
    const installed = await command(NPM, ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: work,
      env: cleanEnv,
      timeout: 120_000,
    });
    expect(installed.status, `npm install --global failed:\n${installed.stderr}`).toBe(0);
    // npm 11 warns of each install script its allowScripts does not cover, and tells the user to allow it.
    expect(installed.stderr, 'npm install --global').not.toMatch(/install-scripts|allowScripts/i);
  }, 240_000);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('holds what users need and nothing else', () => {
    const paths = [...entries.keys()].map((p) => p.replace(/^package\//, '')).sort();
    const top = [...new Set(paths.map((p) => p.split('/')[0]))].sort();
    // The license travels with the package: package.json's "MIT" names it, LICENSE holds it.
    expect(top).toEqual(['LICENSE', 'README.md', 'bin', 'lib', 'package.json', 'schema', 'templates']);
    // The compiled CLI and library, the templates init copies (under names npm keeps), the schemas.
    for (const file of [
      'bin/addon-gen.js',
      'lib/cli/index.js',
      'lib/index.js',
      'lib/index.d.ts',
      'lib/cli/init.js',
      'templates/init/dot-github/workflows/addon.yml',
      'templates/init/dot-gitignore',
      'templates/index.html',
      'schema/addon.schema.json',
      'schema/item.schema.json',
    ]) {
      expect(paths, file).toContain(file);
    }
    // lib/ is compiled from src/ alone: no compiled tests, benchmarks or sources.
    expect(paths.filter((p) => /^lib\/(src|test|bench)\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(node_modules|\.git|test-artifacts)\//.test(p))).toEqual([]);
    // The entry points package.json names are in it.
    const packed = JSON.parse(entries.get('package/package.json')!.toString('utf8'));
    for (const target of [...Object.values(packed.bin as Record<string, string>), packed.main, packed.types]) {
      expect(paths, target).toContain(path.posix.normalize(target));
    }
  });

  it('has the package.json that publishing needs', () => {
    const packed = JSON.parse(entries.get('package/package.json')!.toString('utf8'));
    expect(packed.name).toBe('addon-gen');
    expect(packed.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(packed.license).toBe('MIT');
    // npm publish --provenance checks repository.url against the repository the workflow runs in.
    expect(packed.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/) });
    expect(packed.files).toEqual(expect.arrayContaining(['bin', 'lib', 'schema', 'templates']));
    expect(packed.engines.node).toMatch(/^>=\d+/);
    expect(packed.bin).toEqual({ 'addon-gen': 'bin/addon-gen.js' });
    expect(packed.description).toBeTruthy();
    expect(packed.private).toBeUndefined();
    // Users' installs run no script of the package: it comes compiled. These are the scripts npm
    // runs for an installed package (`prepare` for a Git install or a link), and warns of.
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(Object.keys(packed.scripts ?? {}), script).not.toContain(script);
  });

  it('runs --version, init, build and serve from the global install, with a clean PATH', async () => {
    const installedAt = await realpath(path.join(prefix, 'bin', 'addon-gen'));
    expect(installedAt).toBe(await realpath(path.join(prefix, 'lib', 'node_modules', 'addon-gen', 'bin', 'addon-gen.js')));
    // A global install brings the dependencies, never the devDependencies (the compiler, the tests).
    const deps = await readdir(path.join(prefix, 'lib', 'node_modules', 'addon-gen', 'node_modules'));
    for (const name of Object.keys(PACKAGE.dependencies)) expect(deps, name).toContain(name);
    for (const dev of ['typescript', 'vitest', 'tsx']) expect(deps, dev).not.toContain(dev);

    const version = await command('addon-gen', ['--version'], { env: cleanEnv });
    expect(version).toEqual({ status: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });

    const project = path.join(work, 'my-addon');
    const init = await command('addon-gen', ['init', project], { cwd: work, env: cleanEnv });
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain(`Created My Addon (community.my-addon) in ${project}:`);
    const workflow = await readFile(path.join(project, '.github/workflows/addon.yml'), 'utf8');
    expect(workflow).toContain(`npm install --global addon-gen@${PACKAGE.version}\n`);

    const build = await command('addon-gen', ['build'], { cwd: project, env: cleanEnv });
    expect(build.stderr).toBe('');
    expect(build.status).toBe(0);
    expect(build.stdout).toContain('Built My Addon 1.0.0 into dist/');
    const built = JSON.parse(await readFile(path.join(project, 'dist/manifest.json'), 'utf8'));
    expect(built).toMatchObject({ id: 'community.my-addon', name: 'My Addon' });

    // serve: the manifest over HTTP at the address it prints, then Ctrl-C.
    const server = spawn('addon-gen', ['serve', '--port', '0'], { cwd: project, env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      server.on('error', reject);
      server.on('exit', (code, signal) => resolve({ code, signal }));
    });
    let stdout = '';
    let stderr = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk));
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    try {
      const manifestUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve printed no manifest URL in 30 s:\n${stdout}${stderr}`)), 30_000);
        const look = () => {
          const found = stdout.match(/^ {2}manifest: (http:\/\/127\.0\.0\.1:\d+\/manifest\.json)$/m);
          if (found) {
            clearTimeout(timer);
            resolve(found[1]!);
          }
        };
        server.stdout.on('data', look);
        void exited.then(() => reject(new Error(`serve ended before listening:\n${stdout}${stderr}`)));
      });
      const response = await fetch(manifestUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ id: 'community.my-addon', name: 'My Addon', version: '1.0.0' });
    } finally {
      server.kill('SIGINT');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout).toMatch(/Stopped\.\n$/);
    expect(stderr).toBe('');
  }, 90_000);

  it('installs from the tarball by URL, as from a GitHub release (no compiler needed)', async () => {
    // Like GitHub's release downloads: the URL redirects to where the file is stored.
    const name = `addon-gen-${PACKAGE.version}.tgz`;
    const release = `/owner/addon-gen/releases/download/v${PACKAGE.version}/${name}`;
    const body = await readFile(tarball);
    const host = createServer((req, res) => {
      if (req.url === release) {
        res.writeHead(302, { location: `/storage/${name}` }).end();
      } else if (req.url === `/storage/${name}`) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}${release}`;
      const other = path.join(work, 'prefix-url');
      const env = childEnv([path.join(other, 'bin'), NODE_DIR].join(path.delimiter));
      const installed = await command(NPM, ['install', '--global', '--prefix', other, url, '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: work,
        env,
        timeout: 120_000,
      });
      expect(installed.status, `npm install --global <url> failed:\n${installed.stderr}`).toBe(0);
      expect(await command('addon-gen', ['--version'], { env })).toEqual({ status: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
    } finally {
      await new Promise((resolve) => host.close(resolve));
    }
  }, 150_000);
});
