// Checks every output file the way the client reads it, independently of the code that wrote it:
// by hand, and with the protocol's response schemas (src/validate/schema.ts). The plan builds
// bodies field by field, for speed and key order, so the schemas are where they are checked whole.
import type { ZodType } from 'zod';
import { AddonsResponse, CatalogResponse, Manifest, MetaResponse, StreamResponse, SubtitlesResponse } from '../../src/validate/schema.js';

const RESOURCE_FIELDS = ['metas', 'metasDetailed', 'meta', 'streams', 'subtitles', 'addons'];
const URL_FIELDS = new Set(['poster', 'background', 'logo', 'url', 'thumbnail', 'externalUrl', 'playerFrameUrl', 'androidTvUrl']);

/** The schema of each resource's bodies, by the first segment of their paths. */
const RESPONSES: Record<string, ZodType> = {
  catalog: CatalogResponse,
  meta: MetaResponse,
  stream: StreamResponse,
  subtitles: SubtitlesResponse,
  addon_catalog: AddonsResponse,
};

/** The schema a file's body must match: the manifest's, or the response's of its resource. */
function schemaOf(filePath: string): ZodType | undefined {
  return filePath === 'manifest.json' ? Manifest : RESPONSES[filePath.split('/')[0] ?? ''];
}

/** Problems with one JSON output file; an empty list when the client would accept it whole. */
export function envelopeProblems(filePath: string, text: string): string[] {
  const problems: string[] = [];
  if (text.charCodeAt(0) === 0xfeff) problems.push('starts with a BOM');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return [`does not parse: ${error instanceof Error ? error.message : String(error)}`];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['is not a JSON object'];
  const parsed = schemaOf(filePath)?.safeParse(body);
  if (parsed && !parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.') || '(body)'} does not match the schema: ${issue.message}`);
  }
  if (filePath !== 'manifest.json') {
    const fields = Object.keys(body).filter((k) => RESOURCE_FIELDS.includes(k));
    if (fields.length !== 1) problems.push(`has ${fields.length} resource fields (${fields.join(', ')})`);
  }
  walk(body, '', (value, at, key) => {
    if (value === null) problems.push(`${at} is null`);
    if (key && URL_FIELDS.has(key) && typeof value === 'string' && !/^[a-z][a-z0-9+.-]+:/i.test(value)) {
      problems.push(`${at} is not an absolute URL: ${value}`);
    }
    if (key === 'infoHash' && (typeof value !== 'string' || !/^[0-9a-f]{40}$/i.test(value))) problems.push(`${at} is not 40 hex digits`);
    if (key === 'released' && (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value))) {
      problems.push(`${at} is not an RFC 3339 date-time`);
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if ('title' in value && 'name' in value && at.includes('videos')) problems.push(`${at} has both title and name`);
      if ('title' in value && 'description' in value) problems.push(`${at} has both title and description`);
      if ('stream' in value && 'streams' in value) problems.push(`${at} has both stream and streams`);
    }
  });
  return problems;
}

function walk(value: unknown, at: string, visit: (value: unknown, at: string, key?: string) => void, key?: string) {
  visit(value, at, key);
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`, visit, undefined));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) walk(v, at ? `${at}.${k}` : k, visit, k);
  }
}

/** The file a static host serves for a request path: each segment percent-decoded. */
export function hostFileFor(requestPath: string): string {
  return requestPath
    .replace(/^\//, '')
    .split('/')
    .map((segment) => decodeURIComponent(segment))
    .join('/');
}

/** The request path the client makes (stremio-core encodes like encodeURIComponent). */
export function clientRequest(resource: string, type: string, id: string, extras: [string, string][] = []): string {
  const base = `/${[resource, type, id].map(encodeURIComponent).join('/')}`;
  if (extras.length === 0) return `${base}.json`;
  return `${base}/${extras.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}.json`;
}
