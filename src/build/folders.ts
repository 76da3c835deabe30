// Where a build reads and writes, checked before it starts: the content folder, and the output
// and S3 folders with every link on the way resolved, each refused where writing would harm.
import { lstat, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorCode, UsageError } from '../diagnostics/index.js';
import { baseUrlOption, isWithin } from '../shared/locations.js';
import { stagingDirOf } from '../write/index.js';
import type { BuildOptions } from './index.js';

/**
 * Checks the options, and returns where the output (and S3) folder really are: every link on the
 * way resolved. The build then writes only there, so that a link cannot lead it somewhere the
 * checks did not look.
 */
export async function checkOptions(
  options: Pick<BuildOptions, 'contentDir' | 'baseUrl' | 'outDir' | 's3Dir'>,
  s3: boolean,
): Promise<{ outDir?: string; s3Dir?: string }> {
  const info = await stat(options.contentDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`content folder ${options.contentDir} does not exist or is not a folder`);
  await baseUrlOption(options.baseUrl);
  if (options.outDir === undefined) return {};
  const content = await realpath(options.contentDir);
  const home = await realpath(os.homedir()).catch(() => path.resolve(os.homedir()));
  const outDir = await realLocation('--out', options.outDir);
  checkLocation('--out', options.outDir, outDir, { content, home });
  if (!s3) return { outDir };
  const given = options.s3Dir ?? defaultS3Dir(options.outDir);
  const s3Dir = await realLocation('--s3-dir', given);
  checkLocation('--s3-dir', given, s3Dir, { content, home, '--out': outDir, 'staging of --out': stagingDirOf(outDir) });
  return { outDir, s3Dir };
}

/** `dist-s3` for `dist`: beside the output folder, outside what hosts publish. */
function defaultS3Dir(outDir: string): string {
  return `${outDir.replace(/[\\/]+$/, '')}-s3`;
}

/**
 * The absolute path of a folder to write, with every symbolic link on the way resolved: the
 * folder itself when it exists, else its nearest existing parent with the rest appended.
 */
async function realLocation(flag: string, given: string): Promise<string> {
  const rest: string[] = [];
  for (let at = path.resolve(given); ; at = path.dirname(at)) {
    const info = await lstat(at).catch((error: unknown) => {
      const code = errorCode(error);
      // Not there, or below a file (which the next step up finds).
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new UsageError(`${flag} ${given}: ${at} cannot be read (${code || String(error)})`);
    });
    if (info) {
      const real = await realpath(at).catch(() => {
        throw new UsageError(`${flag} ${given}: ${at} is a symbolic link to a folder that does not exist; remove it or create its target`);
      });
      if (!(await stat(real)).isDirectory()) throw new UsageError(`${flag} ${given}: ${at} is a file, not a folder`);
      return path.join(real, ...rest.reverse());
    }
    if (at === path.dirname(at)) return path.resolve(given);
    rest.push(path.basename(at));
  }
}

/**
 * Refuses a folder that the build may not write into: the root, the home folder or a folder
 * that holds it, or one that is, holds or lies inside any of `others` (the content folder, the
 * output folder). The build removes files it wrote earlier and writes the host files
 * (index.html, vercel.json) at the top: never let it loose on a folder that holds more.
 */
function checkLocation(flag: string, given: string, real: string, others: Record<string, string>) {
  const refuse = (what: string) => {
    const example = flag === '--s3-dir' ? 'dist-s3, beside dist' : 'dist';
    throw new UsageError(
      `${flag} ${given}${real === path.resolve(given) ? '' : ` (${real})`} ${what}; choose a folder of its own, such as ${example}`,
    );
  };
  const inside = (child: string, parent: string) => isWithin(parent, child);
  const overlap = (a: string, b: string) => a === b || inside(a, b) || inside(b, a);
  if (real === path.parse(real).root) refuse('is the root folder');
  const { home, ...rest } = others;
  if (home !== undefined && real === home) refuse('is your home folder');
  if (home !== undefined && inside(home, real)) refuse('holds your home folder');
  // Where its new folders are made beside it, and removed whole: as much the build's as the folder.
  const staging = stagingDirOf(real);
  for (const [name, other] of Object.entries(rest)) {
    const what = name === 'content' ? 'the content folder' : `the ${name} folder`;
    if (overlap(real, other)) refuse(`overlaps ${what} ${other}`);
    if (overlap(staging, other)) refuse(`has its staging folder ${staging} where ${what} ${other} is`);
  }
}
