// The meta, stream and subtitles files of items: most of a plan's files.
import { resourcePath, type Extra } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';
import { streamOwners, type Content, type FileOrigin, type Item, type StreamOwner } from '../shared/content.js';
import type { OutputFile } from './output-file.js';
import { playerSubtitlesExtras, resourceDeclares } from './subtitles.js';
import { envelope, genreLinks, metaItem, wireStream, wireSubtitle, type Envelope, type Link, type LinkedContent } from './wire.js';
import { cacheHints } from '../hosts/index.js';
import type { Offerer } from '../shared/resources.js';

/** What item files are rendered with, besides their item: one for the whole plan. */
export interface ItemRendering {
  linksOf: (item: Item) => Link[] | undefined;
  envelopes: Record<ItemFile['resource'], Envelope>;
}

/**
 * What the item files of `content` are rendered with (`only` those of some of its items); genre
 * links are worked out when first asked for.
 */
export function itemRendering(content: LinkedContent & Pick<Content, 'addon'>, only?: readonly Item[]): ItemRendering {
  let links: Map<Item, Link[]> | undefined;
  return {
    linksOf: (item) => (links ??= genreLinks(content, only)).get(item),
    envelopes: {
      meta: envelope('meta', cacheHints(content, 'meta')),
      stream: envelope('streams', cacheHints(content, 'stream')),
      subtitles: envelope('subtitles', cacheHints(content, 'subtitles')),
    },
  };
}

/**
 * A meta, stream or subtitles file of an item: most of a plan's files (a quarter of a million in
 * the large benchmark), all waiting until they are written. Each is one small object whose body
 * a method of the class renders: two closures of its own per file would cost hundreds of bytes
 * each, tens of MB for a large plan (figures: bench/README.md, 'Item files as instances'). Call
 * it as `file.body()`.
 */
export class ItemFile implements OutputFile {
  constructor(
    readonly path: string,
    readonly resource: 'meta' | 'stream' | 'subtitles',
    readonly origin: FileOrigin,
    /** The item itself for its meta, or what the streams and subtitles belong to (see streamOwners). */
    private readonly owner: StreamOwner,
    readonly inputs: string | undefined,
    private readonly rendering: ItemRendering,
  ) {}

  body(): string {
    const { origin, owner, rendering } = this;
    const { open, close } = rendering.envelopes[this.resource];
    switch (this.resource) {
      case 'meta':
        // Only titles this addon describes have a meta (addItemFiles).
        if (!('name' in origin)) throw new Error(`no meta for ${origin.id}, a title another addon describes`);
        return open + JSON.stringify(metaItem(origin, rendering.linksOf(origin))) + close;
      case 'stream':
        return open + JSON.stringify(owner.streams.map((s) => wireStream(s, owner.subtitles))) + close;
      case 'subtitles':
        return open + JSON.stringify(owner.subtitles.map(wireSubtitle)) + close;
    }
  }
}

/**
 * Adds the files of every item: its meta, and the streams and subtitles of it or of each of its
 * videos; then the streams and subtitles of the titles other addons describe. Pushed onto the
 * plan's list, not returned: a spread of a quarter of a million files would overflow the stack.
 */
export function addItemFiles(
  files: OutputFile[],
  content: Pick<Content, 'items' | 'externalTitles'>,
  manifest: Manifest,
  rendering: ItemRendering,
  fingerprintOf: ((origin: FileOrigin) => string) | undefined,
): void {
  const each = itemFileWalker(manifest);
  const add = (origin: FileOrigin, owners: StreamOwner[]) => {
    const inputs = fingerprintOf?.(origin);
    each(origin, owners, (path, resource, owner) => files.push(new ItemFile(path, resource, origin, owner, inputs, rendering)));
  };
  for (const item of content.items) add(item, streamOwners(item));
  for (const title of content.externalTitles) add(title, [title]);
}

/** The paths of the files of `items` and titles (addItemFiles), as one kept without its source has them. */
export function itemFilePaths(items: readonly Offerer[], manifest: Manifest): string[] {
  const each = itemFileWalker(manifest);
  const paths: string[] = [];
  for (const item of items) each(item, streamOwners(item), (path) => paths.push(path));
  return paths;
}

/** Calls `file` for each file of a title with these owners: one walk for the files a plan renders and the paths an edit removes. */
function itemFileWalker(manifest: Manifest) {
  // Every id of a type and prefix the manifest declares streams or subtitles for gets a file,
  // `[]` when it has none: the player asks for the subtitles of every video it opens, and a 404
  // is a failure.
  const streams = resourceDeclares(manifest, 'stream');
  const subtitles = resourceDeclares(manifest, 'subtitles');
  return (
    origin: Pick<FileOrigin, 'type'> & StreamOwner,
    owners: readonly StreamOwner[],
    file: (path: string, resource: ItemFile['resource'], owner: StreamOwner) => void,
  ) => {
    const at = (resource: ItemFile['resource'], owner: StreamOwner, extras: readonly Extra[] = []) =>
      file(resourcePath(resource, origin.type, owner.id, extras), resource, owner);
    if ('name' in origin) at('meta', origin);
    for (const owner of owners) {
      if (streams(origin.type, owner.id)) at('stream', owner);
      if (!subtitles(origin.type, owner.id)) continue;
      at('subtitles', owner);
      for (const extras of playerSubtitlesExtras(owner)) at('subtitles', owner, extras);
    }
  };
}
