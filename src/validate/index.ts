// Stage 2, validate: check the loaded YAML against the content schemas and across items, and
// resolve it into `Content`, the complete, checked description of the addon that plan lays out.
import path from 'node:path';
import { z } from 'zod';
import { hasErrors, problem, suggester, type Diagnostic, type DiagnosticList } from '../diagnostics/index.js';
import { letGoOfTexts, locate, type Loaded, type SourceFile, type SourceValue } from '../load/index.js';
import { itemSettings, type Content, type ExternalTitle, type Item } from '../shared/content.js';
import { contentBytes } from '../shared/output-limit.js';
import { normalizeBaseUrl } from '../shared/paths.js';
import { checkPlacement } from './placement.js';
import { checkCatalogNames, checkType, indexCatalogs, resolveCatalogs, warnUncatalogued } from './catalogs.js';
import { declaredTypesAndPrefixes } from '../shared/resources.js';
import { externalTitle, titlesDescribedElsewhere } from './external-titles.js';
import { checkBaseUrlScheme, checkPrefixes } from './ids.js';
import { issuesToDiagnostics, type Locator } from './issues.js';
import { mergePlaylistChannels } from './channels.js';
import { checkUniqueIds, hasName, normalizeItem } from './items.js';
import { localFiles } from './local-files.js';
import { checkAssetSecrets, checkCredentials } from './public-output.js';
import { checkResources } from './resources.js';
import { resolveAddonCatalogs } from './addon-catalogs.js';
import { checkConfig, checkWhen, warnUnusedOptions, whensOf } from './config.js';
import type { ConfigOption } from '../shared/configurations.js';
import { baseUrl as baseUrlSchema, contentSchemas, type AddonSettings } from './schema.js';
import { placed, type CheckedFiles, type FileResult, type Placed } from './checked-files.js';
import { sha1, textFingerprint } from '../shared/fingerprint.js';
import { expandVariables, needsWalk, policyLists, secretPolicy, secretsIn, type Environment } from './secrets.js';

// What other stages and the tests import from validate.
export {
  streamOwners,
  type Asset,
  type Catalog,
  type Content,
  type ExternalTitle,
  type Item,
  type Stream,
  type StreamOwner,
  type Subtitle,
  type Video,
} from '../shared/content.js';
export { derivePrefixes } from '../shared/id-prefixes.js';
export { sortVideos } from './items.js';

export interface ValidateOptions {
  /** The `--base-url` flag; wins over `baseUrl` in addon.yaml. */
  baseUrl?: string;
  contentDir: string;
  /** Variables for `${NAME}` in values; default `process.env`. */
  env?: Environment;
  /** Credentials in `proxyHeaders` are a warning instead of an error. */
  allowCredentialsInOutput?: boolean;
  /** What earlier builds' checks of each item file found, to take instead of checking it again; this build's are added. */
  checkedFiles?: CheckedFiles;
  /**
   * Called once every item file is checked, with no error so far, before the checks across items;
   * validate goes on once what it returns settles. serve --watch answers an edit's item files from
   * it (plan/early-answers.ts, provisionalContent).
   */
  onItemsChecked?: (checked: CheckedItems) => void | Promise<void>;
}

/** The items and titles of every item file, checked each on its own, in file order, and the settings they were checked with. */
export interface CheckedItems {
  /** addon.yaml's checked value and the base URL, as one string: equal for the same settings. */
  settings: string;
  /** addon.yaml's settings as the content has them (Content['addon']). */
  addon: Content['addon'];
  items: readonly Item[];
  externalTitles: readonly ExternalTitle[];
}

export interface Validated {
  content?: Content;
  diagnostics: Diagnostic[];
}

/**
 * The item at which the item schema is compiled. `z.compile` generates zod's own parser for a
 * schema, quickly: it checks a valid item in a fraction of the time, with less garbage (figures:
 * bench/README.md, 'Compiled item schema'), and hands an invalid one to the runtime parser, so
 * what is reported does not change. Worth it from a few thousand items.
 */
export const COMPILE_ITEM_SCHEMA_AT = 2000;

/**
 * Checks everything that was loaded; `content` is set only when no error was found. Then the
 * files' texts are let go of, and read again for a line shown later (load/read.ts, letGoOfText).
 */
