// The JSON addon-gen reads back from itself (src/shared/fields.ts), checked without zod: the
// record and the stamps slot of a real build are taken as written, and each field of another shape
// refuses the whole; a lock file of another shape is refused by name. And a command that reads no
// content loads none of zod's modules.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/index.js';
import { isRecord } from '../src/build/last-build.js';
import { headStamps } from '../src/write/stamps.js';
import { readStateHead } from '../src/write/state.js';
import { addonYaml, contentDir, movies, tempDir } from './support/content.js';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const FILES = { 'addon.yaml': addonYaml('catalogs:\n  - { id: c, type: movie, name: C }\n'), 'films.yaml': movies(3) };

/** Longer than load/read.ts waits before it trusts a content file's stamp (SETTLED_MS). */
const SETTLE_MS = 2100;

/** A content folder built once its files settled: the record holds their stamps. */
async function built() {
  const dir = await contentDir(FILES);
  await sleep(SETTLE_MS);
  const out = await tempDir();
  expect((await build({ contentDir: dir, outDir: out })).ok).toBe(true);
  const head = await readStateHead(out);
  expect(head).toBeDefined();
  return { dir, out, head: head! };
}

/** A copy of `value` with `change` made to it. */
function changed<T>(value: T, change: (copy: any) => void): T {
  const copy = structuredClone(value);
  change(copy);
  return copy;
}

