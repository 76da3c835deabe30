// The check both kinds of rebuild must keep: a secret the environment gained since the last build
// is found in the unchanged content, the build fails, and the output stays as it was.
import { expect } from 'vitest';
import { build, type BuildResult } from '../../src/build/index.js';
import type { Environment } from '../../src/validate/secrets.js';
import { readTree } from './content.js';

/** Builds `dir` into `out` with `env`, expects `secret-in-output` and `out` untouched; the result. */
export async function expectSecretRefused(dir: string, out: string, env: Environment): Promise<BuildResult> {
  const before = await readTree(out);
  const found = await build({ contentDir: dir, outDir: out, env });
  expect(found.ok, JSON.stringify(env)).toBe(false);
  expect(
    found.diagnostics.map((d) => d.code),
    JSON.stringify(env),
  ).toContain('secret-in-output');
  expect(await readTree(out)).toEqual(before);
  return found;
}
