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

/**
 * Every configuration, the first option varying slowest. Its segment is `key=value` per option,
 * joined by `,` (`quality=hd,silent=true`): values are written as `valueNames` gives them.
 */
export function configurations(options: readonly ConfigOption[]): Configuration[] {
  const names = new Map(options.map((option) => [option.key, valueNames(option)]));
  let combinations: Record<string, ConfigValue>[] = [{}];
  for (const option of options) {
    combinations = combinations.flatMap((values) => optionValues(option).map((value) => ({ ...values, [option.key]: value })));
  }
  return combinations.map((values) => ({
    segment: options.map((option) => `${option.key}=${names.get(option.key)!.get(values[option.key]!)!}`).join(','),
    values,
  }));
}

/** The configuration with these values; undefined when they are not one of `options`' combinations. */
export function segmentOf(options: readonly ConfigOption[], values: ConfigValues): string | undefined {
  const parts: string[] = [];
  for (const option of options) {
    const name = valueNames(option).get(values[option.key]!);
    if (name === undefined) return undefined;
    parts.push(`${option.key}=${name}`);
  }
  return parts.join(',');
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
