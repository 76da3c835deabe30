// What a folder named on the command line is: a content folder (it holds addon.yaml), or a
// project folder as `init` makes it (its content/ holds addon.yaml), and where its output goes.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ADDON_FILE } from '../load/index.js';

/** Where a project (as `init` makes it) keeps its content, relative to the project folder: the build's default. */
export const INIT_CONTENT_DIR = 'content';

/** Where `addon-gen schema` and `init` put the content's JSON Schemas: beside the content folder, in the project root. */
export const SCHEMA_DIR = 'schema';

export interface Project {
  /** The content folder to build. */
  contentDir: string;
  /** The output folder when `--out` is not given: `dist` beside the content folder. */
  outDir: string;
  /** Set when `given` was a project folder, not its content folder. */
  projectDir?: string;
}

/**
 * `my-addon` (a project made by init) builds `my-addon/content` into `my-addon/dist`;
 * `my-addon/content` also writes `my-addon/dist`, beside the content, wherever the command runs.
 * A folder that is neither is taken as a content folder, whose missing addon.yaml is reported.
 */
export async function findProject(given: string): Promise<Project> {
  const isFile = (file: string) =>
    stat(file).then(
      (info) => info.isFile(),
      () => false,
    );
  if (!(await isFile(path.join(given, ADDON_FILE))) && (await isFile(path.join(given, INIT_CONTENT_DIR, ADDON_FILE)))) {
    return { contentDir: path.join(given, INIT_CONTENT_DIR), outDir: path.join(given, 'dist'), projectDir: given };
  }
  // Relative paths stay relative (`content` gives `dist`), so that messages show what was typed.
  return { contentDir: given, outDir: path.join(path.dirname(given), 'dist') };
}
