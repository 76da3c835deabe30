// The catalog's words for addon collections (`addonCatalogs` in addon.yaml): the addons a
// collection lists, whose manifests the build reads from a file or over HTTP(S).
import type { Severity } from './codes.js';

const error: Severity = 'error';

/** addon-unreadable: why a listed addon's manifest could not be read. */
export type AddonUnreadable =
  | { kind: 'status'; url: string; status: number }
  | { kind: 'timeout'; url: string; seconds: number }
  | { kind: 'network'; url: string; reason: string }
  | { kind: 'too-large'; url: string; limit: number }
  | { kind: 'not-json'; url: string; reason: string; file?: string }
  | { kind: 'file'; file: string; reason: string };

/** invalid-addon-manifest: a listed addon that the client would not accept. */
export type InvalidAddonManifest =
  | { kind: 'field'; url: string; field: string; problem: string; file?: string }
  | { kind: 'not-manifest-url'; url: string }
  | { kind: 'insecure'; url: string }
  | { kind: 'credentials'; url: string }
  | { kind: 'preview-too-large'; url: string; bytes: number; limit: number };

/** duplicate-addon: an addon listed twice in a collection, or two collections of one type and id. */
export type DuplicateAddon = { kind: 'addon'; url: string; collection: string } | { kind: 'collection'; type: string; id: string };

function unreadable(p: AddonUnreadable): string {
  switch (p.kind) {
    case 'status':
      return `the manifest of ${p.url} cannot be read: the server answered HTTP ${p.status}`;
    case 'timeout':
      return `the manifest of ${p.url} cannot be read: no answer within ${p.seconds} s`;
    case 'network':
      return `the manifest of ${p.url} cannot be read: ${p.reason}`;
    case 'too-large':
      return `the manifest of ${p.url} cannot be read: it is over ${p.limit / 1024} KiB, far more than a manifest`;
    case 'not-json':
      return `the manifest of ${p.url}${p.file === undefined ? '' : ` (read from ${p.file})`} is not JSON: ${p.reason}`;
    case 'file':
      return `the manifest file ${p.file} cannot be read: ${p.reason}`;
  }
}

function unreadableHint(p: AddonUnreadable): string {
  switch (p.kind) {
    case 'status':
    case 'timeout':
    case 'network':
      return 'check the URL in a browser; the build reads every listed manifest, so a server that is down stops it (give `manifest: <file>` to read a copy instead)';
    case 'too-large':
      return "list the URL of the addon's manifest.json (what Stremio installs), not of a page about it";
    case 'not-json':
      return p.file === undefined
        ? "list the URL of the addon's manifest.json (what Stremio installs), not of a page about it"
        : 'save the JSON the manifest URL answers into that file, as it is';
    case 'file':
      return 'give the path of a JSON file inside the content folder, relative to addon.yaml (manifest: addons/cinemeta.json)';
  }
}

export const COLLECTION_MESSAGES = {
  'addon-unreadable': { severity: error, message: unreadable, hint: unreadableHint },
  'invalid-addon-manifest': {
    severity: error,
    message: (p: InvalidAddonManifest) => {
      switch (p.kind) {
        case 'field':
          return `${p.url}${p.file === undefined ? '' : ` (read from ${p.file})`} is not a manifest Stremio accepts: ${p.field} ${p.problem}`;
        case 'not-manifest-url':
          return `"${p.url}" is not an addon's manifest URL: Stremio installs addons from http(s) URLs that end in /manifest.json`;
        case 'insecure':
          return `"${p.url}" is plain http:// and not on 127.0.0.1: Stremio installs other addons only over https://`;
        case 'credentials':
          return 'the URL holds a user name or password, which the collection would publish to everyone';
        case 'preview-too-large':
          return `what a collection publishes of ${p.url} (its name, description, logo, types, resources, …) is ${p.bytes} bytes, over the ${p.limit} an entry may take`;
      }
    },
    hint: (p: InvalidAddonManifest) => {
      switch (p.kind) {
        case 'field':
          return 'list an addon whose manifest has id, a semantic version, name, types and resources, as Stremio needs to show and install it';
        case 'not-manifest-url':
          return 'copy the install URL of the addon (https://…/manifest.json); a stremio:// link is the same URL with https://';
        case 'insecure':
          return 'use the https:// URL of the addon (plain http:// works only from 127.0.0.1, not localhost)';
        case 'credentials':
          return 'list the addon by a URL without user:password@';
        case 'preview-too-large':
          return 'a manifest is a few KB; for a copy read with manifest:, shorten its description';
      }
    },
  },
  'duplicate-addon': {
    severity: error,
    message: (p: DuplicateAddon) =>
      p.kind === 'addon'
        ? `${p.url} is listed twice in collection "${p.collection}"`
        : `an addon collection of type "${p.type}" with id "${p.id}" is already declared`,
    hint: (p: DuplicateAddon) =>
      p.kind === 'addon'
        ? 'list each addon once: Stremio would show it twice'
        : 'the client merges collections with the same type and id: give each its own id',
  },
} as const;
