// Configurations of a configurable addon: every combination of the values of its `config`
// options, each pre-built into a tree of its own at `{base}/{segment}/`. Validate counts them and
// checks `when`; plan lays out one tree per configuration; the configure page links to them.

/** The value an option has in one configuration: a select's option, or a checkbox's state. */
export type ConfigValue = string | boolean;
export type ConfigValues = Readonly<Record<string, ConfigValue>>;

/** A `config` option of addon.yaml, checked: only the kinds whose values are known at build time. */
export type ConfigOption =
  | { key: string; type: 'select'; title: string; options: string[]; default: string }
  | { key: string; type: 'checkbox'; title: string; default: boolean };

/** `when` on a catalog, item, stream or subtitle: per option key, the value or values it is kept for. */
export type When = Readonly<Record<string, ConfigValue | readonly ConfigValue[]>>;

export interface Configuration {
  /** The folder of its tree: readable, the same in every build, a safe file name on every host. */
  segment: string;
  values: ConfigValues;
}

/** How many configurations an addon has unless addon.yaml's `maxConfigurations` allows more. */
export const DEFAULT_MAX_CONFIGURATIONS = 64;
/** The most `maxConfigurations` may allow: each configuration is a whole tree of the addon. */
export const MAX_CONFIGURATIONS_LIMIT = 1024;

/** The values an option can take, in the order the configure page offers them. */
export function optionValues(option: ConfigOption): readonly ConfigValue[] {
  return option.type === 'select' ? option.options : [true, false];
}

/** The number of configurations: the product of the options' numbers of values. */
export function configurationCount(options: readonly ConfigOption[]): number {
  return options.reduce((count, option) => count * optionValues(option).length, 1);
}

export function defaultValues(options: readonly ConfigOption[]): ConfigValues {
  return Object.fromEntries(options.map((option) => [option.key, option.default]));
}

/** What joins the options' parts of a segment: `quality=hd,silent=true`. */
export const SEGMENT_SEPARATOR = ',';

/**
 * The part of a segment each value of an option makes: `key=value`, the value written as
 * `valueNames` gives it. A segment is its options' parts in the order of `config`, joined by
 * SEGMENT_SEPARATOR; the configure page joins them the same way from these parts.
 */
export function segmentParts(option: ConfigOption): Map<ConfigValue, string> {
  return new Map([...valueNames(option)].map(([value, name]) => [value, `${option.key}=${name}`]));
}

/** Every configuration, the first option varying slowest. */
export function configurations(options: readonly ConfigOption[]): Configuration[] {
  let combinations: Record<string, ConfigValue>[] = [{}];
  for (const option of options) {
    combinations = combinations.flatMap((values) => optionValues(option).map((value) => ({ ...values, [option.key]: value })));
  }
  const parts = options.map(segmentParts);
  return combinations.map((values) => ({ segment: segmentOf(options, values, parts)!, values }));
}

/** The segment of the configuration with these values; undefined when they are not one of `options`' combinations. */
export function segmentOf(options: readonly ConfigOption[], values: ConfigValues, parts = options.map(segmentParts)): string | undefined {
  const segment: string[] = [];
  for (const [index, option] of options.entries()) {
    const part = parts[index]!.get(values[option.key]!);
    if (part === undefined) return undefined;
    segment.push(part);
  }
  return segment.join(SEGMENT_SEPARATOR);
}

/** The configuration of the options' defaults: the one the root serves, and the configure page shows first. */
export function defaultConfiguration(options: readonly ConfigOption[]): Configuration {
  const values = defaultValues(options);
  return { segment: segmentOf(options, values)!, values };
}

/**
 * The trees a configurable addon is written in: one per configuration, and the root's unless it
 * must be configured first (then the root is only a manifest).
 */
export function treeCount(options: readonly ConfigOption[], configurationRequired: boolean | undefined): number {
  return options.length === 0 ? 1 : configurationCount(options) + (configurationRequired ? 0 : 1);
}

/** The bytes of the longest segment: a folder name, which hosts and file systems limit. */
export function longestSegment(options: readonly ConfigOption[]): number {
  const longest = options.map((option) => Math.max(...[...segmentParts(option).values()].map((part) => Buffer.byteLength(part))));
  return longest.reduce((sum, bytes) => sum + bytes, Math.max(0, options.length - 1) * SEGMENT_SEPARATOR.length);
}

/**
 * How each value is written in segments. A select's option in lower case, accents dropped, every
 * run of other characters than `a-z 0-9 . _ -` a `-` (`4K HDR` -> `4k-hdr`): readable, the same on
 * case-insensitive file systems (macOS, Windows), and free of what a host or a checkout refuses. A
 * name that comes out empty or as another option's gets the option's position (`3`, `4k-hdr-3`).
 */
export function valueNames(option: ConfigOption): Map<ConfigValue, string> {
  if (option.type === 'checkbox')
    return new Map([
      [true, 'true'],
      [false, 'false'],
    ]);
  const names = new Map<ConfigValue, string>();
  const taken = new Set<string>();
  option.options.forEach((value, index) => {
    const slug = value
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '');
    let name = slug === '' ? String(index + 1) : slug;
    while (taken.has(name)) name = `${name}-${index + 1}`;
    taken.add(name);
    names.set(value, name);
  });
  return names;
}

/** Whether something with this `when` is part of the configuration with `values`. */
export function isIncluded(when: When | undefined, values: ConfigValues): boolean {
  if (when === undefined) return true;
  for (const [key, wanted] of Object.entries(when)) {
    const value = values[key]!;
    if (typeof wanted === 'object' ? !wanted.includes(value) : wanted !== value) return false;
  }
  return true;
}
