// Public output: everything a build writes is readable by anyone, so what must not be is refused.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatPath, problem, type DiagnosticList } from '../diagnostics/index.js';
import type { Asset } from '../shared/content.js';
import type { Locator } from './issues.js';
import type { ContentItem, ContentStream } from './schema.js';
import type { SecretPolicy } from './secrets.js';

/** Request headers that carry credentials: in a static addon anyone can read them. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** `proxyHeaders.request` with credentials, in every stream of the item as written in the file. */
export function checkCredentials(item: ContentItem, at: Locator, allowed: boolean, diagnostics: DiagnosticList) {
  // A path is made only for a header found: making the path of each of a large addon's stream
  // lists, to find none, made tens of MB of garbage (figures: bench/README.md, 'Credential paths
  // made on demand').
  const check = (streams: ContentStream[] | undefined, field: 'streams' | 'trailerStreams', video?: number) => {
    streams?.forEach((stream, s) => {
      const request = stream.behaviorHints?.proxyHeaders?.request;
      if (request === undefined) return;
      for (const header of Object.keys(request)) {
        // Spaces around a name are not part of it: the header is sent all the same.
        if (!CREDENTIAL_HEADERS.has(header.trim().toLowerCase())) continue;
        const path = [...(video === undefined ? [] : ['videos', video]), field, s, 'behaviorHints', 'proxyHeaders', 'request'];
        const severity = allowed ? 'warning' : 'error';
        diagnostics.add(at.file, severity, () =>
          problem('credentials-in-output', { header, allowed }, { severity, ...at(path, header), path: formatPath([...path, header]) }),
        );
      }
    });
  };
  check(item.streams, 'streams');
  check(item.trailerStreams, 'trailerStreams');
  item.videos?.forEach((video, v) => {
    check(video.streams, 'streams', v);
    check(video.trailerStreams, 'trailerStreams', v);
  });
}

/** Local files are published byte for byte: none may hold a guarded value. */
export function checkAssetSecrets(assets: readonly Asset[], policy: SecretPolicy, contentDir: string, diagnostics: DiagnosticList) {
  if (policy.values.size === 0) return;
  for (const asset of assets) {
    const bytes = readFileSync(asset.source);
    for (const [secret, name] of policy.values) {
      const offset = bytes.indexOf(secret);
      if (offset < 0) continue;
      const before = bytes.subarray(0, offset);
      const lineStart = before.lastIndexOf(10) + 1;
      diagnostics.push(
        problem(
          'secret-in-output',
          { kind: 'file', name, publishedAs: asset.path },
          {
            file: path.join(contentDir, path.relative(path.resolve(contentDir), asset.source)),
            line: before.filter((byte) => byte === 10).length + 1,
            column: offset - lineStart + 1,
          },
        ),
      );
    }
  }
}
