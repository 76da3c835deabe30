// Stage 2, validate: check the loaded YAML against the content schemas and across items, and
// resolve it into `Content`, the complete, checked description of the addon that plan lays out.
import { z } from 'zod';
import { hasErrors, problem, suggester, type Diagnostic, type DiagnosticList } from '../diagnostics/index.js';
import { letGoOfTexts, locate, type Loaded, type SourceFile, type SourceValue } from '../load/index.js';
import type { Content, ExternalTitle, Item } from '../shared/content.js';
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

  const items: Item[] = [];
  let externalTitles: ExternalTitle[] = [];
  const catalogIndex = addon ? indexCatalogs(addon.catalogs) : undefined;
  const suggest = suggester();
  let itemSchema = schemas.item;
  let checked = 0;
  for await (const value of loaded.items) {
    if (++checked === COMPILE_ITEM_SCHEMA_AT) itemSchema = z.compile(schemas.item);
    const failed = expand(value);
    files.from(value, baseUrl);
    const parsed = parseWith(itemSchema, value, diagnostics, failed);
    if (!parsed) continue;
    const at = locatorOf(value);
    checkCredentials(parsed, at, options.allowCredentialsInOutput ?? false, diagnostics);
    if (config) for (const { path, when } of whensOf(parsed)) checkWhen(when, path, config, at, diagnostics, usedKeys);
    if (!hasName(parsed)) {
      if (catalogIndex) checkType(parsed, catalogIndex, addon!.types, at, diagnostics, suggest, true);
      const title = externalTitle(parsed, at, value.source, diagnostics);
      if (title) externalTitles.push(title);
      continue;
    }
    items.push(normalizeItem(parsed, at, value.source, diagnostics, suggest));
    if (catalogIndex) {
      checkType(parsed, catalogIndex, addon!.types, at, diagnostics, suggest);
      checkCatalogNames(parsed, catalogIndex, at, diagnostics, suggest);
    }
  }
  if (!addon || !loaded.addon || !config) return { diagnostics: diagnostics.list() };

  const addonAt = locatorOf(loaded.addon);
  warnUnusedOptions(config, usedKeys, addonAt, diagnostics);
  externalTitles = titlesDescribedElsewhere(externalTitles, items, addon.catalogs, addonAt, diagnostics);
  checkUniqueIds([...mergePlaylistChannels(items), ...externalTitles], diagnostics);
  const inputBytes = contentBytes([loaded.addon.source, ...items.map((item) => item.source), ...externalTitles.map((title) => title.source)]);
  const catalogs = resolveCatalogs(addon.catalogs, items, inputBytes, addonAt, diagnostics, suggest);
  checkPlacement(catalogs, addon.catalogs, diagnostics);
  warnUncatalogued(items, catalogs, catalogIndex?.typos ?? new Map(), diagnostics);
  const addonCatalogs = resolveAddonCatalogs(addon.addonCatalogs, addonAt, loaded.addon.source.absolute, diagnostics);
  const { catalogs: _settings, config: _config, addonCatalogs: _collections, ...settings } = addon;
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
