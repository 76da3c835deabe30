// Addon collections (`addonCatalogs` in addon.yaml): the schema of one, and the checks across
// the list (an addon listed twice, two collections of one type and id). Reading the manifests of
// the listed addons is a side effect, done after validate (load/addon-manifests.ts).
import path from 'node:path';
import { z } from 'zod';
import { formatPath, problem, type DiagnosticList } from '../diagnostics/index.js';
import type { AddonCatalog, FieldPlace, ListedAddon } from '../shared/content.js';
import { installsOverPlainHttp } from '../shared/paths.js';
import type { Locator } from './issues.js';
import { codedIssue, fileName } from './schema-leaves.js';

/**
 * Why the client would not install from `value`, or undefined when it would: an http(s) URL
 * whose path ends in `/manifest.json` (the client cuts that off to find the addon's files), and
 * plain http only from this machine, and no user name or password.
 */
export function manifestUrlProblem(value: string): 'not-manifest-url' | 'insecure' | 'credentials' | undefined {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return 'not-manifest-url';
  const url = new URL(value);
  // Published as it is: a password in it would be public.
  if (url.username !== '' || url.password !== '') return 'credentials';
  if (!url.pathname.endsWith('/manifest.json') || url.hash !== '') return 'not-manifest-url';
  if (url.protocol === 'http:' && !installsOverPlainHttp(url.hostname)) return 'insecure';
  return undefined;
}

const manifestUrl = z
  .string()
  .superRefine((url, ctx) => {
    const kind = manifestUrlProblem(url);
    if (kind) ctx.addIssue({ code: 'custom', ...codedIssue('invalid-addon-manifest', { kind, url }) });
  })
  .describe("The addon's install URL, https://…/manifest.json; its manifest is read when the addon is built");

/** One collection in addon.yaml. */
export const addonCatalogSchema = z
  .strictObject({
    id: fileName.describe('Unique with its type; becomes part of a file name'),
    type: fileName.default('all').describe("The type the Addons screen files it under; default all, as Cinemeta's collections"),
    name: z.string().min(1).describe('The title of the list on the Addons screen'),
    addons: z
      .array(
        z.union([
          manifestUrl,
          z
            .strictObject({
              url: manifestUrl,
              manifest: z
                .string()
                .min(1)
                .describe('A JSON file (relative to addon.yaml) that holds the manifest, read instead of the URL: a build that needs no network'),
            })
            .describe('An addon whose manifest is read from a file'),
        ]),
      )
      .min(1)
      .describe('The addons it lists, in order: manifest URLs, or { url, manifest: file }'),
  })
  .describe('An addon collection: a list of other addons on the Addons screen');

export type AddonCatalogSettings = z.output<typeof addonCatalogSchema>;

/**
 * The collections of addon.yaml with each listed addon's place, checked across the list; the
 * manifest files are resolved against addon.yaml's folder (`addonFile` is its absolute path).
 */
export function resolveAddonCatalogs(
  settings: readonly AddonCatalogSettings[],
  at: Locator,
  addonFile: string,
  diagnostics: DiagnosticList,
): AddonCatalog[] {
  const place = (nodePath: (string | number)[]): FieldPlace => ({ ...at(nodePath), path: formatPath(nodePath) });
  const declared = new Map<string, number>();
  const collections: AddonCatalog[] = [];
  settings.forEach((collection, index) => {
    const key = `${collection.type}\0${collection.id}`;
    const first = declared.get(key);
    if (first !== undefined) {
      const related = [{ ...at(['addonCatalogs', first, 'id']), message: 'declared first here' }];
      const { type, id } = collection;
      diagnostics.push(problem('duplicate-addon', { kind: 'collection', type, id }, { ...place(['addonCatalogs', index, 'id']), related }));
      return;
    }
    declared.set(key, index);
    const listed = new Map<string, FieldPlace>();
    const addons: ListedAddon[] = [];
    collection.addons.forEach((entry, n) => {
      const entryPath = ['addonCatalogs', index, 'addons', n];
      const url = typeof entry === 'string' ? entry : entry.url;
      const urlAt = place(typeof entry === 'string' ? entryPath : [...entryPath, 'url']);
      // Compared as the client compares transport URLs: parsed, so that `HTTPS://X/` is `https://x/`.
      const same = new URL(url).href;
      const earlier = listed.get(same);
      if (earlier) {
        const related = [{ file: earlier.file, line: earlier.line, column: earlier.column, message: 'listed first here' }];
        diagnostics.push(problem('duplicate-addon', { kind: 'addon', url, collection: collection.id }, { ...urlAt, related }));
        return;
      }
      listed.set(same, urlAt);
      const file =
        typeof entry === 'string'
          ? undefined
          : { absolute: path.resolve(path.dirname(addonFile), entry.manifest), written: entry.manifest, at: place([...entryPath, 'manifest']) };
      addons.push({ transportUrl: url, at: urlAt, ...(file && { file }) });
    });
    collections.push({ id: collection.id, type: collection.type, name: collection.name, addons });
  });
  return collections;
}
