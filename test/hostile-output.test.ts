// Hostile output locations: links that lead the output (or S3) folder somewhere else, links inside
// it, two builds at once into one folder, and file systems that are full, read-only or in the way.
// Each case runs the real command on real files, real links, real concurrent processes and, as
// root, a real small tmpfs; none may write or delete a path outside the folders it was given.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { addonYaml, contentDir, movies, readTree, tempDir } from './support/content.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));
const CATALOGS = 'catalogs:\n  - { id: films, type: movie, name: Films, genres: auto }\n';
const isRoot = process.getuid?.() === 0;

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** The real command in a child process, with HOME set where the test says (never the real one). */
function runCli(args: string[], options: { cwd?: string; home?: string } = {}): Promise<Run> {
  const env = { ...process.env };
  for (const name of ['FORCE_COLOR', 'NO_COLOR', 'GITHUB_ACTIONS']) delete env[name];
  if (options.home) env.HOME = options.home;
  return new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { cwd: options.cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ status: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** A content folder of `count` films with a few genres each. */
function films(count: number): Promise<string> {
  return contentDir({ 'addon.yaml': addonYaml(CATALOGS), 'films.yaml': movies(count, (i) => [`G${i % 3}`, 'All']) });
}

/** Every entry below `dir` (links not followed) as path -> bytes, link target, or `/` for a folder. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const visit = async (at: string, relative: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const full = path.join(at, entry.name);
      if (entry.isSymbolicLink()) seen.set(name, `-> ${await readlink(full)}`);
      else if (entry.isDirectory()) {
        seen.set(name, '/');
        await visit(full, name);
      } else seen.set(name, (await readFile(full)).toString('base64'));
    }
  };
  await visit(dir, '');
  return seen;
}

/** Temporary and staging leftovers of a build anywhere below `dir`. */
async function leftovers(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((name) => /addon-gen-(tmp|staging)/.test(name));
}

beforeAll(async () => {
  // The command runs from lib/: it must be compiled from the current src/ (npm test does that first).
  expect(existsSync(fileURLToPath(new URL('../lib/cli/index.js', import.meta.url))), 'lib/ is compiled').toBe(true);
});

describe('the output and S3 folders, after links are resolved', () => {
  it('refuses an output folder that is a link to the home folder, and writes nothing there', async () => {
    const home = await tempDir('addon-gen-home-');
    await writeFile(path.join(home, 'index.html'), 'my own page');
    const before = await snapshot(home);
    const content = await films(3);
    const work = await tempDir();
    await symlink(home, path.join(work, 'site'));
    const run = await runCli(['build', content, '--out', 'site'], { cwd: work, home });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--out site \(.*\) is your home folder/);
    expect(await snapshot(home)).toEqual(before);
  });

  it('refuses a link to the root folder and to a folder that holds the home folder', async () => {
    const home = await tempDir('addon-gen-home-');
    const inner = path.join(home, 'user');
    await mkdir(inner);
    const content = await films(3);
    const work = await tempDir();
    await symlink('/', path.join(work, 'root'));
    await symlink(home, path.join(work, 'above'));
    const root = await runCli(['build', content, '--out', 'root'], { cwd: work, home: inner });
    expect(root.status, root.stderr).toBe(2);
    expect(root.stderr).toMatch(/is the root folder/);
    const above = await runCli(['build', content, '--out', 'above'], { cwd: work, home: inner });
    expect(above.status, above.stderr).toBe(2);
    expect(above.stderr).toMatch(/holds your home folder/);
    expect(await readdir(home)).toEqual(['user']);
  });

  it('refuses a link to the content folder, and a path through a linked parent that leads into it', async () => {
    const content = await films(3);
    const before = await snapshot(content);
    const work = await tempDir();
    await symlink(content, path.join(work, 'linked'));
    await symlink(content, path.join(work, 'lc'));
    for (const out of ['linked', 'lc/dist']) {
      const run = await runCli(['build', content, '--out', out], { cwd: work });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/overlaps the content folder/);
    }
    expect(await snapshot(content)).toEqual(before);
    expect(await readdir(work)).toEqual(['lc', 'linked']);
  });

  it('checks --s3-dir like --out: not the content folder, the root, the home folder, or inside the output', async () => {
    const home = await tempDir('addon-gen-home-');
    const content = await films(3);
    const before = await snapshot(content);
    const work = await tempDir();
    await symlink(content, path.join(work, 'c'));
    const cases: [string, RegExp][] = [
      [content, /--s3-dir .* overlaps the content folder/],
      ['c', /--s3-dir c \(.*\) overlaps the content folder/],
      ['/', /--s3-dir \/ is the root folder/],
      [home, /--s3-dir .* is your home folder/],
      ['dist/s3', /--s3-dir dist\/s3 .*overlaps the --out folder .*; choose a folder of its own, such as dist-s3, beside dist\n/],
      ['.', /--s3-dir \. .*overlaps the --out folder/],
    ];
    for (const [s3Dir, message] of cases) {
      const run = await runCli(['build', content, '--out', 'dist', '--s3-dir', s3Dir], { cwd: work, home });
      expect(run.status, `${s3Dir}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(await snapshot(content)).toEqual(before);
    expect(await readdir(home)).toEqual([]);
    expect((await readdir(work)).sort()).toEqual(['c']);
    // Without S3 among the hosts, nothing goes to the S3 folder, and nothing checks it.
    const run = await runCli(['build', content, '--out', 'dist', '--s3-dir', content, '--host', 'cloudflare'], { cwd: work, home });
    expect(run.status, run.stderr).toBe(0);
  });

  it('names a file in the way of the output folder, without a raw ENOTDIR', async () => {
    const content = await films(3);
    const work = await tempDir();
    await writeFile(path.join(work, 'notes'), 'a file');
    const run = await runCli(['build', content, '--out', 'notes/dist'], { cwd: work });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--out notes\/dist: .*notes is a file, not a folder/);
    expect(run.stderr).not.toMatch(/ENOTDIR/);
  });

  it('leaves no folder behind when a build into a new nested folder fails', async () => {
    const content = await contentDir({ 'addon.yaml': addonYaml(CATALOGS), 'films.yaml': 'id: x\ntype: movie\n' });
    const work = await tempDir();
    const run = await runCli(['build', content, '--out', 'a/b/dist'], { cwd: work });
    expect(run.status, run.stderr).toBe(1);
    expect(await readdir(work)).toEqual([]);
  });

  it('writes into the folder a link leads to, when that folder is a fine place for output', async () => {
    const content = await films(3);
    const work = await tempDir();
    const real = await tempDir('addon-gen-real-');
    await symlink(real, path.join(work, 'dist'));
    const run = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(await readFile(path.join(real, 'manifest.json'), 'utf8'))).toMatchObject({ id: 'org.example.test' });
    expect((await lstat(path.join(work, 'dist'))).isSymbolicLink()).toBe(true);
  });
});

describe('links inside the output folder', () => {
  it('refuses to write or delete through a folder of the addon that is a link, and changes nothing', async () => {
    const content = await films(3);
    const out = await tempDir('addon-gen-out-');
    expect((await runCli(['build', content, '--out', out])).status).toBe(0);
    // Someone replaces meta/ by a link to a folder elsewhere that holds a file the build would
    // remove (a film that is gone from the content) and one it would write.
    const elsewhere = await tempDir('addon-gen-elsewhere-');
    await mkdir(path.join(elsewhere, 'movie'));
    await writeFile(path.join(elsewhere, 'movie', 't:0002.json'), "not the build's");
    await writeFile(path.join(elsewhere, 'movie', 't:0000.json'), "not the build's either");
    await rm(path.join(out, 'meta'), { recursive: true });
    await symlink(elsewhere, path.join(out, 'meta'));
    await writeFile(
      path.join(content, 'films.yaml'),
      movies(2, () => ['New']),
    );
    const beforeOut = await snapshot(out);
    const beforeElsewhere = await snapshot(elsewhere);
    const run = await runCli(['build', content, '--out', out]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${path.join(out, 'meta')} is a symbolic link`);
    expect(run.stderr).toMatch(/Nothing was written/);
    expect(await snapshot(elsewhere)).toEqual(beforeElsewhere);
    expect(await snapshot(out)).toEqual(beforeOut);
  });

  it('writes over a link where a file of the addon goes, never through it', async () => {
    const content = await films(3);
    await writeFile(path.join(content, 'addon.yaml'), addonYaml(`${CATALOGS}logo: https://example.org/aaaa.png\n`));
    const out = await tempDir('addon-gen-out-');
    expect((await runCli(['build', content, '--out', out])).status).toBe(0);
    // A manifest of the same size, as the bookkeeping knows it.
    await writeFile(path.join(content, 'addon.yaml'), addonYaml(`${CATALOGS}logo: https://example.org/bbbb.png\n`));
    const reference = await tempDir('addon-gen-ref-');
    expect((await runCli(['build', content, '--out', reference])).status).toBe(0);
    const manifest = await readFile(path.join(reference, 'manifest.json'));
    // Elsewhere, a file with the very bytes the build is about to write: compared through the
    // link, it would look written already, and the link would stay.
    const elsewhere = await tempDir('addon-gen-elsewhere-');
    const target = path.join(elsewhere, 'other.json');
    await writeFile(target, manifest);
    await rm(path.join(out, 'manifest.json'));
    await symlink(target, path.join(out, 'manifest.json'));
    const run = await runCli(['build', content, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    expect((await lstat(path.join(out, 'manifest.json'))).isFile()).toBe(true);
    expect(await readFile(path.join(out, 'manifest.json'))).toEqual(manifest);
    expect(await readTree(out)).toEqual(await readTree(reference));
    expect(await snapshot(elsewhere)).toEqual(new Map([['other.json', manifest.toString('base64')]]));
  });

  it('never follows a link left at a temporary file name', async () => {
    const content = await films(3);
    const out = await tempDir('addon-gen-out-');
    expect((await runCli(['build', content, '--out', out])).status).toBe(0);
    const elsewhere = await tempDir('addon-gen-elsewhere-');
    const victim = path.join(elsewhere, 'victim.txt');
    await writeFile(victim, 'keep me');
    // The bookkeeping's temporary name beside the output folder, and a file's in it.
    await symlink(victim, `${path.join(path.dirname(out), `.${path.basename(out)}.addon-gen.json`)}.addon-gen-tmp`);
    await symlink(victim, path.join(out, 'manifest.json.m-0.addon-gen-tmp'));
    await writeFile(path.join(content, 'films.yaml'), movies(4));
    const run = await runCli(['build', content, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('keep me');
    expect(await leftovers(out)).toEqual([]);
  });
});

describe('what a build keeps beside the output folder', () => {
  it('may not be the content folder: its staging folder is removed whole', async () => {
    const work = await tempDir();
    const content = path.join(work, '.dist.addon-gen-staging');
    await mkdir(content);
    await writeFile(path.join(content, 'addon.yaml'), addonYaml(CATALOGS));
    await writeFile(path.join(content, 'films.yaml'), movies(3));
    const before = await snapshot(content);
    const run = await runCli(['build', '.dist.addon-gen-staging', '--out', 'dist'], { cwd: work });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--out dist has its staging folder .* where the content folder .* is/);
    expect(await snapshot(content)).toEqual(before);
    const s3 = await runCli(['build', '.dist.addon-gen-staging', '--out', 'out', '--s3-dir', '.out.addon-gen-staging'], { cwd: work });
    expect(s3.status, s3.stderr).toBe(2);
    expect(await snapshot(content)).toEqual(before);
  });

  it('is a lock that cannot be read, or one held on another machine: refused at once, naming the file', async () => {
    const content = await films(3);
    const work = await tempDir();
    const lock = path.join(work, '.dist.addon-gen.lock');
    await mkdir(lock);
    const folder = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(folder.status, folder.stderr).toBe(2);
    expect(folder.stderr).toContain(`the lock ${lock} of ${path.join(work, 'dist')} cannot be read (EISDIR)`);
    await rm(lock, { recursive: true });
    await symlink(path.join(work, 'nowhere'), lock);
    const broken = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(broken.status, broken.stderr).toBe(2);
    expect(broken.stderr).toContain(`the lock ${lock} of ${path.join(work, 'dist')} cannot be read (a broken link)`);
    await rm(lock);
    await writeFile(lock, JSON.stringify({ pid: 12345, host: 'another-machine' }));
    const elsewhere = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(elsewhere.status, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(
      `${lock} says that a build on the machine "another-machine" (process 12345) is writing into ${path.join(work, 'dist')}`,
    );
    expect(existsSync(path.join(work, 'dist'))).toBe(false);
  });
});

describe('what stands where the files of the addon go', () => {
  it('a FIFO where a file of the addon goes is written over, not waited on', async () => {
    const content = await films(3);
    const out = await tempDir('addon-gen-out-');
    expect((await runCli(['build', content, '--out', out])).status).toBe(0);
    const meta = path.join(out, 'meta', 'movie', 't:0001.json');
    await rm(meta);
    await new Promise((resolve, reject) => execFile('mkfifo', [meta], (error) => (error ? reject(error) : resolve(undefined))));
    // A name of the same length: the bookkeeping says the file is there at its size, and compares it.
    await writeFile(path.join(content, 'films.yaml'), movies(3).replace('Movie 1', 'Movie X'));
    const run = await runCli(['build', content, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    expect((await lstat(meta)).isFile()).toBe(true);
    expect(JSON.parse(await readFile(meta, 'utf8'))).toMatchObject({ meta: { name: 'Movie X' } });
  });

  it('a local file whose name holds a newline is a content error, and prints no command of its own', async () => {
    const name = 'a\\b\n::warning title=pwned::injected.png';
    const content = await contentDir({
      'addon.yaml': addonYaml(`${CATALOGS}baseUrl: https://e.org/\nlogo: "./${name.replace(/\n/g, '\\n')}"\n`),
      [name]: 'png',
    });
    const out = await tempDir('addon-gen-out-');
    const run = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'build', content, '--out', out],
        { env: { ...process.env, GITHUB_ACTIONS: 'true' } },
        (error, stdout, stderr) => resolve({ status: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('bad-file-name');
    for (const line of `${run.stdout}\n${run.stderr}`.split(/\r?\n|\r/)) expect(line.trimStart()).not.toMatch(/^::warning/);
    expect(await readdir(out)).toEqual([]);
  });
});

describe('two builds at once', () => {
  const started: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL');
  });

  it('into one empty output folder: both succeed, one after the other, and the tree is whole', async () => {
    const content = await films(600);
    const reference = await tempDir('addon-gen-ref-');
    expect((await runCli(['build', content, '--out', reference, '--host', 'cloudflare'])).status).toBe(0);
    const expected = await readTree(reference);
    for (let round = 0; round < 4; round++) {
      const work = await tempDir();
      const runs = await Promise.all([0, 1].map(() => runCli(['build', content, '--out', 'dist', '--host', 'cloudflare'], { cwd: work })));
      for (const run of runs) expect(run.status, run.stderr).toBe(0);
      expect(await readTree(path.join(work, 'dist'))).toEqual(expected);
      expect((await readdir(work)).sort()).toEqual(['.dist.addon-gen-edits', '.dist.addon-gen-kept', '.dist.addon-gen.json', 'dist']);
    }
  });

  it('in one process, through the library: the second waits for the first', async () => {
    const content = await films(300);
    const reference = await tempDir('addon-gen-ref-');
    expect((await build({ contentDir: content, outDir: reference, hosts: ['cloudflare'] })).ok).toBe(true);
    const out = path.join(await tempDir(), 'dist');
    // A lock that names this process, left by an earlier one that had its number, is not held.
    await writeFile(`${path.join(path.dirname(out), '.dist.addon-gen.lock')}`, JSON.stringify({ pid: process.pid, host: os.hostname() }));
    const results = await Promise.all([0, 1, 2].map(() => build({ contentDir: content, outDir: out, hosts: ['cloudflare'] })));
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(await readTree(out)).toEqual(await readTree(reference));
    expect((await readdir(path.dirname(out))).sort()).toEqual(['.dist.addon-gen-edits', '.dist.addon-gen-kept', '.dist.addon-gen.json', 'dist']);
  });

  it('waits while a live process holds the folder, and takes over a lock whose process is gone', async () => {
    const content = await films(3);
    const work = await tempDir();
    const lock = path.join(work, '.dist.addon-gen.lock');
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: os.hostname() }));
    const child = spawn(process.execPath, [BIN, 'build', content, '--out', 'dist'], { cwd: work, stdio: 'pipe' });
    started.push(child);
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(path.join(work, 'dist')), 'nothing written while the lock is held').toBe(false);
    await rm(lock);
    expect(await exited).toBe(0);
    expect(existsSync(path.join(work, 'dist', 'manifest.json'))).toBe(true);
    expect(existsSync(lock)).toBe(false);

    // A build killed while it held the lock: the next one does not wait for it.
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));
    await writeFile(lock, JSON.stringify({ pid: deadPid, host: os.hostname() }));
    const next = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(next.status, next.stderr).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('removes a lock that a takeover, killed, left aside, unless its holder lives', async () => {
    const content = await films(3);
    const work = await tempDir();
    const lock = path.join(work, '.dist.addon-gen.lock');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    const live = spawn('sleep', ['600']);
    started.push(live);
    expect(live.pid, 'sleep started').toBeGreaterThan(0);
    // As takeOver names them; the live one may be a new lock another build is putting back.
    const deadAside = `${lock}.${randomUUID()}`;
    const liveAside = `${lock}.${randomUUID()}`;
    await writeFile(deadAside, JSON.stringify({ pid: dead.pid, host: os.hostname() }));
    await writeFile(liveAside, JSON.stringify({ pid: live.pid, host: os.hostname() }));
    await writeFile(`${lock}.notes`, JSON.stringify({ pid: dead.pid, host: os.hostname() }));
    const run = await runCli(['build', content, '--out', 'dist'], { cwd: work });
    expect(run.status, run.stderr).toBe(0);
    const locks = (await readdir(work)).filter((name) => name.startsWith('.dist.addon-gen.lock')).sort();
    expect(locks).toEqual(['.dist.addon-gen.lock.notes', path.basename(liveAside)].sort());

    // One that names the build's own process, as its lock does: another build that judged the
    // lock abandoned just before it was taken may have moved it aside, to put it back.
    const ownAside = `${lock}.${randomUUID()}`;
    await writeFile(ownAside, JSON.stringify({ pid: process.pid, host: os.hostname() }));
    expect((await build({ contentDir: content, outDir: path.join(work, 'dist') })).ok).toBe(true);
    expect(existsSync(ownAside)).toBe(true);
  });
});

/**
 * A tmpfs of `size` mounted for the test (root only). When the mount is refused, the test says so
 * in its output and is marked skipped: never passed silently.
 */
async function smallDisk(size: string, skip: (note: string) => void): Promise<string> {
  const dir = await tempDir('addon-gen-disk-');
  const mounted = await new Promise<string | undefined>((resolve) =>
    execFile('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], (error, _out, stderr) =>
      resolve(error ? stderr || error.message : undefined),
    ),
  );
  if (mounted !== undefined) {
    const note = `a tmpfs could not be mounted (${isRoot ? 'as root' : 'not root'}): ${mounted.trim()}`;
    console.warn(`hostile-output: ${note}`);
    skip(note);
  }
  mounts.push(dir);
  return dir;
}
const mounts: string[] = [];
afterEach(async () => {
  for (const dir of mounts.splice(0)) await new Promise((resolve) => execFile('umount', ['-l', dir], resolve));
});

function remount(dir: string, options: string): Promise<void> {
  return new Promise((resolve, reject) => execFile('mount', ['-o', `remount,${options}`, dir], (error) => (error ? reject(error) : resolve())));
}

describe('a full or read-only disk', () => {
  it('fails with status 2 naming the file, leaves no temporary file, and the next build completes the tree', async (context) => {
    const disk = await smallDisk('1m', (note) => context.skip(note));
    const out = path.join(disk, 'dist');
    const content = await films(20);
    expect((await runCli(['build', content, '--out', out, '--host', 'cloudflare'])).status).toBe(0);
    // Far more than a megabyte of output.
    await writeFile(
      path.join(content, 'films.yaml'),
      movies(400, (i) => [`G${i % 10}`, 'All']),
    );
    const run = await runCli(['build', content, '--out', out, '--host', 'cloudflare']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`cannot write ${disk}/\\S+: no space left on the device \\(ENOSPC\\)`));
    expect(run.stderr).toMatch(
      /holds some files of this build and the others of the last one, each whole; the next build that can write completes it/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await leftovers(disk)).toEqual([]);
    for (const [file, bytes] of await readTree(out)) {
      if (file.endsWith('.json')) expect(() => JSON.parse(bytes.toString('utf8')), file).not.toThrow();
    }
    await remount(disk, 'size=256m');
    const reference = await tempDir('addon-gen-ref-');
    expect((await runCli(['build', content, '--out', reference, '--host', 'cloudflare'])).status).toBe(0);
    const again = await runCli(['build', content, '--out', out, '--host', 'cloudflare']);
    expect(again.status, again.stderr).toBe(0);
    expect(await readTree(out)).toEqual(await readTree(reference));
  });

  it('says nothing changed when the disk is full from the start, and leaves nothing behind', async (context) => {
    const disk = await smallDisk('256k', (note) => context.skip(note));
    const content = await films(20);
    // Filled to the last byte.
    const filler = Buffer.alloc(4096);
    for (;;) {
      const full = await appendFile(path.join(disk, 'filler'), filler).then(
        () => false,
        () => true,
      );
      if (full) break;
    }
    const before = await snapshot(disk);
    const run = await runCli(['build', content, '--out', path.join(disk, 'dist'), '--host', 'cloudflare']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`cannot write ${disk}/\\S+: no space left on the device \\(ENOSPC\\)\\. Nothing`));
    expect(await snapshot(disk)).toEqual(before);
  });

  it('says which part was written when a first build runs out of space', async (context) => {
    const disk = await smallDisk('64k', (note) => context.skip(note));
    const out = path.join(disk, 'dist');
    const content = await films(3000);
    const run = await runCli(['build', content, '--out', out, '--host', 'cloudflare']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /no space left on the device \(ENOSPC\)\. .* holds part of this build, each file whole; the next build that can write completes it/,
    );
    expect(await leftovers(disk)).toEqual([]);
  });

  it('fails with status 2 on a read-only output folder, naming it, and changes nothing', async (context) => {
    const disk = await smallDisk('4m', (note) => context.skip(note));
    const out = path.join(disk, 'dist');
    const content = await films(20);
    expect((await runCli(['build', content, '--out', out])).status).toBe(0);
    const before = await snapshot(disk);
    await remount(disk, 'ro');
    await writeFile(path.join(content, 'films.yaml'), movies(25));
    const run = await runCli(['build', content, '--out', out]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`cannot [a-z ]+ ${disk}\\S*: the file system is read-only \\(EROFS\\)\\. Nothing was written`));
    expect(await snapshot(disk)).toEqual(before);
  });
});
