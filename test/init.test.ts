// addon-gen init: the scaffold builds as it is, init refuses to overwrite, checks the id and name,
// and the workflow and addon.yaml it writes have the shape the README promises. Real CLI, real folders.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isCollection, isMap, isScalar, parse, parseDocument, type Node, type Pair } from 'yaml';
import { run } from '../src/cli/index.js';
import { UsageError } from '../src/diagnostics/index.js';
import { checkSchedule, defaultId, defaultName, initProject, initText, readInitTemplates, renderInitFiles } from '../src/cli/init.js';
import { contentDir, readTree, tempDir } from './support/content.js';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));
const TEMPLATES = fileURLToPath(new URL('../templates/init/', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
  files: string[];
  repository: { url: string };
};
const exec = promisify(execFile);

const SCAFFOLD = [
  '.github/workflows/addon.yml',
  '.gitignore',
  'content/addon.yaml',
  'content/movies/his-girl-friday.yaml',
  'content/series/superman.yaml',
  'schema/addon.schema.json',
  'schema/item.schema.json',
];

/** The installed command in a child process: exit status and output, also when it fails. */
async function bin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], options);
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The CLI in this process, for the cases that need no working folder of their own. */
async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await run(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { status, stdout, stderr };
}

/** Every entry below `dir` (folders too), sorted, with forward slashes. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((e) => e.split(path.sep).join('/')).sort();
}

async function readJson(file: string): Promise<any> {
  return JSON.parse(await readFile(file, 'utf8'));
}

async function readYaml(file: string): Promise<any> {
  return parse(await readFile(file, 'utf8'));
}

describe('addon-gen init', () => {
  it('creates a project whose content builds as it is, with the given id and name', async () => {
    const dir = path.join(await tempDir(), 'films');
    const name = 'My Films: Noir # 1'; // ": " and " #" would break a plain YAML scalar
    const created = await bin(['init', dir, '--id', 'org.example.noir', '--name', name]);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(`Created ${name} (org.example.noir) in ${dir}:\n`);
    for (const file of SCAFFOLD) expect(created.stdout).toContain(`  ${path.join(dir, file)}\n`);
    expect(created.stdout).toContain(`  cd ${dir}\n`);
    expect(created.stdout).toMatch(/^ {2}addon-gen serve /m);
    expect(created.stdout).toMatch(/^ {2}addon-gen build /m);
    expect(created.stdout).toContain('"GitHub Actions"');
    expect(
      (await listing(dir)).filter((p) => !['.github', '.github/workflows', 'content', 'content/movies', 'content/series', 'schema'].includes(p)),
    ).toEqual(SCAFFOLD);

    // The next steps as printed: `addon-gen build` in the project folder, with its defaults.
    const before = await readdir(dir);
    const built = await bin(['build'], { cwd: dir });
    expect(built.status).toBe(0);
    expect(built.stdout).toContain(`Built ${name} 1.0.0 into dist/`);
    expect(built.stdout).toContain('2 items, 3 videos, 5 streams, 0 subtitles');
    // What the build made in the project is left out of commits: the output, the S3 files, and
    // the bookkeeping of both, beside them.
    const made = (await readdir(dir)).filter((entry) => !before.includes(entry)).sort();
    expect(made).toEqual(['.dist-s3.addon-gen.json', '.dist.addon-gen-edits', '.dist.addon-gen-kept', '.dist.addon-gen.json', 'dist', 'dist-s3']);
    const ignored = (await readFile(path.join(dir, '.gitignore'), 'utf8')).split('\n').map((line) => line.replace(/\/$/, ''));
    for (const entry of made) expect(ignored, entry).toContain(entry);
    // And by this repository's own: its quick start builds the bundled example the same way.
    const own = readFileSync(new URL('../.gitignore', import.meta.url), 'utf8')
      .split('\n')
      .map((line) => line.replace(/\/$/, ''));
    for (const entry of made) expect(own, entry).toContain(entry);

    const dist = path.join(dir, 'dist');
    const manifest = await readJson(path.join(dist, 'manifest.json'));
    expect(manifest).toMatchObject({ id: 'org.example.noir', version: '1.0.0', name, types: ['movie', 'series'], idPrefixes: ['pd:'] });
    expect(manifest.catalogs.map((c: { type: string; id: string }) => `${c.type}/${c.id}`)).toEqual(['movie/films', 'series/series']);

    const films = await readJson(path.join(dist, 'catalog/movie/films.json'));
    expect(films.metas.map((m: { id: string }) => m.id)).toEqual(['pd:his-girl-friday-1940']);
    const series = await readJson(path.join(dist, 'catalog/series/series.json'));
    expect(series.metas.map((m: { id: string }) => m.id)).toEqual(['pd:superman-1941']);

    const film = await readJson(path.join(dist, 'meta/movie/pd:his-girl-friday-1940.json'));
    expect(film.meta).toMatchObject({ name: 'His Girl Friday', poster: 'https://archive.org/services/img/his_girl_friday' });
    const show = await readJson(path.join(dist, 'meta/series/pd:superman-1941.json'));
    expect(show.meta.videos.map((v: { id: string }) => v.id)).toEqual(['pd:superman-1941:1:1', 'pd:superman-1941:1:2', 'pd:superman-1941:1:3']);

    const filmStreams = await readJson(path.join(dist, 'stream/movie/pd:his-girl-friday-1940.json'));
    expect(filmStreams.streams.map((s: { url?: string; externalUrl?: string }) => s.url ?? s.externalUrl)).toEqual([
      'https://archive.org/download/his_girl_friday/his_girl_friday_512kb.mp4',
      'https://archive.org/details/his_girl_friday',
    ]);
    const episode = await readJson(path.join(dist, 'stream/series/pd:superman-1941:1:2.json'));
    expect(episode.streams).toEqual([
      {
        url: 'https://archive.org/download/superman_the_mechanical_monsters/superman_the_mechanical_monsters_512kb.mp4',
        name: 'Internet Archive',
        description: 'SD MP4 (512 kbit/s)',
        behaviorHints: { bingeGroup: 'superman-ia-512kb' },
      },
    ]);
  });

  it('--kind streams creates a stream addon for titles Cinemeta describes, which builds as it is without a warning', async () => {
    const dir = path.join(await tempDir(), 'classic-streams');
    const created = await bin(['init', dir, '--kind', 'streams']);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(`  ${path.join(dir, 'content/titles.yaml')}\n`);
    expect(created.stdout).toContain('content/titles.yaml.');
    expect((await listing(dir)).filter((p) => p.startsWith('content/'))).toEqual(['content/addon.yaml', 'content/titles.yaml']);

    const built = await bin(['build'], { cwd: dir });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    expect(built.stdout).toContain('Built Classic Streams 1.0.0 into dist/');
    expect(built.stdout).toContain('0 items, 0 videos, 2 streams, 0 subtitles; for 2 titles other addons describe');
    const manifest = await readJson(path.join(dir, 'dist/manifest.json'));
    expect(manifest).toMatchObject({ id: 'community.classic-streams', catalogs: [], idPrefixes: ['tt'] });
    expect(manifest.resources).toEqual([{ name: 'stream', types: ['movie', 'series'], idPrefixes: ['tt'] }]);
    const episode = await readJson(path.join(dir, 'dist/stream/series/tt0034167:1:1.json'));
    expect(episode.streams).toEqual([{ ytId: 'dQw4w9WgXcQ', name: 'YouTube' }]);
    expect(existsSync(path.join(dir, 'dist/meta'))).toBe(false);

    // Any other kind is refused before anything is written.
    const other = path.join(await tempDir(), 'other');
    const refused = await bin(['init', other, '--kind', 'channel']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--kind.*channel.*catalog, streams/s);
    expect(existsSync(other)).toBe(false);
  });

  it('defaults the id and the name from the folder name, and works in the current folder', async () => {
    const dir = path.join(await tempDir(), 'My Cool_Addon');
    await mkdir(dir);
    const created = await bin(['init'], { cwd: dir });
    expect(created.status).toBe(0);
    expect(created.stdout).toContain('Created My Cool Addon (community.my-cool-addon):\n');
    expect(created.stdout).not.toContain('  cd ');
    expect(await readYaml(path.join(dir, 'content/addon.yaml'))).toMatchObject({ id: 'community.my-cool-addon', name: 'My Cool Addon' });
  });

  it('refuses to overwrite: lists the files, writes nothing, exits 2; --force overwrites', async () => {
    const dir = await contentDir({ 'content/addon.yaml': 'id: org.example.mine\n', '.gitignore': 'secret/\n', 'README.md': '# Mine\n' });
    const before = { files: await readTree(dir), listing: await listing(dir) };

    const refused = await cli(['init', dir]);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `already has files that init would overwrite:\n  ${path.join(dir, '.gitignore')}\n  ${path.join(dir, 'content/addon.yaml')}\n`,
    );
    expect(refused.stderr).not.toContain('superman.yaml');
    expect(refused.stderr).toContain('Nothing was written. Run again with --force');
    expect(await listing(dir)).toEqual(before.listing);
    expect(await readTree(dir)).toEqual(before.files);

    const forced = await cli(['init', dir, '--force', '--id', 'org.example.mine']);
    expect(forced.stderr).toBe('');
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain(`  ${path.join(dir, 'content/addon.yaml')} (replaced)\n`);
    expect(forced.stdout).toContain(`  ${path.join(dir, 'content/series/superman.yaml')}\n`);
    expect(await readYaml(path.join(dir, 'content/addon.yaml'))).toMatchObject({ id: 'org.example.mine', version: '1.0.0' });
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toContain('dist-s3/');
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('# Mine\n');
  });

  it('refuses a folder that is a content folder itself, even with --force', async () => {
    const dir = await contentDir({ 'addon.yaml': 'id: org.example.mine\n' });
    const before = await readTree(dir);
    for (const argv of [
      ['init', dir],
      ['init', dir, '--force'],
    ]) {
      const refused = await cli(argv);
      expect(refused.status, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain(`${path.join(dir, 'addon.yaml')}: ${dir} is a content folder already`);
      expect(await readTree(dir)).toEqual(before);
    }
  });

  it('refuses a file where a folder must go, even with --force', async () => {
    const dir = await contentDir({ content: 'not a folder\n' });
    const before = await readTree(dir);
    const refused = await cli(['init', dir, '--force']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`${path.join(dir, 'content')}: a file where a folder must go`);
    expect(await readTree(dir)).toEqual(before);
  });

  it('checks --id and --name with the rules of addon.yaml, before writing anything', async () => {
    const dir = path.join(await tempDir(), 'new');
    const badId = await cli(['init', dir, '--id', 'not an id']);
    expect(badId.status).toBe(2);
    expect(badId.stderr).toBe('addon-gen: --id "not an id": expected a reverse-domain id such as org.example.films\n');
    const badName = await cli(['init', dir, '--name', '']);
    expect(badName.status).toBe(2);
    expect(badName.stderr).toMatch(/^addon-gen: --name "": /);
    expect(existsSync(dir)).toBe(false);
  });

  it('answers --help', async () => {
    const help = await cli(['init', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: addon-gen init [options] [dir]');
    expect(help.stdout).toContain('--force');
  });
});

describe('defaults and values', () => {
  it('turns the folder name into an id and a name', () => {
    expect(defaultId('My Cool_Addon')).toBe('community.my-cool-addon');
    expect(defaultId('Café Films 2')).toBe('community.cafe-films-2');
    expect(defaultId('___')).toBe('community.my-addon');
    expect(defaultName('my-cool_addon')).toBe('My Cool Addon');
    expect(defaultName('films')).toBe('Films');
    expect(defaultName('--')).toBe('My Addon');
  });

  it('writes any id and name so that addon.yaml reads them back unchanged', async () => {
    const templates = await readInitTemplates();
    for (const name of ['Films', 'true', '1.5', 'Say "hi": # not a comment', 'Two\nlines', "Tom's  films ", '- dash']) {
      const files = renderInitFiles(templates, { id: '1.2', name, addonGenVersion: '9.9.9' });
      const addon = parse(files.find((f) => f.path === 'content/addon.yaml')!.body);
      expect(addon).toMatchObject({ id: '1.2', name });
    }
  });
});

describe('the scaffold', () => {
  async function scaffold(): Promise<string> {
    const dir = path.join(await tempDir(), 'my-addon');
    expect((await cli(['init', dir])).status).toBe(0);
    return dir;
  }

  it('has a workflow that builds with the Pages URL and deploys with the official Pages actions', async () => {
    const dir = await scaffold();
    const workflow = await readYaml(path.join(dir, '.github/workflows/addon.yml'));
    expect(workflow.on.push).toEqual({ branches: ['main'] });
    expect(workflow.on).toHaveProperty('workflow_dispatch');
    expect(workflow.permissions).toEqual({ contents: 'read', pages: 'write', 'id-token': 'write' });
    expect(workflow.concurrency).toEqual({ group: 'pages', 'cancel-in-progress': false });
    expect(Object.keys(workflow.jobs)).toEqual(['build', 'deploy']);
    const { build, deploy } = workflow.jobs;
    expect(deploy.needs).toBe('build');
    expect(deploy.environment.name).toBe('github-pages');

    type Step = { id?: string; name?: string; uses?: string; run?: string; with?: Record<string, unknown> };
    const uses = (steps: Step[], action: string) => steps.filter((s) => s.uses?.split('@')[0] === action);
    expect(uses(build.steps, 'actions/configure-pages')).toEqual([{ id: 'pages', uses: 'actions/configure-pages@v5' }]);
    expect(uses(build.steps, 'actions/upload-pages-artifact')).toEqual([{ uses: 'actions/upload-pages-artifact@v5', with: { path: 'dist' } }]);
    expect(uses(deploy.steps, 'actions/deploy-pages')).toEqual([{ id: 'deployment', uses: 'actions/deploy-pages@v5' }]);
    const runs = (build.steps as Step[]).flatMap((s) => (s.run ? [s.run] : []));
    expect(runs).toContain(`npm install --global addon-gen@${PACKAGE.version}`);
    expect(runs).toContain('addon-gen build content --out dist --host github-pages --base-url "${{ steps.pages.outputs.base_url }}/"');
  });

  it("builds with the workflow's own build command for a Pages URL", async () => {
    const dir = await scaffold();
    const workflow = await readYaml(path.join(dir, '.github/workflows/addon.yml'));
    const command = (workflow.jobs.build.steps as { run?: string }[]).map((s) => s.run ?? '').find((r) => r.startsWith('addon-gen build'))!;
    // What GitHub substitutes (configure-pages gives the URL without a trailing slash), and an
    // `addon-gen` on PATH that is this checkout's bin, as `npm install --global` would put there.
    const shell = command.replace('${{ steps.pages.outputs.base_url }}', 'https://octocat.github.io/my-addon');
    const shims = await tempDir();
    await writeFile(path.join(shims, 'addon-gen'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(path.join(shims, 'addon-gen'), 0o755);
    const env = { ...process.env, PATH: `${shims}${path.delimiter}${process.env.PATH}` };
    const { stdout } = await exec('sh', ['-c', shell], { cwd: dir, env });
    expect(stdout).toContain('manifest: https://octocat.github.io/my-addon/manifest.json');

    const files = await listing(path.join(dir, 'dist'));
    expect(files).toContain('index.html');
    expect(files).toContain('.nojekyll');
    expect(files).not.toContain('_headers'); // --host github-pages: only what Pages needs
    const episode = await readJson(path.join(dir, 'dist/meta/series/pd:superman-1941.json'));
    expect(episode.meta.links).toContainEqual({
      name: 'Animation',
      category: 'Genres',
      url: 'stremio:///discover/https%3A%2F%2Foctocat.github.io%2Fmy-addon%2Fmanifest.json/series/series?genre=Animation',
    });
  });

  it('has a comment on every setting of addon.yaml', async () => {
    const dir = await scaffold();
    const doc = parseDocument(await readFile(path.join(dir, 'content/addon.yaml'), 'utf8'));
    expect(doc.errors).toEqual([]);
    expect(isMap(doc.contents)).toBe(true);
    const uncommented: string[] = [];
    // A comment above a key sits on the key; one after a scalar value on the value; one after a
    // key whose value is a map or list (`cache:   # …`) before that collection.
    const commentOf = (pair: Pair) => {
      const key = pair.key as Node;
      const value = pair.value as Node | null;
      return (
        key.commentBefore ?? key.comment ?? (isScalar(value) ? value.comment : undefined) ?? (isCollection(value) ? value.commentBefore : undefined)
      );
    };
    const walk = (node: unknown, at: string) => {
      if (isMap(node)) {
        for (const pair of node.items) {
          const key = `${at}${String((pair.key as { value?: unknown }).value)}`;
          if (!commentOf(pair)) uncommented.push(key);
          walk(pair.value, `${key}.`);
        }
      } else if (isCollection(node)) {
        node.items.forEach((item, i) => walk(item, `${at.replace(/\.$/, '')}[${i}].`));
      }
    };
    walk(doc.contents, '');
    expect(uncommented).toEqual([]);
    expect(Object.keys(doc.toJS())).toEqual(['id', 'version', 'name', 'description', 'cache', 'catalogs']);
  });

  it('installs addon-gen from npm, and names the release tarball as the route when that version is not on npm', async () => {
    const dir = await scaffold();
    const text = await readFile(path.join(dir, '.github/workflows/addon.yml'), 'utf8');
    // Every placeholder filled in (GitHub's own `${{ … }}` stays).
    expect(text).not.toMatch(/(?<!\$)\{\{/);
    const repository = PACKAGE.repository.url.replace(/^git\+https:\/\/github\.com\//, '').replace(/\.git$/, '');
    const v = PACKAGE.version;
    expect(text).toContain(`#   npm install --global https://github.com/${repository}/releases/download/v${v}/addon-gen-${v}.tgz\n`);
    // The route from Git fails (it must compile, and a global install has no compiler): not offered.
    expect(text).not.toMatch(/npm install --global github:/);
  });

  it('has no schedule unless asked, and a commented cron schedule when asked', async () => {
    const templates = await readInitTemplates();
    const workflowOf = (schedule?: string) => {
      const files = renderInitFiles(templates, {
        id: 'org.example.films',
        name: 'Films',
        addonGenVersion: '9.9.9',
        ...(schedule !== undefined && { schedule }),
      });
      const text = files.find((f) => f.path === '.github/workflows/addon.yml')!.body;
      const doc = parseDocument(text);
      expect(doc.errors).toEqual([]);
      return { text, workflow: doc.toJS() as any };
    };

    const plain = workflowOf();
    expect(Object.keys(plain.workflow.on)).toEqual(['push', 'workflow_dispatch']);
    expect(plain.workflow.on.schedule).toBeUndefined();
    expect(plain.text).not.toContain('schedule');

    const daily = workflowOf('0 6 * * *');
    expect(Object.keys(daily.workflow.on)).toEqual(['push', 'workflow_dispatch', 'schedule']);
    expect(daily.workflow.on.schedule).toEqual([{ cron: '0 6 * * *' }]);
    expect(daily.workflow.on.schedule[0].cron).toBe('0 6 * * *');
    expect(daily.text).toMatch(
      /^ {2}# Also rebuilds and publishes on a schedule \(cron, in UTC\).*\n(?: {2}#.*\n)* {2}schedule:\n {4}- cron: '0 6 \* \* \*'\n/m,
    );
    // The rest of the workflow is the same.
    expect({ ...daily.workflow, on: undefined }).toEqual({ ...plain.workflow, on: undefined });

    // Spaces as typed are made single; the form is checked before anything is written.
    expect(workflowOf(' 30  5 * *\t1-5 ').workflow.on.schedule).toEqual([{ cron: '30 5 * * 1-5' }]);
    expect(workflowOf('0 0 1 JAN,JUL MON').workflow.on.schedule).toEqual([{ cron: '0 0 1 JAN,JUL MON' }]);
  });

  it('writes the schedule through initProject, and says so in the next steps', async () => {
    const dir = path.join(await tempDir(), 'films');
    const result = await initProject({ dir, schedule: '0 6 * * *' });
    expect(result.schedule).toBe('0 6 * * *');
    const workflow = await readYaml(path.join(dir, '.github/workflows/addon.yml'));
    expect(workflow.on.schedule[0].cron).toBe('0 6 * * *');
    expect(initText(result, dir)).toContain("and publishes every push to main, and on the schedule '0 6 * * *' (cron, UTC).\n");

    const without = path.join(await tempDir(), 'films');
    const plain = await initProject({ dir: without });
    expect(plain.schedule).toBeUndefined();
    expect((await readYaml(path.join(without, '.github/workflows/addon.yml'))).on.schedule).toBeUndefined();
    expect(initText(plain, without)).toContain('  and publishes every push to main.\n');
  });

  it('refuses a schedule that is not a cron expression of 5 fields, before writing anything', async () => {
    for (const bad of ['', 'daily', '0 6 * *', '0 6 * * * *', "0 6 * * *'", '0 6 * * *\n  - cron: x', '@daily']) {
      const dir = path.join(await tempDir(), 'films');
      const refused = initProject({ dir, schedule: bad });
      await expect(refused, JSON.stringify(bad)).rejects.toBeInstanceOf(UsageError);
      await expect(refused).rejects.toThrow(
        `--schedule ${JSON.stringify(bad)}: expected a cron expression of 5 fields (minute hour day-of-month month day-of-week, in UTC), such as '0 6 * * *' for daily at 06:00 UTC`,
      );
      expect(existsSync(dir), JSON.stringify(bad)).toBe(false);
      expect(() => checkSchedule(bad)).toThrow(UsageError);
    }
  });

  it('refuses a schedule whose values are out of their ranges, which would leave the workflow unread', async () => {
    const refused: [string, string][] = [
      ['0 25 * * *', 'the hour 25 is out of range: expected 0 to 23'],
      ['60 * * * *', 'the minute 60 is out of range: expected 0 to 59'],
      ['0 6 0 * *', 'the day of the month 0 is out of range: expected 1 to 31'],
      ['0 6 * 13 *', 'the month 13 is out of range: expected 1 to 12, or JAN to DEC'],
      ['0 6 * * 7', 'the day of the week 7 is out of range: expected 0 to 6, or SUN to SAT'],
      ['0 6 * * MOX', 'the day of the week field\'s "MOX" is not a value, a range or *: expected 0 to 6, or SUN to SAT'],
      ['*/0 * * * *', 'the minute field\'s "*/0" has a step that is not a whole number above 0'],
      ['0 6 * * 5-1', 'the day of the week range "5-1" runs backwards'],
    ];
    for (const [bad, problem] of refused) expect(() => checkSchedule(bad), bad).toThrow(`--schedule ${JSON.stringify(bad)}: ${problem}`);
    for (const good of ['0 6 * * *', '*/15 0-23/2 1,15 JAN-jun MON-FRI', '30 5 * * sun', '0 0 31 12 6']) expect(checkSchedule(good), good).toBe(good);
  });

  it('is valid YAML as a template too, for those who copy it by hand', async () => {
    const template = (await readInitTemplates()).get('dot-github/workflows/addon.yml')!;
    const doc = parseDocument(template);
    expect(doc.errors).toEqual([]);
    expect((doc.toJS() as any).on.schedule).toBeUndefined();
  });

  it('is all in the npm package, under names npm keeps', async () => {
    expect(PACKAGE.files).toContain('templates');
    // npm drops `.gitignore` from packages, so dotfiles are stored as `dot-…` and renamed.
    const names = await readdir(TEMPLATES, { recursive: true });
    expect(names.filter((name) => name.split(path.sep).some((segment) => segment.startsWith('.')))).toEqual([]);
  });
});
