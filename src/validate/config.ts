// `config` in addon.yaml and `when` wherever content has it: the options are checked and made
// into `ConfigOption`s, their configurations counted against the limit, and every `when` checked
// against them at its own line.
import { closest, formatPath, problem, type DiagnosticList } from '../diagnostics/index.js';
import type { UnknownConfig } from '../diagnostics/catalog-config.js';
import {
  configurationCount,
  DEFAULT_MAX_CONFIGURATIONS,
  longestSegment,
  optionValues,
  type ConfigOption,
  type ConfigValue,
  type When,
} from '../shared/configurations.js';
import type { Locator } from './issues.js';
import type { AddonSettings, ContentItem } from './schema.js';

type Path = (string | number)[];

/** The longest segment (folder name) config may make. */
const MAX_SEGMENT_BYTES = 100;
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
    const values = optionValues(widest).length;
    const index = options.indexOf(widest);
    const related = [{ ...at(['config', index]), message: `"${widest.key}", with ${values} values` }];
    const tied = options.every((option) => optionValues(option).length === values);
    const params = { count, limit, key: widest.key, values, tied: tied ? options.length : undefined };
    diagnostics.push(problem('too-many-configurations', params, { ...placeOf(at, ['config']), ...(!tied && { related }) }));
    return undefined;
  }
  // A segment is a folder name: hosts and file systems take 255 bytes, and a Windows checkout
  // 260 characters for the whole path, which the files below it need most of.
  const bytes = longestSegment(options);
  if (bytes > MAX_SEGMENT_BYTES) {
    diagnostics.push(problem('invalid-config', { kind: 'segment-too-long', bytes, limit: MAX_SEGMENT_BYTES }, placeOf(at, ['config'])));
    return undefined;
  }
  return options;
}

/** The options no `when` names: every configuration of theirs would be the same as the others. */
export function warnUnusedOptions(options: readonly ConfigOption[], used: ReadonlySet<string>, at: Locator, diagnostics: DiagnosticList) {
  options.forEach((option, index) => {
    if (!used.has(option.key))
      diagnostics.push(problem('unused-config', { key: option.key, trees: configurationCount(options) }, placeOf(at, ['config', index, 'key'])));
  });
}

/** Where `when` may be written in an item: on it, its streams and subtitles, and those of its videos. */
export function whensOf(item: ContentItem): { path: Path; when: When }[] {
  type Holder = { when?: When; streams?: Holder[]; subtitles?: Holder[]; trailerStreams?: Holder[]; videos?: Holder[] };
  const found: { path: Path; when: When }[] = [];
  // One path, pushed and popped: every item is walked, and few have a `when` to copy it for.
  const path: Path = [];
  const walk = (holder: Holder) => {
    if (holder.when !== undefined) found.push({ path: [...path, 'when'], when: holder.when });
    for (const field of HOLDER_FIELDS) {
      const children = holder[field];
      if (!children) continue;
      for (let index = 0; index < children.length; index++) {
        path.push(field, index);
        walk(children[index]!);
        path.length -= 2;
      }
    }
  };
  walk(item);
  return found;
}

const HOLDER_FIELDS = ['streams', 'subtitles', 'trailerStreams', 'videos'] as const;

/**
 * Checks a `when` against the options: every key one of theirs, every value one of its option's.
 * `path` is where the `when` is, in the file `at` locates in.
 */
export function checkWhen(when: When, path: Path, options: readonly ConfigOption[], at: Locator, diagnostics: DiagnosticList, used: Set<string>) {
  // A key is located at the key itself (in the `when` mapping), which is what is wrong.
  const unknown = (params: UnknownConfig, where: Path, key?: string) =>
    diagnostics.push(problem('unknown-config', params, { ...(key === undefined ? at(where) : at(path, key)), path: formatPath(where) }));
  for (const [key, wanted] of Object.entries(when)) {
    const option = options.find((o) => o.key === key);
    if (!option) {
      if (options.length === 0) unknown({ kind: 'no-config', key }, [...path, key], key);
      else {
        const keys = options.map((o) => o.key);
        const suggestion = keys.find((k) => k.toLowerCase() === key.toLowerCase()) ?? closest(key, keys);
        unknown({ kind: 'key', key, keys, suggestion }, [...path, key], key);
      }
      continue;
    }
    used.add(key);
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
