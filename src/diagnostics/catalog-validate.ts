// The catalog's words for the codes of validate that compare values: ids, catalogs, genres,
// types, the base URL, and what would be published.
import type { CatalogEntry } from './catalog.js';
import type { Severity } from './codes.js';

const error: Severity = 'error';
const warning: Severity = 'warning';
export const didYouMean = (suggestion: string) => `did you mean "${suggestion}"?`;

/** secret-in-output: a guarded value in --base-url, in a local file, in a value or key, or a reference to a guarded variable. */
export type SecretParams =
  | { kind: 'base-url'; name: string }
  | { kind: 'file'; name: string; publishedAs: string }
  | { kind: 'value'; name: string; what: string; encoded: boolean }
  | { kind: 'reference'; name: string };

function secretMessage(p: SecretParams): string {
  switch (p.kind) {
    case 'base-url':
      return `--base-url holds the value of ${p.name}, a secret: every page and local file URL would publish it`;
    case 'file':
      return `this file holds the value of ${p.name}, a secret, and would be published as ${p.publishedAs}`;
    case 'value': {
      const how = p.encoded ? ', written encoded (percent-encoding or escapes, read as a client reads them)' : '';
      return `${p.what} holds the value of ${p.name}, a secret${how}: everything addon-gen writes is public`;
    }
    case 'reference':
      return `this value would publish \${${p.name}}, a secret: everything addon-gen writes is public`;
  }
}

function secretHint(p: SecretParams): string {
  const publish = `if ${p.name} is meant to be public, list it under \`publish:\` in addon.yaml`;
  switch (p.kind) {
    case 'base-url':
      return `give the public address without credentials; ${publish}`;
    case 'file':
      return `remove it from the file; ${publish}`;
    default:
      return `keep secrets out of static output (a URL that needs a token is readable by anyone); ${publish}`;
  }
}

export const VALIDATE_MESSAGES = {
  'duplicate-id': {
    severity: error,
    message: (p: { id: string }) => `item id "${p.id}" is also the id of another item`,
    hint: () => 'ids are global in Stremio: give each item its own id',
  },
  'duplicate-video-id': {
    severity: error,
    message: (p: { id: string; first: number }) => `video id "${p.id}" is also the id of videos[${p.first}]`,
    hint: () => 'give each video its own id, or its own season and episode',
  },
  'duplicate-catalog': {
    severity: error,
    message: (p: { type: string; id: string }) => `a ${p.type} catalog with id "${p.id}" is already declared`,
    hint: () => 'the client merges catalogs with the same type and id: give each its own id',
  },
  'unknown-default-video': {
    severity: error,
    message: (p: { id: string; suggestion: string | undefined; hasVideos: boolean }) => `"${p.id}" is not the id of a video of this item`,
    hint: (p: { suggestion: string | undefined; hasVideos: boolean }) =>
      p.suggestion
        ? didYouMean(p.suggestion)
        : p.hasVideos
          ? "name one of the item's video ids (by default {itemId}:{season}:{episode})"
          : "an item without videos plays its own streams: name the item's own id, or remove defaultVideoId",
  },
  'unknown-genre': {
    severity: warning,
    message: (p: { catalog: string; genre: string; suggestion: string | undefined }) =>
      `catalog "${p.catalog}" does not offer the genre "${p.genre}": its genre filter will not show this item under it`,
    hint: (p: { catalog: string; genre: string; suggestion: string | undefined }) =>
      p.suggestion
        ? didYouMean(p.suggestion)
        : `add "${p.genre}" to the genres of catalog "${p.catalog}" in addon.yaml, or write \`genres: auto\` there`,
  },
  'unknown-type': {
    severity: warning,
    message: (p: { type: string; suggestion: string; listedBy: string | undefined; elsewhere: boolean }) =>
      p.elsewhere
        ? `the client asks for streams with the type the describing addon gives the title, and "${p.type}" is none it knows`
        : `no catalog lists items of type "${p.type}", so this item is in none`,
    hint: (p: { suggestion: string; listedBy: string | undefined; elsewhere: boolean }) =>
      p.elsewhere
        ? `${didYouMean(p.suggestion)} Cinemeta's titles are movie or series`
        : `${didYouMean(p.suggestion)} ${p.listedBy === undefined ? 'A' : `Catalog "${p.listedBy}" lists ${p.suggestion} items; a`} type of your own needs a catalog of that type`,
  },
  'unknown-catalog': {
    severity: error,
    message: (p: { id: string; type: string; otherType: string | undefined; suggestion: string | undefined }) =>
      p.otherType ? `catalog "${p.id}" lists ${p.otherType} items, and this item is a ${p.type}` : `no catalog in addon.yaml has the id "${p.id}"`,
    hint: (p: { id: string; type: string; suggestion: string | undefined }) =>
      p.suggestion ? didYouMean(p.suggestion) : `declare a ${p.type} catalog with id "${p.id}" under \`catalogs\` in addon.yaml, or remove it here`,
  },
  'uncovered-type': {
    severity: warning,
    message: (p: { type: string; ids: readonly string[]; covered: boolean }) => {
      const n = p.ids.length;
      const examples = `${p.ids.slice(0, 3).join(', ')}${n > 3 ? ', …' : ''}`;
      return `${n} ${p.type} item${n === 1 ? ' is' : 's are'} in no catalog${p.covered ? '' : ` (no catalog has type "${p.type}")`}: ${examples}`;
    },
    hint: (p: { type: string; covered: boolean }) =>
      p.covered
        ? 'name a catalog in their `catalogs` field, or set `items: all` on a catalog of their type'
        : `add a catalog with \`type: ${p.type}\` to addon.yaml; until then these items can only be opened by id`,
  },
  'insecure-base-url': {
    severity: warning,
    message: (p: { baseUrl: string; inSettings: boolean; localName: string | undefined }) =>
      `the base URL ${p.baseUrl} is not https: Stremio installs remote addons only over HTTPS (plain HTTP only from 127.0.0.1)`,
    hint: (p: { inSettings: boolean; localName: string | undefined }) =>
      p.localName
        ? `on this machine, write 127.0.0.1 instead of ${p.localName} in ${p.inSettings ? 'baseUrl' : '--base-url'}: the apps take plain HTTP from no other name`
        : `publish where the addon is served over HTTPS, and give that address as ${p.inSettings ? 'baseUrl in addon.yaml' : '--base-url'} (https://…/)`,
  },
  'credentials-in-output': {
    message: (p: { header: string; allowed: boolean }) =>
      `the ${p.header} header of this stream is published: anyone who reads the addon's files can use it`,
    hint: (p: { allowed: boolean }) =>
      p.allowed
        ? 'allowed by --allow-credentials-in-output'
        : 'use a URL that needs no credentials; if these are meant to be public, build with --allow-credentials-in-output',
  },
  'secret-in-output': { severity: error, message: secretMessage, hint: secretHint },
  'unset-variable': {
    severity: error,
    message: (p: { name: string }) => `this value uses \${${p.name}}, and ${p.name} is not set`,
    hint: (p: { name: string }) => `set ${p.name} in the environment of the build (in CI: the job's env:), or remove the reference`,
  },
} satisfies Record<string, CatalogEntry>;