export async function validate(loaded: Loaded, options: ValidateOptions): Promise<Validated> {
  const validated = await checkLoaded(loaded, options);
  letGoOfTexts(loaded.files);
  return validated;
}

async function checkLoaded(loaded: Loaded, options: ValidateOptions): Promise<Validated> {
  // One list with those of loading, which goes on while items are read: one limit per file.
  const diagnostics = loaded.diagnostics;
  const files = localFiles(options.contentDir);
  const schemas = contentSchemas(files.resolve);

  // Variables first: `baseUrl: ${BASE_URL}` is read right below. Only files that hold a
  // reference or a guarded value are walked. Whether one does is found once per file: searched
  // once per item, a file of 200,000 items would be read 200,000 times.
  const env = options.env ?? process.env;
  const lists = policyLists(loaded.addon?.value);
  const policy = secretPolicy(env, lists.secrets, lists.publish);
  const used = new Map<string, string>();
  const walked = new Map<SourceFile, boolean>();
  const needsWalkOnce = (source: SourceFile): boolean => {
    if (!walked.has(source)) walked.set(source, needsWalk(source.text, policy));
    return walked.get(source)!;
  };
  const expand = (value: SourceValue, skip?: string[]): ReadonlySet<string> =>
    needsWalkOnce(value.source) ? expandVariables(value.value, env, policy, locatorOf(value), diagnostics, skip, used) : new Set();
  const addonFailed = loaded.addon ? expand(loaded.addon, ['secrets', 'publish']) : new Set<string>();
  // Also percent-encoded, as a pasted signed URL has it.
  for (const { name } of options.baseUrl === undefined ? [] : secretsIn(options.baseUrl, policy)) {
    diagnostics.push(problem('secret-in-output', { kind: 'base-url', name }, {}));
  }

  // The base URL decides what local files become; read it before the settings are checked, so
  // that a mistake elsewhere in addon.yaml does not turn every local file into a second error.
  const baseUrlSetting = options.baseUrl ?? baseUrlOf(loaded.addon?.value);
  const baseUrl = baseUrlSetting === undefined ? undefined : normalizeBaseUrl(baseUrlSetting);
  let addon: AddonSettings | undefined;
  // The config keys some `when` names: an option none names is a warning.
  const usedKeys = new Set<string>();
  // Unknown until addon.yaml is read: an addon.yaml with an error makes no `when` wrong.
  let config: ConfigOption[] | undefined;
  if (loaded.addon) {
    files.from(loaded.addon, baseUrl);
    addon = parseWith(schemas.addon, loaded.addon, diagnostics, addonFailed);
    if (addon) config = checkAddonConfig(addon, locatorOf(loaded.addon), diagnostics, usedKeys);
  }

  const catalogIndex = addon ? indexCatalogs(addon.catalogs) : undefined;
  const suggest = suggester();
  // A file kept without a guarded value may hold one of the variables set now.
  options.checkedFiles?.begin(checkContext(loaded, addon, options, used), (source) => !needsWalkOnce(source));
  const allowCredentials = options.allowCredentialsInOutput ?? false;
  const checks: ValueChecks = { schemas, expand, needsWalk: needsWalkOnce, files, baseUrl, diagnostics, allowCredentials, config, suggest };
  if (addon && catalogIndex) checks.catalogs = { index: catalogIndex, types: addon.types };
  const { items, externalTitles: checkedTitles, usedKeys: named } = await checkItemFiles(loaded, checks, options.checkedFiles);
  let externalTitles = checkedTitles;
  for (const key of named) usedKeys.add(key);
  if (!addon || !loaded.addon || !config) return { diagnostics: diagnostics.list() };
  const { catalogs: _settings, config: _config, addonCatalogs: _collections, ...settings } = addon;
  if (options.onItemsChecked && !hasErrors(diagnostics.list())) {
    await options.onItemsChecked({ settings: JSON.stringify([addon, baseUrl ?? null]), addon: settings, items, externalTitles });
  }

  const addonAt = locatorOf(loaded.addon);
  warnUnusedOptions(config, usedKeys, addonAt, diagnostics);
  externalTitles = titlesDescribedElsewhere(externalTitles, items, addon.catalogs, addonAt, diagnostics);
  checkUniqueIds([...mergePlaylistChannels(items), ...externalTitles], diagnostics);
  const inputBytes = contentBytes([loaded.addon.source, ...items.map((item) => item.source), ...externalTitles.map((title) => title.source)]);
  const catalogs = resolveCatalogs(addon.catalogs, items, inputBytes, addonAt, diagnostics, suggest);
  checkPlacement(catalogs, addon.catalogs, diagnostics);
  warnUncatalogued(items, catalogs, catalogIndex?.typos ?? new Map(), diagnostics);
  const addonCatalogs = resolveAddonCatalogs(addon.addonCatalogs, addonAt, loaded.addon.source.absolute, diagnostics);
  const content: Content = {
    addon: settings,
    config,
    textBytes: inputBytes,
    baseUrl,
    ...declaredTypesAndPrefixes(addon, addon.catalogs, [...items, ...externalTitles]),
    catalogs,
    items,
    externalTitles,
    assets: files.assets(),
    addonCatalogs,
    variables: Object.fromEntries([...used].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  checkAssetSecrets(content.assets, policy, options.contentDir, diagnostics);
  checkBaseUrlScheme(baseUrl, options.baseUrl === undefined ? addonAt : undefined, diagnostics);
  if (addon.idPrefixes) checkPrefixes(content, addonAt, diagnostics);
  checkResources(content, addonAt, diagnostics);
  const all = diagnostics.list();
  return hasErrors(all) ? { diagnostics: all } : { content, diagnostics: all };
}

/**
 * Everything but a file's own text that what its values become depends on: the options, and
 * addon.yaml (settings, catalogs, config, playlists' settings, guarded names) with the values of
 * the variables it used (`used`), hashed. The other variables matter only to a file that holds a
 * reference or a guarded value, which is never kept (CheckedFiles.begin looks again).
 */
function checkContext(loaded: Loaded, checked: AddonSettings | undefined, options: ValidateOptions, used: ReadonlyMap<string, string>): string {
  // A release's new version or description checks no item otherwise (itemSettings).
  const addon = checked ? sha1(JSON.stringify(itemSettings(checked))) : loaded.addon ? textFingerprint(loaded.addon.source) : null;
  const variables = [...used].map(([name, value]) => [name, sha1(value)]).sort(([a], [b]) => (a! < b! ? -1 : 1));
  return JSON.stringify([path.resolve(options.contentDir), options.baseUrl ?? null, options.allowCredentialsInOutput ?? false, addon, variables]);
}

/** What each item's value is checked with and against; problems go to `diagnostics`. */
interface ValueChecks {
  schemas: ReturnType<typeof contentSchemas>;
  /** Replaces the variables in a value; the paths whose replacement failed (reported). */
  expand: (value: SourceValue) => ReadonlySet<string>;
  /** Whether a file holds a variable or a guarded value. */
  needsWalk: (source: SourceFile) => boolean;
  files: ReturnType<typeof localFiles>;
  baseUrl: string | undefined;
  diagnostics: DiagnosticList;
  allowCredentials: boolean;
  /** Unknown when addon.yaml has an error: then no `when` is wrong. */
  config: ConfigOption[] | undefined;
  catalogs?: { index: ReturnType<typeof indexCatalogs>; types: AddonSettings['types'] };
  suggest: ReturnType<typeof suggester>;
}

/**
 * Checks the values of every item file, in file order, or takes what `kept` has of a file that is
 * as it was. A file is kept for the next build when none of its values gave a problem or depends
 * on more than its text: a variable (content.variables lists the values used) or a local file
 * (which may be gone by then).
 */
async function checkItemFiles(loaded: Loaded, checks: ValueChecks, kept: CheckedFiles | undefined) {
  const items: Item[] = [];
  const externalTitles: ExternalTitle[] = [];
  const usedKeys = new Set<string>();
  const add = (result: FileResult) => {
    for (const item of result.items.values) items.push(item);
    for (const title of result.externalTitles.values) externalTitles.push(title);
    for (const key of result.usedKeys) usedKeys.add(key);
  };
  // The file whose values are being checked and what they became, until the next file's come.
  let current: { source: SourceFile; result: FileResult; resolved: number } | undefined;
  const finish = () => {
    if (!current) return;
    add(current.result);
    const { source, result, resolved } = current;
    if (kept && !checks.needsWalk(source) && checks.files.resolved() === resolved && !checks.diagnostics.has(source.file)) kept.keep(source, result);
    current = undefined;
  };
  let itemSchema = checks.schemas.item;
  let checked = 0;
  for await (const next of loaded.items) {
    if ('known' in next) {
      if (!kept) throw new Error(`load did not parse ${next.known.relative}, but validate has nothing kept of it`);
      finish();
      add(kept.take(next.known, (source, document, at) => locatorOf({ source, document, at, value: undefined })));
      continue;
    }
    if (current?.source !== next.source) {
      finish();
      current = { source: next.source, result: { items: placed(), externalTitles: placed(), usedKeys: [] }, resolved: checks.files.resolved() };
    }
    if (++checked === COMPILE_ITEM_SCHEMA_AT) itemSchema = z.compile(checks.schemas.item);
    checkValue(next, itemSchema, checks, current.result);
  }
  finish();
  kept?.end();
  return { items, externalTitles, usedKeys };
}

/** Checks one item's value; what it becomes, an item or a title described elsewhere, goes to `result`. */
function checkValue(value: SourceValue, schema: ValueChecks['schemas']['item'], checks: ValueChecks, result: FileResult): void {
  const { diagnostics, suggest, catalogs } = checks;
  const failed = checks.expand(value);
  checks.files.from(value, checks.baseUrl);
  const parsed = parseWith(schema, value, diagnostics, failed);
  if (!parsed) return;
  const at = locatorOf(value);
  checkCredentials(parsed, at, checks.allowCredentials, diagnostics);
  if (checks.config) {
    const keys = new Set<string>();
    for (const { path, when } of whensOf(parsed)) checkWhen(when, path, checks.config, at, diagnostics, keys);
    result.usedKeys.push(...keys);
  }
  const place = <T>(into: Placed<T>, made: T) => {
    into.values.push(made);
    into.documents.push(value.document);
    into.paths.push(value.at);
  };
  if (!hasName(parsed)) {
    if (catalogs) checkType(parsed, catalogs.index, catalogs.types, at, diagnostics, suggest, true);
    const title = externalTitle(parsed, at, value.source, diagnostics);
    if (title) place(result.externalTitles, title);
    return;
  }
  place(result.items, normalizeItem(parsed, at, value.source, diagnostics, suggest));
  if (catalogs) {
    checkType(parsed, catalogs.index, catalogs.types, at, diagnostics, suggest);
    checkCatalogNames(parsed, catalogs.index, at, diagnostics, suggest);
  }
}

/** `config` and the `when` of each catalog; undefined when an option cannot be built. */
function checkAddonConfig(addon: AddonSettings, at: Locator, diagnostics: DiagnosticList, used: Set<string>): ConfigOption[] | undefined {
  const config = checkConfig(addon, at, diagnostics);
  if (!config) return undefined;
  addon.catalogs.forEach((catalog, index) => catalog.when && checkWhen(catalog.when, ['catalogs', index, 'when'], config, at, diagnostics, used));
  return config;
}

/** Parses with a content schema; `reported` are paths already reported (a variable that failed). */
function parseWith<T extends z.ZodType>(
  schema: T,
  value: SourceValue,
  diagnostics: DiagnosticList,
  reported: ReadonlySet<string> = new Set(),
): z.output<T> | undefined {
  const result = schema.safeParse(value.value, { reportInput: true });
  if (result.success) return result.data;
  for (const pending of issuesToDiagnostics(result.error.issues, schema, locatorOf(value))) {
    if (pending.path === undefined || !reported.has(pending.path)) diagnostics.add(value.source.file, 'error', pending.build);
  }
  return undefined;
}

/** Keeps only what locating needs, not the parsed value, which items outlive. */
function locatorOf({ source, document, at }: SourceValue): Locator {
  const locator = (nodePath: readonly (string | number)[], key?: string) => locate(source, document, [...at, ...nodePath], key);
  return Object.assign(locator, { file: source.file });
}

/** `baseUrl` from unchecked settings, when it is valid (an invalid one is reported by the schema). */
function baseUrlOf(settings: unknown): string | undefined {
  const value = typeof settings === 'object' && settings !== null && 'baseUrl' in settings ? settings.baseUrl : undefined;
  const parsed = baseUrlSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
