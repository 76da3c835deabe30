// Part of stage 2, validate: `${NAME}` in values, and the guard that keeps secrets out of the
// output. Everything addon-gen writes is public, so a value that would publish a secret is an
// error at the field that holds it, before anything is written.
import type { Locator } from './_issues.js';
import { formatPath, type Diagnostic, type DiagnosticList } from './diagnostics.js';

/** Names that look like they hold a secret, case-insensitively (`GITHUB_TOKEN`, `tmdb_api_key`). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|AUTH/i;
/** Shorter values (`AUTH=1`) would match ordinary text everywhere; they are not looked for. */
export const MIN_SECRET_LENGTH = 8;
/** `${NAME}`, or `$${…}` for a literal `${…}`. */
const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Environment = Readonly<Record<string, string | undefined>>;

/** What addon.yaml says about variables: `secrets` to guard as well, `publish` to allow. */
export interface SecretPolicy {
  secrets: ReadonlySet<string>;
  publish: ReadonlySet<string>;
  /** Values of the guarded variables that are set, with their names. */
  values: ReadonlyMap<string, string>;
}

export function secretPolicy(env: Environment, secrets: readonly string[] = [], publish: readonly string[] = []): SecretPolicy {
  const policy = { secrets: new Set(secrets), publish: new Set(publish), values: new Map<string, string>() };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && isGuarded(policy, name)) policy.values.set(value, name);
  }
  return policy;
}

function isGuarded(policy: Omit<SecretPolicy, 'values'>, name: string): boolean {
  return !policy.publish.has(name) && (policy.secrets.has(name) || SECRET_NAME.test(name));
}

/**
 * `text` with every `${NAME}` that is set replaced, as a whole: to look for guarded values in a
 * file without parsing it. It finds what expandVariables finds in the file's values, and more
 * (comments, a value split over two lines); like `needsWalk`, not a value spelled with YAML
 * escapes (`\x41`), which nobody writes by mistake.
 */
export function expandText(text: string, env: Environment): string {
  if (!text.includes('${')) return text;
  return text.replace(REFERENCE, (whole, literal: string, name: string) => (literal ? whole.slice(1) : (env[name] ?? whole)));
}

/** Whether `text` may hold a reference or a guarded value: files without either are not walked. */
export function needsWalk(text: string, policy: SecretPolicy): boolean {
  if (text.includes('${')) return true;
  for (const value of policy.values.keys()) if (text.includes(value)) return true;
  return false;
}

/**
 * Replaces `${NAME}` in every string below `value` (in place) and reports, at the field: a
 * variable that is not set, a reference to a guarded variable, and a guarded value that a
 * string holds whichever way it got there. `skip` names top-level keys left as they are.
 * Returns the paths (as diagnostics show them) of the values it reported: other checks of those
 * values would only repeat the problem. `used` collects the variables it replaced, with their values.
 */
export function expandVariables(
  value: unknown,
  env: Environment,
  policy: SecretPolicy,
  at: Locator,
  diagnostics: DiagnosticList,
  skip: readonly string[] = [],
  used?: Map<string, string>,
): Set<string> {
  const report = (path: (string | number)[], code: Diagnostic['code'], message: string, hint: string) =>
    diagnostics.add(at.file, 'error', () => ({ code, severity: 'error', ...at(path), path: formatPath(path), message, hint }));

  const failed = new Set<string>();
  const expand = (text: string, path: (string | number)[]): string => {
    const fail = (code: Diagnostic['code'], message: string, hint: string) => {
      failed.add(formatPath(path));
      report(path, code, message, hint);
    };
    const expanded = !text.includes('${')
      ? text
      : text.replace(REFERENCE, (whole, literal: string, name: string) => {
          if (literal) return whole.slice(1);
          if (!VARIABLE_NAME.test(name)) {
            fail('invalid-value', `"\${${name}}" is not a variable name`, 'names are letters, digits and _; write $${…} for a literal ${…}');
            return whole;
          }
          const variable = env[name];
          if (variable === undefined) {
            fail('unset-variable', `this value uses \${${name}}, and ${name} is not set`, `set ${name} in the environment of the build (in CI: the job's env:), or remove the reference`);
            return whole;
          }
          if (isGuarded(policy, name)) {
            fail('secret-in-output', `this value would publish \${${name}}, a secret: everything addon-gen writes is public`, secretHint(name));
            return whole;
          }
          used?.set(name, variable);
          return variable;
        });
    for (const [secret, name] of policy.values) {
      if (expanded.includes(secret)) {
        fail('secret-in-output', `this value holds the value of ${name}, a secret: everything addon-gen writes is public`, secretHint(name));
      }
    }
    return expanded;
  };

  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return expand(node, path);
    if (Array.isArray(node)) {
      node.forEach((element, index) => (node[index] = walk(element, [...path, index])));
    } else if (node !== null && typeof node === 'object') {
      const object = node as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        if (path.length === 0 && skip.includes(key)) continue;
        object[key] = walk(object[key], [...path, key]);
      }
    }
    return node;
  };
  walk(value, []);
  return failed;
}

function secretHint(name: string): string {
  return `keep secrets out of static output (a URL that needs a token is readable by anyone); if ${name} is meant to be public, list it under \`publish:\` in addon.yaml`;
}

/** `secrets` and `publish` from unchecked settings (the schema reports wrong shapes). */
export function policyLists(settings: unknown): { secrets: string[]; publish: string[] } {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const object = (settings ?? {}) as { secrets?: unknown; publish?: unknown };
  return { secrets: list(object.secrets), publish: list(object.publish) };
}
