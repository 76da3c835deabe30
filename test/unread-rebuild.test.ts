// A rebuild that finds every content file with the stamp the last build recorded for it (device,
// inode, size and times) ends without reading one (build/reuse.ts). Whatever changed a file's
// bytes, its name or the set of files must take it back to reading them, and from there to the
// same result as a clean build; files that changed just before a build are never trusted by stamp.
import { link, readFile, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { build, type BuildOptions } from '../src/build/index.js';
import { addonYaml, contentDir, readTree, tempDir } from './support/content.js';
import { expectSecretRefused } from './support/secrets.js';

const files = {
  'addon.yaml': addonYaml('baseUrl: https://example.org/addon/\ncatalogs:\n  - { id: c, type: movie, name: C }\n'),
  'x.yaml': 'id: x\ntype: movie\nname: "X ${TITLE}"\nposter: poster.png\n',
  'y.yaml': 'id: y\ntype: movie\nname: Y\n',
  'movies/z.yaml': 'id: z\ntype: movie\nname: Z\n',
  'poster.png': Buffer.from('PNG, not really a picture'),
};
const env = { TITLE: 'Hello World' };

/** Longer than load/read.ts waits before it trusts a file's stamp (SETTLED_MS). */
const SETTLE_MS = 2100;

/** `count` content folders of `content`, each with an output folder, once their files have settled. */
async function settledFolders(count: number, content: Record<string, string | Buffer> = files) {
  const folders = await Promise.all(Array.from({ length: count }, async () => ({ dir: await contentDir(content), out: await tempDir() })));
  await sleep(SETTLE_MS);
  return folders;
}

/** Whether `result` ended without reading the content files: it has none to show lines from. */
function unread(result: Awaited<ReturnType<typeof build>>): boolean {
  return result.reused === true && result.sources.length === 0;
}

describe('a rebuild that reads no content file', () => {
  it('ends with the last build’s problems and summary when every file has its stamp', async () => {
    const [{ dir, out }] = (await settledFolders(1)) as [{ dir: string; out: string }];
    const first = await build({ contentDir: dir, outDir: out, env });
    expect(first.ok).toBe(true);
    const before = await readTree(out);
    const again = await build({ contentDir: dir, outDir: out, env });
    expect(unread(again)).toBe(true);
    expect(again.ok).toBe(true);
    expect(again.stages.validate).toBeUndefined();
    expect(again.diagnostics).toEqual(first.diagnostics);
    expect(again.counts).toEqual(first.counts);
    expect(again.manifestUrl).toBe(first.manifestUrl);
    expect(again.write?.unchanged).toBe(first.write?.files);
    expect(await readTree(out)).toEqual(before);
  });

  it('reads the files again after any change to them, and ends as a clean build would', async () => {
    const same = (text: string) => text.replace('name: Y', 'name: W');
    const cases: { name: string; change: (dir: string, out: string) => Promise<unknown>; options?: Partial<BuildOptions> }[] = [
      { name: 'a rewrite of the same size', change: async (dir) => writeFile(path.join(dir, 'y.yaml'), same(files['y.yaml'])) },
      {
        name: 'a rewrite of the same size, times put back',
        change: async (dir) => {
          const file = path.join(dir, 'y.yaml');
          const old = new Date(Date.now() - 3_600_000);
          await writeFile(file, same(files['y.yaml']));
          await utimes(file, old, old);
        },
      },
      { name: 'a new file', change: (dir) => writeFile(path.join(dir, 'movies/new.yaml'), 'id: new\ntype: movie\nname: New\n') },
      { name: 'a removed file', change: (dir) => rm(path.join(dir, 'movies/z.yaml')) },
      { name: 'a renamed file', change: (dir) => rename(path.join(dir, 'movies/z.yaml'), path.join(dir, 'movies/zz.yaml')) },
      {
        name: 'two files swapped',
        change: async (dir) => {
          await writeFile(path.join(dir, 'y.yaml'), 'id: y\ntype: movie\nname: Y\nreleaseInfo: "2001"\n');
          await rename(path.join(dir, 'y.yaml'), path.join(dir, 'tmp'));
          await rename(path.join(dir, 'movies/z.yaml'), path.join(dir, 'y.yaml'));
          await rename(path.join(dir, 'tmp'), path.join(dir, 'movies/z.yaml'));
        },
      },
      { name: 'a second name for a file', change: (dir) => link(path.join(dir, 'y.yaml'), path.join(dir, 'movies/y2.yaml')) },
      { name: 'a link that leaves the folder', change: (dir) => symlink('/etc/hostname', path.join(dir, 'outside.yaml')) },
      { name: 'a variable with another value', change: async () => {}, options: { env: { TITLE: 'World' } } },
      { name: 'a copied local file with other bytes', change: (dir) => writeFile(path.join(dir, 'poster.png'), 'other') },
      { name: 'another base URL', change: async () => {}, options: { baseUrl: 'https://other.example.org/' } },
      // The inputs are the same, the output is not all there.
      { name: 'a deleted output file', change: (_, out) => rm(path.join(out, 'meta/movie/y.json')) },
    ];
    const folders = await settledFolders(cases.length);
    for (const [i, { name, change, options }] of cases.entries()) {
      const { dir, out } = folders[i]!;
      const settings = { env, hosts: ['github-pages'] as const, ...options };
      expect((await build({ contentDir: dir, outDir: out, env, hosts: ['github-pages'] })).ok, name).toBe(true);
      const before = await readTree(out);
      await change(dir, out);
      const rebuilt = await build({ contentDir: dir, outDir: out, ...settings });
      expect(unread(rebuilt), name).toBe(false);
      const clean = await tempDir();
      const cleanBuild = await build({ contentDir: dir, outDir: clean, ...settings });
      expect(rebuilt.ok, name).toBe(cleanBuild.ok);
      expect(
        rebuilt.diagnostics.map((d) => [d.code, d.file && path.relative(dir, d.file), d.line]),
        name,
      ).toEqual(cleanBuild.diagnostics.map((d) => [d.code, d.file && path.relative(dir, d.file), d.line]));
      // A build with errors (a second name gives a second item y) writes nothing.
      expect(await readTree(out), name).toEqual(cleanBuild.ok ? await readTree(clean) : before);
    }
  });

  it('does not trust a file changed just before the build, nor a record that shows a line of one', async () => {
    // Written just now: its stamp may not tell its bytes from those of a rewrite within the same tick.
    const dir = await contentDir(files);
    const out = await tempDir();
    expect((await build({ contentDir: dir, outDir: out, env })).ok).toBe(true);
    const fresh = await build({ contentDir: dir, outDir: out, env });
    expect(fresh.reused).toBe(true);
    expect(unread(fresh)).toBe(false);

    // A warning shows the line of series: y (no catalog lists series): the file must be read for it.
    const [located] = (await settledFolders(1, { ...files, 'y.yaml': 'id: y\ntype: series\nname: Y\n' })) as [{ dir: string; out: string }];
    const first = await build({ contentDir: located.dir, outDir: located.out, env });
    expect(first.diagnostics.map((d) => d.code)).toContain('uncovered-type');
    const again = await build({ contentDir: located.dir, outDir: located.out, env });
    expect(again.reused).toBe(true);
    expect(unread(again)).toBe(false);
    expect(again.diagnostics).toEqual(first.diagnostics);
    expect(again.sources.map((s) => s.relative)).toContain('y.yaml');
  });

  it('reads the files when the environment gained a secret, and finds it as the full checks would', async () => {
    const cases: Record<string, string>[] = [
      { ...env, API_KEY: 'For tests' },
      { ...env, MY_TOKEN: 'X Hello W' },
      { ...env, PNG_SECRET: 'not really' },
    ];
    const folders = await settledFolders(cases.length + 1);
    // A guarded value that is in no file (a socket's path, guarded by its name): the files are
    // read to look for it, and the last build stands.
    const desktop = { ...env, SSH_AUTH_SOCK: '/tmp/ssh-XXXXabcd/agent.1234' };
    const { dir: quiet, out: quietOut } = folders[cases.length]!;
    expect((await build({ contentDir: quiet, outDir: quietOut, env: desktop })).ok).toBe(true);
    expect(unread(await build({ contentDir: quiet, outDir: quietOut, env: desktop }))).toBe(true);
    for (const [i, caseEnv] of cases.entries()) {
      const { dir, out } = folders[i]!;
      expect((await build({ contentDir: dir, outDir: out, env })).ok).toBe(true);
      expect(unread(await build({ contentDir: dir, outDir: out, env }))).toBe(true);
      await expectSecretRefused(dir, out, caseEnv);
    }
  });

  it('keeps no stamps in the record that a later build could not trust', async () => {
    const [{ dir, out }] = (await settledFolders(1)) as [{ dir: string; out: string }];
    // A link to a file outside the folder is reported by every build that reads the files.
    await symlink('/etc/hostname', path.join(dir, 'outside.yaml'));
    await sleep(SETTLE_MS);
    const first = await build({ contentDir: dir, outDir: out, env });
    expect(first.diagnostics.map((d) => d.code)).toContain('symlink-not-followed');
    const again = await build({ contentDir: dir, outDir: out, env });
    expect(unread(again)).toBe(false);
    expect(again.diagnostics.map((d) => d.code)).toContain('symlink-not-followed');
    expect(await readFile(path.join(out, 'manifest.json'), 'utf8')).toContain('Test Addon');
  });
});
