// The catalog's words for the codes of configurable addons: `config` in addon.yaml, the number of
// configurations it makes, and `when` on catalogs, items, streams and subtitles.
import type { Severity } from './codes.js';
import { didYouMean } from './catalog-validate.js';

const error: Severity = 'error';
const warning: Severity = 'warning';

/** invalid-config: a `config` option or a behaviorHint that cannot work as written. */
export type InvalidConfig =
  | { kind: 'key-twice'; key: string }
  | { kind: 'select-without-options'; key: string }
  | { kind: 'option-twice'; key: string; value: string }
  | { kind: 'checkbox-options'; key: string }
  | { kind: 'default-not-an-option'; key: string; value: string; options: readonly string[] }
  | { kind: 'checkbox-default'; key: string; value: string }
  | { kind: 'not-configurable' }
  | { kind: 'required-without-config' }
  | { kind: 'segment-too-long'; bytes: number; limit: number };

function invalidConfig(p: InvalidConfig): string {
  switch (p.kind) {
    case 'key-twice':
      return `config key "${p.key}" is declared twice (keys are compared without letter case)`;
    case 'select-without-options':
      return `select "${p.key}" has no options`;
    case 'option-twice':
      return `select "${p.key}" lists "${p.value}" twice`;
    case 'checkbox-options':
      return `checkbox "${p.key}" takes no options: it is true or false`;
    case 'default-not-an-option':
      return `the default of "${p.key}", "${p.value}", is not one of its options (${p.options.join(', ')})`;
    case 'checkbox-default':
      return `the default of checkbox "${p.key}" is ${p.value}, not true or false`;
    case 'not-configurable':
      return 'behaviorHints.configurable is false, but addon.yaml declares config options';
    case 'required-without-config':
      return 'behaviorHints.configurationRequired is true, but addon.yaml declares no config options: nobody could install the addon';
    case 'segment-too-long':
      return `a configuration's folder name would be ${p.bytes} bytes long (key=value for every option), over the ${p.limit} a folder below the addon may take on every host and in a Windows checkout`;
  }
}

function invalidConfigHint(p: InvalidConfig): string {
  switch (p.kind) {
    case 'key-twice':
      return 'give each option its own key';
    case 'select-without-options':
      return 'list its values: options: [sd, hd]';
    case 'option-twice':
      return 'list each value once';
    case 'checkbox-options':
      return 'remove options, or make it a select';
    case 'default-not-an-option':
      return 'make the default one of the options, or leave it out for the first';
    case 'checkbox-default':
      return 'write default: true or default: false';
    case 'not-configurable':
      return 'remove configurable: false (config makes the addon configurable), or remove config';
    case 'required-without-config':
      return 'declare config options for the configure page, or set configurationRequired: false';
    case 'segment-too-long':
      return 'use shorter keys and values (quality, not streamQualityPreference), or fewer options';
  }
}

/** unknown-config: `when` names a key no option has, a value its option lacks, or there are no options. */
export type UnknownConfig =
  | { kind: 'key'; key: string; keys: readonly string[]; suggestion?: string }
  | { kind: 'value'; key: string; value: string; values: readonly string[]; suggestion?: string }
  | { kind: 'no-config'; key: string };

export const CONFIG_MESSAGES = {
  'config-not-prebuildable': {
    severity: error,
    message: (p: { key: string; type: string }) =>
      `config option "${p.key}" is a ${p.type}: a static addon is built before anyone types a value, and cannot receive one it did not build`,
    hint: (p: { type: string }) =>
      p.type === 'password'
        ? 'a password would also be public in every URL of the addon: offer a select of the choices instead, or run a server addon (the official SDK) for per-user secrets'
        : 'offer a select of the values people choose from (options: [720, 1080]) or a checkbox; each is pre-built',
  },
  'too-many-configurations': {
    severity: error,
    message: (p: { count: number; limit: number; key: string; values: number; tied?: number }) =>
      `config makes ${p.count.toLocaleString('en-US')} configurations, each a tree of its own, over the limit of ${p.limit}; ${
        p.tied === undefined ? `"${p.key}" multiplies them most (${p.values} values)` : `each of its ${p.tied} options multiplies them by ${p.values}`
      }`,
    hint: (p: { limit: number }) =>
      `drop options or values (the count is the product of each option's number of values), or raise maxConfigurations in addon.yaml above ${p.limit} if the output may grow that much`,
  },
  'invalid-config': { severity: error, message: invalidConfig, hint: invalidConfigHint },
  'removed-configurations': {
    severity: warning,
    message: (p: { count: number; examples: string }) =>
      `this build removed the folder${p.count === 1 ? '' : 's'} of ${p.count} configuration${p.count === 1 ? '' : 's'} that the last one wrote (${p.examples}): Stremio users who installed ${p.count === 1 ? 'it' : 'them'} get errors once this is published`,
    hint: () =>
      'a folder names every option and value: keep keys and values as they were, and add new values at the end of a select; if the change is meant, ask people to configure and install the addon again',
  },
  'unused-config': {
    severity: warning,
    message: (p: { key: string; trees: number }) =>
      `no when names config option "${p.key}": its configurations are the same as each other, and the ${p.trees} trees hold copies`,
    hint: () => 'add when to the catalogs, items, streams or subtitles it should change, or remove the option',
  },
  'unknown-config': {
    severity: error,
    message: (p: UnknownConfig) => {
      switch (p.kind) {
        case 'key':
          return `when names "${p.key}", which no config option has (options: ${p.keys.join(', ')})`;
        case 'value':
          return `when gives "${p.key}" the value ${p.value}, which it does not have (values: ${p.values.join(', ')})`;
        case 'no-config':
          return `when names "${p.key}", but addon.yaml declares no config options`;
      }
    },
    hint: (p: UnknownConfig) => {
      if (p.kind === 'no-config') return 'declare the option under config in addon.yaml, or remove when';
      return p.suggestion === undefined ? 'use a key and values that config declares' : didYouMean(p.suggestion);
    },
  },
} as const;
