// addon-gen's own package: where its files are (templates/, package.json) and what package.json
// says. The one place that knows the layout of the installed package.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { PageTemplates } from '../plan/page.js';
import { fieldOf, isObject, isString } from './fields.js';

/** The package's root folder, from src/shared/ (or lib/shared/ once compiled). */
export const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** A file of the package's templates/ folder: `templateUrl('init/')`, `templateUrl('index.html')`. */
export function templateUrl(name: string): URL {
  return new URL(`templates/${name}`, PACKAGE_ROOT);
}

/** The page templates of templates/ that a build renders. */
export const PAGE_TEMPLATES = ['index.html', 'configure.html', '404.html', 'head.html', 'style.css', 'links.js'] as const;

/** The page templates, read. */
export async function readPageTemplates(): Promise<PageTemplates> {
  const [install, configure, notFound, head, style, links] = await Promise.all(PAGE_TEMPLATES.map((name) => readFile(templateUrl(name), 'utf8')));
  return {
    install: install!,
    configure: configure!,
    notFound: notFound!,
    partials: { 'head.html': head!, 'style.css': style!, 'links.js': links! },
  };
}

/** What addon-gen reads of its own package.json. */
interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  repository?: string | { url?: string };
}

function isPackageJson(value: unknown): value is PackageJson {
  if (!isObject(value) || !isString(value.version)) return false;
  const { dependencies, repository } = value;
  return (
    (dependencies === undefined || (isObject(dependencies) && Object.values(dependencies).every(isString))) &&
    (repository === undefined || isString(repository) || (isObject(repository) && (repository.url === undefined || isString(repository.url))))
  );
}

let read: PackageJson | undefined;

function packageJson(): PackageJson {
  if (read) return read;
  const file = new URL('package.json', PACKAGE_ROOT);
  const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
  // The package as published: only a broken install gets here.
  if (!isPackageJson(json))
    throw new Error(`${file.pathname} is not addon-gen's package.json: no version, or dependencies or repository of another shape`);
  return (read = json);
}

/** addon-gen's version, and its GitHub repository as `owner/name` when package.json names one. */
export function packageInfo(): { version: string; repository?: string } {
  const { repository, version } = packageJson();
  const url = typeof repository === 'string' ? repository : repository?.url;
  const github = url?.match(/^(?:github:|(?:git\+)?https:\/\/github\.com\/)([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/);
  return { version, ...(github?.[1] !== undefined && { repository: github[1] }) };
}

/**
 * Each dependency with the version installed, found as Node finds a bare name: in the nearest
 * `node_modules` above the package that holds it. What they parse and check is part of what a
 * build's bookkeeping depends on, as addon-gen's own code is.
 */
export function dependencyVersions(): string[] {
  return Object.keys(packageJson().dependencies ?? {})
    .sort()
    .map((name) => {
      for (let dir = new URL('./', PACKAGE_ROOT); ; dir = new URL('../', dir)) {
        const file = new URL(`node_modules/${name}/package.json`, dir);
        if (existsSync(file)) {
          const installed: unknown = JSON.parse(readFileSync(file, 'utf8'));
          return `${name}@${String(fieldOf(installed, 'version'))}`;
        }
        if (new URL('../', dir).href === dir.href) return `${name}@?`;
      }
    });
}
