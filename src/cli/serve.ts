// `addon-gen serve` on the command line: starts the server, prints how to install the addon,
// and waits for Ctrl-C.
import type { BuildResult } from '../build/index.js';
import { printable, UsageError } from '../diagnostics/index.js';
import { hasRewrites, HOSTS, type Host } from '../hosts/index.js';
import { ContentError, installLinks, startServer, type AddonServer } from '../serve/index.js';
import { parseMaxFileSize, type ServeFlags } from './flags.js';
import { failure, type Io } from './io.js';
import { humanText } from './report.js';
/** Starts the server, prints how to install the addon, and waits for Ctrl-C (or io.signal). */
export async function serve(contentDir: string, options: ServeFlags, io: Io): Promise<number> {
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) {
    throw new UsageError(`--port ${options.port}: expected a port number from 0 to 65535`);
  }
  const like = HOSTS.find((host) => host === options.like);
  if (like === undefined) throw new UsageError(`--like ${options.like}: expected one of ${HOSTS.join(', ')}`);
  // Listening for Ctrl-C from the start, so that one pressed during the first build still cleans up.
  const stop = io.signal ? { signal: io.signal, dispose: () => {} } : processSignals();
  let started = false;
  const printProblems = (result: BuildResult) => {
    if (result.diagnostics.length > 0) io.stderr(humanText(result, io));
  };
  let server: AddonServer;
  try {
    server = await startServer({
      ...(options.dir !== undefined ? { dir: options.dir } : { contentDir }),
      port: Number(options.port),
      host: options.host,
      baseUrl: options.baseUrl,
      like,
      watch: options.watch,
      allowCredentialsInOutput: options.allowCredentialsInOutput,
      maxFileSize: parseMaxFileSize(options.maxFileSize),
      onBuild: (result) => {
        printProblems(result);
        if (!started) return;
        if (result.ok) {
          io.stdout(`Rebuilt in ${result.seconds.toFixed(2)} s: ${result.write!.files} files\n`);
        } else {
          io.stderr('The rebuild failed; still serving the last good build.\n');
        }
      },
      onEarly: (paths, removed) => io.stdout(`${earlyLine(paths, removed.length)}\n`),
      // A rebuild that could not run at all (the content folder gone, say): the last good build stays.
      onError: (error) => io.stderr(`addon-gen: ${failure(error).message}\nThe rebuild failed; still serving the last good build.\n`),
    });
  } catch (error) {
    stop.dispose();
    if (!(error instanceof ContentError)) throw error;
    io.stderr('Nothing is served.\n');
    return 1;
  }
  started = true;
  io.stdout(serveText(server, contentDir, options, like));
  await aborted(stop.signal);
  stop.dispose();
  await server.close();
  io.stdout('Stopped.\n');
  return 0;
}

function serveText(server: AddonServer, contentDir: string, options: ServeFlags, like: Host): string {
  const { manifest } = server;
  const links = installLinks(server.manifestUrl);
  const from = options.dir !== undefined ? `${options.dir} as it is` : `a private build of ${contentDir}`;
  const lines = [
    manifest
      ? `Serving ${manifest.name} ${manifest.version} at ${server.url} from ${from}`
      : `Listening at ${server.url}; the content has errors, so requests get 503 until it builds`,
    `  manifest: ${links.manifest}`,
    `  install:  ${links.stremio}`,
    `  web:      ${links.web}`,
    `  page:     ${server.url}`,
    ...(manifest?.config ? [`  configure: ${server.url}configure/ (each configuration is served below its folder)`] : []),
    `  answers as ${like} does: ${hasRewrites(like) ? "subtitles requests with extras get the id's file" : 'files only (--like cloudflare previews the subtitles rewrite)'}`,
  ];
  if (server.headerSource === 'none') lines.push(`  ${options.dir} has no _headers file: responses carry no Cache-Control`);
  if (options.watch) lines.push(`  watching ${contentDir} for changes`);
  lines.push('Press Ctrl-C to stop.');
  // The name and version come from the content (or the served tree), the folders from the flags.
  return `${lines.map((line) => printable(line)).join('\n')}\n`;
}

/**
 * A signal aborted by SIGINT or SIGTERM. dispose() removes the listeners (and the first signal
 * does too), so that a second Ctrl-C during shutdown ends the process as usual.
 */
function processSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const dispose = () => {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  };
  const abort = () => {
    dispose();
    controller.abort();
  };
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  return { signal: controller.signal, dispose };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** What serve --watch answers before a rebuild ends, in words: item files first, then the catalog pages that changed. */
function earlyLine(paths: readonly string[], removed: number): string {
  const pages = paths.filter((path) => path.startsWith('catalog/')).length;
  const items = paths.length - pages;
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const parts = [items > 0 && plural(items, 'meta, stream and subtitles file'), pages > 0 && plural(pages, 'catalog page')]
    .filter(Boolean)
    .join(' and ');
  // The files of an item removed answer 404 from now on.
  const gone = removed === 0 ? '' : ` (${removed === items ? (items === 1 ? 'removed' : 'all removed') : `${removed} of them removed`})`;
  return `Serving the edit's ${parts}${gone} now, before the rebuild ends`;
}
