// The meta, stream and subtitles files of items: most of a plan's files.
import { resourcePath, type Extra } from '../shared/paths.js';
import type { Manifest } from '../validate/schema.js';
import { streamOwners, type Content, type Item, type StreamOwner } from '../shared/content.js';
import type { OutputFile } from './output-file.js';
import { playerSubtitlesExtras, subtitlesTypes } from './subtitles.js';
import { metaItem, wireStream, wireSubtitle, type Envelope, type Link } from './wire.js';

/** What item files are rendered with, besides their item: one for the whole plan. */
export interface ItemRendering {
  linksOf: (item: Item) => Link[] | undefined;
  envelopes: Record<ItemFile['resource'], Envelope>;
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
    readonly origin: Item,
    /** The item itself for its meta, or what the streams and subtitles belong to (see streamOwners). */
    private readonly owner: StreamOwner,
    readonly inputs: string | undefined,
    private readonly rendering: ItemRendering,
  ) {}

  body(): string {
    const { origin: item, owner, rendering } = this;
    const { open, close } = rendering.envelopes[this.resource];
    switch (this.resource) {
      case 'meta':
        return open + JSON.stringify(metaItem(item, rendering.linksOf(item))) + close;
      case 'stream':
        return open + JSON.stringify(owner.streams.map((s) => wireStream(s, owner.subtitles))) + close;
      case 'subtitles':
        return open + JSON.stringify(owner.subtitles.map(wireSubtitle)) + close;
    }
  }
}

/**
 * Adds the files of every item: its meta, and the streams and subtitles of it or of each of its
 * videos. Pushed onto the plan's list, not returned: a spread of a quarter of a million files
 * would overflow the stack.
 */
export function addItemFiles(
  files: OutputFile[],
  content: Content,
  manifest: Manifest,
  rendering: ItemRendering,
  fingerprintOf: ((item: Item) => string) | undefined,
): void {
  // Every id of a type the manifest declares subtitles for gets a subtitles file, `[]` when it
  // has none: the player asks for the subtitles of every video it opens, and a 404 is a failure.
  const subtitleTypes = new Set(subtitlesTypes(manifest));
  for (const item of content.items) {
    const inputs = fingerprintOf?.(item);
    const file = (resource: ItemFile['resource'], owner: StreamOwner, extras: readonly Extra[] = []) => {
      files.push(new ItemFile(resourcePath(resource, item.type, owner.id, extras), resource, item, owner, inputs, rendering));
    };
    file('meta', item);
    for (const owner of streamOwners(item)) {
      file('stream', owner);
      if (!subtitleTypes.has(item.type)) continue;
      file('subtitles', owner);
      for (const extras of playerSubtitlesExtras(owner)) file('subtitles', owner, extras);
    }
  }
}
