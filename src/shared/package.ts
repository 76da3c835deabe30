// addon-gen's own package: where its files are (templates/, package.json) and what package.json
// says. The one place that knows the layout of the installed package.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** The package's root folder, from src/shared/ (or lib/shared/ once compiled). */
export const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** A file of the package's templates/ folder: `templateUrl('init/')`, `templateUrl('index.html')`. */
export function templateUrl(name: string): URL {
  return new URL(`templates/${name}`, PACKAGE_ROOT);
}

/** The page templates of templates/ that a build renders. */
export const PAGE_TEMPLATES = ['index.html', 'configure.html', '404.html', 'head.html', 'style.css', 'links.js'] as const;

const PackageJson = z.object({
  version: z.string(),
  repository: z.union([z.string(), z.object({ url: z.string().optional() })]).optional(),
});

let read: z.infer<typeof PackageJson> | undefined;

/** addon-gen's version, and its GitHub repository as `owner/name` when package.json names one. */
export function packageInfo(): { version: string; repository?: string } {
  read ??= PackageJson.parse(JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')));
  const url = typeof read.repository === 'string' ? read.repository : read.repository?.url;
  const github = url?.match(/^(?:github:|(?:git\+)?https:\/\/github\.com\/)([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/);
  return { version: read.version, ...(github?.[1] !== undefined && { repository: github[1] }) };
}
