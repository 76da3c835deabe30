// Facts about places that several stages check: whether a path lies inside a folder, and whether
// a `--base-url` can be one.
import path from 'node:path';
import { UsageError } from '../diagnostics/index.js';
import { normalizeBaseUrl } from './paths.js';

/**
 * Whether the absolute path `child` lies below the folder `parent`, by whole names (`/a/bc` is not
 * below `/a/b`); with `orSame`, also when it is the folder itself.
 */
export function isWithin(parent: string, child: string, { orSame = false } = {}): boolean {
  if (child === parent) return orSame;
  return child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

/**
 * A `--base-url` as given, normalized to end in `/`; a usage error when it cannot be a base URL.
 * The schemas are loaded only when one is given: a rebuild that reads no content file does without.
 */
export async function baseUrlOption(baseUrl: string | undefined): Promise<string | undefined> {
  if (baseUrl === undefined) return undefined;
  const { baseUrlProblem, BASE_URL_CREDENTIALS, BASE_URL_FORM } = await import('../validate/schema.js');
  const problem = baseUrlProblem(baseUrl);
  if (problem === BASE_URL_FORM) {
    throw new UsageError(`--base-url ${baseUrl} is not an http(s) URL without query or fragment (e.g. https://user.github.io/repo/)`);
  }
  // Not printed back: a CI log may be public.
  if (problem === BASE_URL_CREDENTIALS) throw new UsageError(`--base-url: ${problem}`);
  if (problem !== undefined) throw new UsageError(`--base-url ${baseUrl}: ${problem}`);
  return normalizeBaseUrl(baseUrl);
}

/**
 * A name beside the output folder `outDir`, hidden, for what the build keeps of it where no host
 * publishes it: `.dist${suffix}` for `dist`.
 */
export function besideOutput(outDir: string, suffix: string): string {
  const root = path.resolve(outDir);
  return path.join(path.dirname(root), `.${path.basename(root)}${suffix}`);
}
