// addon-gen init: a new addon project (content to edit, a .gitignore, a GitHub Pages workflow)
// made from the files in templates/init/, plus the content's JSON Schemas. Every file is decided and
// checked before the first write.
import { lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { UsageError } from '../diagnostics/index.js';
import { jsonSchemaFiles } from '../validate/json-schema.js';
import { INIT_CONTENT_DIR, SCHEMA_DIR } from '../build/project.js';
import { INIT_KINDS, type InitKind } from './flags.js';
import { ADDON_FILE } from '../load/index.js';
import { contentSchemas } from '../validate/schema.js';
import { packageInfo, templateUrl } from '../shared/package.js';

export interface InitOptions {
  /** The project folder (the repository root); created when missing. */
  dir: string;
  /** Default `catalog`. */
  kind?: InitKind;
  /** The addon id; default `community.<folder name>`. */
  id?: string;
  /** The addon name; default the folder name in words. */
  name?: string;
  /** Overwrite files that exist instead of refusing. */
  force?: boolean;
  /**
   * A cron expression (5 fields, UTC), e.g. `'0 6 * * *'` for daily at 06:00: the workflow also
   * rebuilds and publishes on this schedule. Default: no schedule (only pushes and manual runs).
   */
  schedule?: string;
}

/** One file of the scaffold: its path below the project folder (forward slashes) and its text. */
export interface InitFile {
  path: string;
  body: string;
}

export interface InitResult {
  dir: string;
  kind: InitKind;
  id: string;
  name: string;
  files: InitFile[];
  /** The files that existed and were overwritten (with `force`). */
  replaced: string[];
  /** The workflow's schedule (cron, UTC), when one was asked for. */
  schedule?: string;
}

/** The values a template may name as `{{key}}`. */
export interface InitValues {
  id: string;
  name: string;
  /** The version of addon-gen that writes the project, pinned in the workflow. */
  addonGenVersion: string;
  /** addon-gen's GitHub repository as `owner/name`, for its release URLs; default `<owner>/addon-gen`. */
  repository?: string;
  /** A checked cron expression (see checkSchedule) for the workflow's `on.schedule`; default none. */
  schedule?: string;
}

/** Creates the project. Throws UsageError for a bad id or name and for files in the way. */
export async function initProject(options: InitOptions): Promise<InitResult> {
  const folderName = path.basename(path.resolve(options.dir));
  const id = options.id ?? defaultId(folderName);
  const name = options.name ?? defaultName(folderName);
  checkSettings(id, name);
  const schedule = options.schedule === undefined ? undefined : checkSchedule(options.schedule);
  const kind = options.kind ?? 'catalog';
  if (!INIT_KINDS.includes(kind)) throw new UsageError(`--kind ${JSON.stringify(kind)}: expected one of ${INIT_KINDS.join(', ')}`);
  const pkg = packageInfo();

  const files = [
    ...renderInitFiles(await readInitTemplates(kind), { id, name, addonGenVersion: pkg.version, repository: pkg.repository, schedule }),
    // The JSON Schemas that the content files' first lines point at, as this version has them.
    ...jsonSchemaFiles().map((file) => ({ path: `${SCHEMA_DIR}/${file.path}`, body: file.body })),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const { existing, blocked } = await filesInTheWay(options.dir, files);
  const shown = (relative: string) => `  ${path.join(options.dir, relative)}`;
  if (blocked.length > 0) {
    throw new UsageError(
      `init cannot write into ${options.dir}, even with --force:\n${blocked.map((b) => `  ${b}`).join('\n')}\nNothing was written. Choose another folder, or move these away.`,
    );
  }
  if (existing.length > 0 && !options.force) {
    throw new UsageError(
      `${options.dir} already has files that init would overwrite:\n${existing.map(shown).join('\n')}\nNothing was written. Run again with --force to overwrite them, or choose another folder.`,
    );
  }

  for (const file of files) {
    const target = path.join(options.dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    // Removed first, so that a symbolic link is replaced rather than written through.
    if (existing.includes(file.path)) await rm(target, { force: true });
    await writeFile(target, file.body, { flag: 'wx' });
  }
  return { dir: options.dir, kind, id, name, files, replaced: existing, ...(schedule !== undefined && { schedule }) };
}

/** `community.` and the folder name in lowercase letters, digits and dashes. */
export function defaultId(folderName: string): string {
  const slug = folderName
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // the accents NFKD took off the letters: é -> e
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `community.${slug || 'my-addon'}`;
}

/** The folder name as words: `my-cool_addon` gives `My Cool Addon`. */
export function defaultName(folderName: string): string {
  const words = folderName.split(/[\s._-]+/).filter(Boolean);
  if (words.length === 0) return 'My Addon';
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
}

/** The id and name must pass the same schema the build checks addon.yaml with. */
function checkSettings(id: string, name: string) {
  // The resolver is for local file fields, which id and name are not.
  const { addon } = contentSchemas(() => ({ message: 'not a file field', params: {} }));
  const badId = addon.shape.id.safeParse(id);
  if (!badId.success) {
    throw new UsageError(`--id ${JSON.stringify(id)}: ${badId.error.issues[0]?.message ?? 'not a valid addon id'}`);
  }
  if (!addon.shape.name.safeParse(name).success) {
    throw new UsageError(`--name ${JSON.stringify(name)}: expected a name of at least one character`);
  }
}

/**
 * A cron expression as GitHub Actions takes it: five fields (minute, hour, day of the month,
 * month, day of the week), each a list of `*`, values and ranges (`1-5`), each with an optional
 * step (`/15`, every 15th), values in the field's range or named (MON, JAN). Returned with single spaces.
 * A workflow GitHub cannot read runs on no trigger at all, pushes included: checked here.
 */
export function checkSchedule(schedule: string): string {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5 || !fields.every((field) => /^[0-9A-Za-z*,/-]+$/.test(field))) {
    throw new UsageError(
      `--schedule ${JSON.stringify(schedule)}: expected a cron expression of 5 fields (minute hour day-of-month month day-of-week, in UTC), such as '0 6 * * *' for daily at 06:00 UTC`,
    );
  }
  for (const [index, field] of fields.entries()) {
    const problem = cronFieldProblem(field, CRON_FIELDS[index]!);
    if (problem !== undefined) throw new UsageError(`--schedule ${JSON.stringify(schedule)}: ${problem}`);
  }
  return fields.join(' ');
}

const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of the month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day of the week', min: 0, max: 6, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** Why one field of a cron expression is not one GitHub takes, or undefined. */
function cronFieldProblem(field: string, { name, min, max, names }: (typeof CRON_FIELDS)[number]): string | undefined {
  const value = (text: string) => {
    const named = names?.indexOf(text.toUpperCase()) ?? -1;
    if (named >= 0) return named + min;
    return /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const range = `${min} to ${max}${names ? `, or ${names[0]} to ${names.at(-1)}` : ''}`;
  for (const part of field.split(',')) {
    const [span = '', step, extra] = part.split('/');
    if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step)))
      return `the ${name} field's "${part}" has a step that is not a whole number above 0`;
    if (span === '*') continue;
    const ends = span.split('-');
    const values = ends.map(value);
    if (ends.length > 2 || values.some((v) => v === undefined))
      return `the ${name} field's "${part}" is not a value, a range or *: expected ${range}`;
    const outside = values.find((v) => v! < min || v! > max);
    if (outside !== undefined) return `the ${name} ${outside} is out of range: expected ${range}`;
    if (values.length === 2 && values[0]! > values[1]!) return `the ${name} range "${span}" runs backwards`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Templates

/**
 * The files of templates/init/, path -> text; for a kind other than `catalog`, with the content
 * of templates/init-{kind}/ instead of its own. A path segment written `dot-x` stands for `.x`:
 * npm leaves `.gitignore` files out of packages, so the templates cannot carry their real names.
 */
export async function readInitTemplates(kind: InitKind = 'catalog'): Promise<Map<string, string>> {
  const templates = await readTemplateDir('init/');
  if (kind === 'catalog') return templates;
  for (const file of templates.keys()) if (file.startsWith(`${INIT_CONTENT_DIR}/`)) templates.delete(file);
  for (const [file, text] of await readTemplateDir(`init-${kind}/`)) templates.set(file, text);
  return templates;
}

async function readTemplateDir(name: string): Promise<Map<string, string>> {
  const dir = fileURLToPath(templateUrl(name));
  const templates = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    // Forward slashes, as the templates are named on every system.
    templates.set(path.relative(dir, file).split(path.sep).join('/'), await readFile(file, 'utf8'));
  }
  return templates;
}

/** The placeholders that stand for a value inside a line. */
type InlineKey = 'id' | 'name' | 'addonGenVersion' | 'repository';

/** Pure: the scaffold's files with their final paths and the values filled in. */
export function renderInitFiles(templates: ReadonlyMap<string, string>, values: InitValues): InitFile[] {
  const scalars: Record<InlineKey, string> = {
    id: yamlScalar(values.id),
    name: yamlScalar(values.name),
    addonGenVersion: values.addonGenVersion,
    repository: values.repository ?? '<owner>/addon-gen',
  };
  const schedule = values.schedule === undefined ? undefined : checkSchedule(values.schedule);
  const files = [...templates].map(([relative, text]) => ({
    path: relative
      .split('/')
      .map((segment) => segment.replace(/^dot-/, '.'))
      .join('/'),
    body: fillIn(fillInSchedule(text, schedule), scalars),
  }));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Replaces `{{key}}` (only the inline keys: GitHub's `${{ … }}` stays). The spaces after a
 * placeholder keep their column where the value allows, so trailing comments stay aligned.
 */
function fillIn(text: string, values: Record<InlineKey, string>): string {
  return text.replace(/\{\{(id|name|addonGenVersion|repository)\}\}( *)/g, (match, key: InlineKey, spaces: string) => {
    const value = values[key];
    if (spaces === '') return value;
    return value + ' '.repeat(Math.max(1, match.length - value.length));
  });
}

/**
 * The line `# {{schedule}} …` (a comment, so that the template stays valid YAML) becomes the
 * workflow's `schedule:` trigger at that indentation, or goes when there is no schedule.
 */
function fillInSchedule(text: string, schedule: string | undefined): string {
  return text.replace(/^( *)# \{\{schedule\}\}.*\n/gm, (_line, indent: string) => {
    if (schedule === undefined) return '';
    const lines = [
      '# Also rebuilds and publishes on a schedule (cron, in UTC), for content whose values come from',
      '# variables or sources that change without a push. GitHub may start scheduled runs late, and',
      '# turns them off in a public repository after 60 days without activity.',
      'schedule:',
      `  - cron: '${schedule}'`,
    ];
    return lines.map((line) => `${indent}${line}\n`).join('');
  });
}

/** A string as a YAML scalar that reads back as that string: plain when safe, else double-quoted. */
function yamlScalar(value: string): string {
  const plain = /^[A-Za-z][A-Za-z0-9 .,'()&!+-]*$/.test(value) && !value.endsWith(' ') && parse(value) === value;
  // A JSON string is a valid YAML double-quoted scalar with the same value.
  return plain ? value : JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// The project folder

/**
 * Which scaffold files exist already (`existing`, replaced with --force) and what no flag can get
 * past (`blocked`): a file where a folder must go, a folder where a file must go, or an addon.yaml
 * at the top, which makes the folder a content folder itself (the build would read the scaffold's
 * content/addon.yaml as items).
 */
async function filesInTheWay(dir: string, files: readonly InitFile[]): Promise<{ existing: string[]; blocked: string[] }> {
  const existing: string[] = [];
  const blocked = new Set<string>();
  // A symbolic link counts as what it points to; a dangling one as a file (it is in the way too).
  const kind = async (target: string) => {
    const entry = await lstat(target).catch(() => undefined);
    if (entry === undefined) return 'none';
    const info = await stat(target).catch(() => entry);
    return info.isDirectory() ? 'folder' : 'file';
  };
  if ((await kind(dir)) === 'file') return { existing, blocked: [`${dir}: a file, not a folder`] };
  if ((await kind(path.join(dir, ADDON_FILE))) === 'file') {
    blocked.add(
      `${path.join(dir, ADDON_FILE)}: ${dir} is a content folder already, and init makes a project whose content goes in ${path.join(dir, INIT_CONTENT_DIR)}/ (the build would read that as items)`,
    );
  }
  for (const file of files) {
    const segments = file.path.split('/');
    for (let i = 0; i < segments.length - 1; i++) {
      const folder = path.join(dir, ...segments.slice(0, i + 1));
      if ((await kind(folder)) === 'file') blocked.add(`${folder}: a file where a folder must go`);
    }
    const target = path.join(dir, file.path);
    const found = await kind(target);
    if (found === 'file') existing.push(file.path);
    if (found === 'folder') blocked.add(`${target}: a folder where a file must go`);
  }
  return { existing, blocked: [...blocked] };
}

// ---------------------------------------------------------------------------------------------
// What the command prints

/** The created files and the next steps. */
export function initText(result: InitResult, cwd = process.cwd()): string {
  const here = path.resolve(result.dir) === path.resolve(cwd);
  const lines = [`Created ${result.name} (${result.id})${here ? '' : ` in ${result.dir}`}:`];
  for (const file of result.files) {
    lines.push(`  ${path.join(result.dir, file.path)}${result.replaced.includes(file.path) ? ' (replaced)' : ''}`);
  }
  lines.push('', 'Next steps:');
  if (!here) lines.push(`  cd ${shellWord(result.dir)}`);
  lines.push(
    `  addon-gen serve    preview: builds ${INIT_CONTENT_DIR}/ and prints the links that install it in Stremio`,
    `  addon-gen build    checks ${INIT_CONTENT_DIR}/ and writes the addon to dist/`,
    result.kind === 'streams'
      ? `  Edit ${INIT_CONTENT_DIR}/addon.yaml, and the titles and their streams in ${INIT_CONTENT_DIR}/titles.yaml.`
      : `  Edit ${INIT_CONTENT_DIR}/addon.yaml and the items in ${INIT_CONTENT_DIR}/movies/ and ${INIT_CONTENT_DIR}/series/.`,
    `  Editors with the YAML language server (VS Code: Red Hat's YAML) complete and check them from ${SCHEMA_DIR}/.`,
    '  To publish on GitHub Pages, push this folder to a GitHub repository and set',
    '  Settings > Pages > Source to "GitHub Actions": .github/workflows/addon.yml then builds',
    result.schedule === undefined
      ? '  and publishes every push to main.'
      : `  and publishes every push to main, and on the schedule '${result.schedule}' (cron, UTC).`,
    '  Other hosts: "Publish" in the addon-gen README.',
  );
  return `${lines.join('\n')}\n`;
}

/** A path as one shell word, quoted only when it needs to be. */
function shellWord(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