describe("addon-gen's own JSON", () => {
  it('takes the record a build wrote, and refuses it with any read field of another shape', async () => {
    const { head } = await built();
    const record = head.record as Record<string, unknown>;
    expect(isRecord(record)).toBe(true);
    expect(record.sources).toMatchObject({
      stamps: [
        ['addon.yaml', expect.any(String)],
        ['films.yaml', expect.any(String)],
      ],
    });
    expect(isRecord(changed(record, (r) => (r.unknownField = 'kept for later versions')))).toBe(true);
    expect(isRecord(changed(record, (r) => delete r.sources))).toBe(true);
    const others: ((r: any) => void)[] = [
      (r) => (r.version = 2),
      (r) => (r.inputs = 1),
      (r) => (r.variables = {}),
      (r) => delete r.secrets,
      (r) => (r.publish = 'x'),
      (r) => (r.assets = null),
      (r) => (r.diagnostics = {}),
      (r) => (r.hosts = undefined),
      (r) => (r.write = []),
      (r) => delete r.write.largestFiles,
      (r) => (r.write.largestFiles.below = -1),
      (r) => (r.write.largestFiles.below = 1.5),
      // Past what a number holds exactly, as zod's int() refused.
      (r) => (r.write.largestFiles.below = 2 ** 53),
      (r) => r.write.largestFiles.files.push(['a.json', 1e300, 0]),
      (r) => r.write.largestFiles.files.push(['a.json', 10]),
      (r) => r.write.largestFiles.files.push(['a.json', -1, 0]),
      (r) => r.write.largestFiles.files.push(['a.json', 10, 0.5]),
      (r) => r.write.largestFiles.files.push([1, 10, 0]),
      (r) => (r.sources = { settings: 1, stamps: [] }),
      (r) => r.sources.stamps.push(['films.yaml']),
      (r) => r.sources.stamps.push(['films.yaml', 2]),
    ];
    for (const other of others) expect(isRecord(changed(record, other)), String(other)).toBe(false);
    for (const value of [null, [], 'record', 1]) expect(isRecord(value)).toBe(false);
  });

  it('takes the stamps slot a build wrote, and not one of another shape', async () => {
    const { head } = await built();
    const folders = headStamps(head);
    expect(folders?.some(([dir]) => dir === '')).toBe(true);
    const slot = (value: unknown) => ({ ...head, stamps: Buffer.from(JSON.stringify(value)).toString('base64url') });
    expect(headStamps(slot({ bytes: head.bytes, folders }))).toEqual(folders);
    for (const other of [
      { bytes: String(head.bytes), folders },
      { bytes: head.bytes },
      { bytes: head.bytes, folders: [...folders!, ['meta']] },
      { bytes: head.bytes, folders: [...folders!, ['meta', 1]] },
      [head.bytes, folders],
    ]) {
      expect(headStamps(slot(other)), JSON.stringify(other)).toBeUndefined();
    }
    expect(headStamps({ ...head, stamps: 'not base64url JSON' })).toBeUndefined();
  });

  it('refuses a lock file of another shape, naming it', async () => {
    const dir = await contentDir({ 'addon.yaml': addonYaml(), 'films.yaml': movies(2) });
    const work = await tempDir();
    const lock = path.join(work, '.dist.addon-gen.lock');
    for (const other of [{ pid: -3, host: 'h' }, { pid: 1.5, host: 'h' }, { pid: 2 ** 53, host: os.hostname() }, { pid: 3 }, [3, 'h']]) {
      await writeFile(lock, JSON.stringify(other));
      const run = await execFileAsync(process.execPath, [path.join(ROOT, 'bin', 'addon-gen.js'), 'build', dir, '--out', 'dist'], { cwd: work }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect('code' in run && run.code, JSON.stringify(other)).toBe(2);
      expect(run.stderr).toContain(`the lock ${lock} of ${path.join(work, 'dist')} cannot be read (not a lock of addon-gen)`);
    }
  });

  it('loads none of zod for --version, nor for a rebuild that finds the last output standing or nothing edited since an edit; nor the yaml package or csv-parse for content that checks', async () => {
    // Content with no warning: a record that shows a line of a file has the rebuild read it.
    const dir = await contentDir(FILES);
    const out = await tempDir();
    await sleep(SETTLE_MS);
    // A module hook that prints each module imported, and each required (require.cache) at the end.
    const hook = path.join(await tempDir(), 'hook.mjs');
    await writeFile(
      hook,
      "export async function load(url, context, next) { process.stderr.write('loaded ' + url + '\\n'); return next(url, context); }\n",
    );
    const register = path.join(path.dirname(hook), 'register.mjs');
    await writeFile(
      register,
      [
        "import { createRequire, register } from 'node:module';",
        `register(${JSON.stringify(pathToFileURL(hook).href)});`,
        'const required = createRequire(import.meta.url).cache;',
        "process.on('exit', () => { for (const file of Object.keys(required)) process.stderr.write('loaded file://' + file + '\\n'); });",
      ].join('\n'),
    );
    const loaded = async (args: string[]) => {
      const { stderr } = await execFileAsync(process.execPath, [
        '--import',
        pathToFileURL(register).href,
        path.join(ROOT, 'bin', 'addon-gen.js'),
        ...args,
      ]);
      return stderr.split('\n').filter((line) => line.startsWith('loaded '));
    };
    const of = (name: string) => (urls: string[]) => urls.filter((url) => url.includes(`/node_modules/${name}/`));
    const [zod, yaml, csvParse] = [of('zod'), of('yaml'), of('csv-parse')];
    const version = await loaded(['--version']);
    expect(version.some((url) => url.endsWith('/lib/build/index.js'))).toBe(true);
    expect(zod(version)).toEqual([]);
    // The build by the compiled code (its record names the code that wrote it), then the rebuild:
    // the content files have their stamps, and it reads none of them.
    const first = await loaded(['build', dir, '--out', out, '--quiet']);
    expect(zod(first).length, 'a build that checks content loads zod').toBeGreaterThan(0);
    // Positions are for problems, and for the few files the fast parser leaves; tables need csv-parse.
    expect(yaml(first)).toEqual([]);
    expect(csvParse(first)).toEqual([]);
    const rebuild = await loaded(['build', dir, '--out', out, '--quiet']);
    expect(rebuild.some((url) => url.endsWith('/lib/write/stamps.js'))).toBe(true);
    expect(rebuild.some((url) => url.endsWith('/lib/load/yaml.js'))).toBe(false);
    expect(zod(rebuild)).toEqual([]);
    // After an edit, no rebuild ends on the record (build/edit.ts): one that finds nothing edited
    // takes the edit's way, and stops before it needs plan's modules, and zod's.
    await writeFile(path.join(dir, 'films.yaml'), FILES['films.yaml'].replace('name: Movie 0', 'name: Movie 0 renamed'));
    await sleep(SETTLE_MS);
    const edit = await loaded(['build', dir, '--out', out, '--quiet']);
    expect(edit.some((url) => url.endsWith('/lib/build/edit.js'))).toBe(true);
    expect(zod(edit).length, 'an edit checks the file it edits').toBeGreaterThan(0);
    const afterEdit = await loaded(['build', dir, '--out', out, '--quiet']);
    expect(afterEdit.some((url) => url.endsWith('/lib/build/edit.js'))).toBe(true);
    expect(afterEdit.some((url) => url.endsWith('/lib/plan/index.js'))).toBe(false);
    expect(zod(afterEdit)).toEqual([]);
    // The hook sees what is required too: a problem's position, and a table.
    await writeFile(path.join(dir, 'films.yaml'), `${movies(3)}- { id: "t:0009", type: movie }\n`);
    const problem = await loaded(['validate', dir, '--quiet']).catch((error: { stderr: string }) =>
      error.stderr.split('\n').filter((line) => line.startsWith('loaded ')),
    );
    expect(yaml(problem).length).toBeGreaterThan(0);
    const table = await loaded(['validate', path.join(ROOT, 'examples', 'table'), '--quiet']);
    expect(csvParse(table).length).toBeGreaterThan(0);
  });
});
