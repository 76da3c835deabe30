// `config` in addon.yaml and `when` wherever content has it: the options are checked and made
// into `ConfigOption`s, their configurations counted against the limit, and every `when` checked
// against them at its own line.
import { closest, formatPath, problem, type DiagnosticList } from '../diagnostics/index.js';
import type { UnknownConfig } from '../diagnostics/catalog-config.js';
import {
  configurationCount,
  DEFAULT_MAX_CONFIGURATIONS,
  optionValues,
  type ConfigOption,
  type ConfigValue,
  type When,
} from '../shared/configurations.js';
import type { Locator } from './issues.js';
import type { AddonSettings, ContentItem } from './schema.js';

type Path = (string | number)[];
const placeOf = (at: Locator, path: Path) => ({ ...at(path), path: formatPath(path) });

/** The options of `config`, checked; undefined when one cannot be built (reported). */
export function checkConfig(addon: AddonSettings, at: Locator, diagnostics: DiagnosticList): ConfigOption[] | undefined {
  const declared = addon.config ?? [];
  const hints = addon.behaviorHints;
  if (declared.length === 0) {
    if (hints?.configurationRequired) {
      diagnostics.push(problem('invalid-config', { kind: 'required-without-config' }, placeOf(at, ['behaviorHints', 'configurationRequired'])));
    }
    return [];
  }
  if (hints?.configurable === false) {
    diagnostics.push(problem('invalid-config', { kind: 'not-configurable' }, placeOf(at, ['behaviorHints', 'configurable'])));
  }
  const options: ConfigOption[] = [];
  const keys = new Set<string>();
  let failed = false;
  declared.forEach((option, index) => {
    const place = (...path: Path) => placeOf(at, ['config', index, ...path]);
    const report = (...args: Parameters<typeof problem<'invalid-config'>>) => {
      diagnostics.push(problem(...args));
      failed = true;
    };
    const { key } = option;
    if (keys.has(key.toLowerCase())) return report('invalid-config', { kind: 'key-twice', key }, place('key'));
    keys.add(key.toLowerCase());
    const title = option.title ?? key;
    if (option.type === 'text' || option.type === 'number' || option.type === 'password') {
      diagnostics.push(problem('config-not-prebuildable', { key, type: option.type }, place('type')));
      failed = true;
      return;
    }
    if (option.type === 'checkbox') {
      if (option.options !== undefined) return report('invalid-config', { kind: 'checkbox-options', key }, place('options'));
      if (option.default !== undefined && typeof option.default !== 'boolean') {
        return report('invalid-config', { kind: 'checkbox-default', key, value: JSON.stringify(option.default) }, place('default'));
      }
      options.push({ key, type: 'checkbox', title, default: option.default ?? false });
      return;
    }
    const values = option.options ?? [];
    if (values.length === 0) return report('invalid-config', { kind: 'select-without-options', key }, place('key'));
    const twice = values.findIndex((value, i) => values.indexOf(value) !== i);
    if (twice !== -1) return report('invalid-config', { kind: 'option-twice', key, value: values[twice]! }, place('options', twice));
    const fallback = option.default ?? values[0]!;
    if (typeof fallback !== 'string' || !values.includes(fallback)) {
      return report('invalid-config', { kind: 'default-not-an-option', key, value: String(fallback), options: values }, place('default'));
    }
    options.push({ key, type: 'select', title, options: values, default: fallback });
  });
  if (failed) return undefined;

  const limit = addon.maxConfigurations ?? DEFAULT_MAX_CONFIGURATIONS;
  const count = configurationCount(options);
  if (count > limit) {
    const widest = options.reduce((a, b) => (optionValues(b).length > optionValues(a).length ? b : a));
    const index = options.indexOf(widest);
    const related = [{ ...at(['config', index]), message: `"${widest.key}", with ${optionValues(widest).length} values` }];
    const params = { count, limit, key: widest.key, values: optionValues(widest).length };
    diagnostics.push(problem('too-many-configurations', params, { ...placeOf(at, ['config']), related }));
    return undefined;
  }
  return options;
}

/** Where `when` may be written in an item: on it, its streams and subtitles, and those of its videos. */
export function whensOf(item: ContentItem): { path: Path; when: When }[] {
  const found: { path: Path; when: When }[] = [];
  const add = (path: Path, holder: { when?: When } | undefined) => {
    if (holder?.when !== undefined) found.push({ path: [...path, 'when'], when: holder.when });
  };
  type Holder = { when?: When; streams?: Holder[]; subtitles?: Holder[]; trailerStreams?: Holder[] };
  const walk = (path: Path, holder: Holder) => {
    add(path, holder);
    for (const field of ['streams', 'subtitles', 'trailerStreams'] as const) {
      holder[field]?.forEach((child, index) => walk([...path, field, index], child));
    }
  };
  walk([], item);
  item.videos?.forEach((video, index) => walk(['videos', index], video));
  return found;
}

/**
 * Checks a `when` against the options: every key one of theirs, every value one of its option's.
 * `path` is where the `when` is, in the file `at` locates in.
 */
export function checkWhen(when: When, path: Path, options: readonly ConfigOption[], at: Locator, diagnostics: DiagnosticList) {
  const unknown = (params: UnknownConfig, where: Path) => diagnostics.push(problem('unknown-config', params, placeOf(at, where)));
  for (const [key, wanted] of Object.entries(when)) {
    const option = options.find((o) => o.key === key);
    if (!option) {
      if (options.length === 0) unknown({ kind: 'no-config', key }, [...path, key]);
      else {
        const keys = options.map((o) => o.key);
        const suggestion = keys.find((k) => k.toLowerCase() === key.toLowerCase()) ?? closest(key, keys);
        unknown({ kind: 'key', key, keys, suggestion }, [...path, key]);
      }
      continue;
    }
    const values = optionValues(option);
    const list: readonly ConfigValue[] = typeof wanted === 'object' ? wanted : [wanted];
    list.forEach((value, index) => {
      if (values.includes(value)) return;
      const shown = values.map((v) => String(v));
      const suggestion = typeof value === 'string' ? shown.find((v) => v.toLowerCase() === value.toLowerCase()) : undefined;
      const where = typeof wanted === 'object' ? [...path, key, index] : [...path, key];
      unknown({ kind: 'value', key, value: JSON.stringify(value), values: shown, suggestion }, where);
    });
  }
}
