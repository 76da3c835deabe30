// Subtitles: which requests for them a file can answer, and which subtitles no file can deliver.
import { problem, type Diagnostic } from '../diagnostics/index.js';
import { hasRewrites, type Host } from '../hosts/index.js';
import { prefixMatcher } from '../shared/id-prefixes.js';
import { extrasName, subtitlesRequestExtras, type Extra } from '../shared/paths.js';
import { fileNameProblem, type Manifest } from '../validate/schema.js';
import { streamOwners, type Content, type FileOrigin, type StreamOwner } from '../shared/content.js';

/**
 * Subtitles reach the player in two ways: embedded in each stream, and through the subtitles
 * resource. On a host without rewrites the resource answers only requests without extras or with
 * a stream's own hints, and the desktop apps add the video's hash and size: subtitles of a video
 * with no stream of this addon to carry them would never show there.
 */
export function subtitlesWithoutStreams(content: Content, hosts: readonly Host[]): Diagnostic[] {
  const strict = hosts.filter((host) => !hasRewrites(host));
  if (strict.length === 0) return [];
  let count = 0;
  let first: { origin: FileOrigin; path: (string | number)[] } | undefined;
  const check = (origin: FileOrigin, owner: StreamOwner, path: (string | number)[]) => {
    if (owner.subtitles.length === 0 || owner.streams.length > 0) return;
    count++;
    first ??= { origin, path };
  };
  for (const item of content.items) {
    for (const [index, owner] of streamOwners(item).entries()) check(item, owner, item.videos ? ['videos', index, 'subtitles'] : ['subtitles']);
  }
  for (const title of content.externalTitles) check(title, title, ['subtitles']);
  if (!first) return [];
  const elsewhere = !('name' in first.origin);
  return [problem('subtitles-need-rewrites', { count, hosts: strict, elsewhere }, { ...first.origin.where(first.path), path: first.path.join('.') })];
}

/**
 * The subtitles requests with extras that can be answered by a file: a player without the
 * streaming server (a browser) knows of a video only what its stream's behaviorHints say, and
 * asks with those. The streaming server adds a hash and size of its own, which no build can know.
 */
export function playerSubtitlesExtras(owner: StreamOwner): Extra[][] {
  const requests = new Map<string, Extra[]>();
  for (const stream of owner.streams) {
    const extras = subtitlesRequestExtras(stream.behaviorHints ?? {});
    if (extras.length === 0) continue;
    const name = extrasName(extras);
    // A file name no host can hold (a `/` in the file name): only the embedded copy reaches the player.
    if (fileNameProblem(name, false) === undefined) requests.set(name, extras);
  }
  return [...requests.values()];
}

/** Whether the manifest declares a resource for a type and an id: whether the client asks this addon for it. */
export function resourceDeclares(manifest: Manifest, name: 'stream' | 'subtitles'): (type: string, id: string) => boolean {
  const resource = manifest.resources.find((r) => typeof r !== 'string' && r.name === name);
  if (resource === undefined || typeof resource === 'string') return () => false;
  const types = new Set(resource.types);
  const matches = resource.idPrefixes === undefined ? undefined : prefixMatcher(resource.idPrefixes);
  return (type, id) => types.has(type) && (matches === undefined || matches(id) !== undefined);
}
