// The flags the commands share, and their parsers: a bad value is a usage error (exit 2).
import { HOSTS, isHost, type Host } from '../hosts/index.js';
import { UsageError } from '../diagnostics/index.js';
import { parseByteSize } from '../load/index.js';

/**
 * What `init` starts a project as: `catalog`, an addon that describes titles of its own in catalogs
 * (a film and a series); `streams`, one that adds streams to titles Cinemeta describes.
 */
export const INIT_KINDS = ['catalog', 'streams'] as const;
export type InitKind = (typeof INIT_KINDS)[number];

/** The API that Stremio's community catalog (and the SDK's publishToCentral) uses. */
export const CENTRAL_API = 'https://api.strem.io';

export interface BuildFlags {
  out?: string;
  baseUrl?: string;
  host: string;
  s3Dir?: string;
  maxFileSize?: string;
  quiet?: boolean;
  json?: boolean;
  allowCredentialsInOutput?: boolean;
  /** False with --no-reuse. */
  reuse: boolean;
}

export interface ServeFlags {
  port: string;
  host: string;
  baseUrl?: string;
  dir?: string;
  like: string;
  watch?: boolean;
  allowCredentialsInOutput?: boolean;
  maxFileSize?: string;
}

export interface ValidateFlags {
  baseUrl?: string;
  maxFileSize?: string;
  quiet?: boolean;
  json?: boolean;
  allowCredentialsInOutput?: boolean;
}

export const CREDENTIALS_FLAG = 'let streams send Authorization, Cookie or X-Api-Key headers (a warning, not an error): anyone can read them';

export const MAX_FILE_SIZE_FLAG = '--max-file-size <size>';
export const MAX_FILE_SIZE_HELP = 'refuse content files larger than this, unread: bytes, or with K, M or G (default: 16M)';

/** `--max-file-size 64M`: bytes, or with a suffix K, M or G (powers of 1024). */
export function parseMaxFileSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bytes = parseByteSize(value);
  if (bytes === undefined || bytes < 1) {
    throw new UsageError(`--max-file-size ${value}: expected a size in bytes, or with K, M or G (e.g. 64M)`);
  }
  return bytes;
}

/** `--host cloudflare,vercel` or `all`. */
export function parseHosts(value: string): Host[] {
  const names = value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  if (names.includes('all')) return [...HOSTS];
  const hosts = names.filter(isHost);
  if (hosts.length < names.length || names.length === 0) {
    throw new UsageError(`--host ${value}: expected ${HOSTS.join(', ')} or all, comma-separated`);
  }
  return hosts;
}
