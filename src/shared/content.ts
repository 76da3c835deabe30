// The types that pass between stages: validate resolves the loaded YAML into `Content`, and plan,
// write, serve and build read it. Defined here, apart from any stage, so that each imports the
// description of the addon without the code that makes it.
import type { Location } from '../diagnostics/index.js';
import type { SourceFile } from '../load/index.js';
import type { Locator } from '../validate/issues.js';
import type { ConfigOption, Configuration, When } from './configurations.js';
import type { SearchQueries } from './search.js';
import type {
  AddonSettings,
  CatalogSettings,
  ContentItem,
  ContentStream,
  ContentSubtitle,
  ContentVideo,
  ManifestPreview,
} from '../validate/schema.js';

/** A subtitle with its id (items.ts numbers those written without one). */
export type Subtitle = Required<Omit<ContentSubtitle, 'when'>> & Pick<ContentSubtitle, 'when'>;
export type Stream = Omit<ContentStream, 'subtitles'> & { subtitles?: Subtitle[] };

export interface Video extends Omit<ContentVideo, 'id' | 'title' | 'streams' | 'subtitles' | 'trailerStreams'> {
  id: string;
  title: string;
  streams: Stream[];
  subtitles: Subtitle[];
  trailerStreams?: Stream[];
}

/** A title this addon describes: it has a meta, and catalogs may list it. */
export interface Item extends Omit<ContentItem, 'name' | 'videos' | 'streams' | 'subtitles' | 'trailerStreams'> {
  name: string;
  streams: Stream[];
  subtitles: Subtitle[];
  trailerStreams?: Stream[];
  /** In the client's order: season, episode, release date; specials (season 0) last. */
  videos?: Video[];
  /** Where a part of the item is written (`where(['id'])`), for diagnostics found later. */
  where: Locator;
  /** The file the item is written in: a rebuild skips rendering items of unchanged files. */
  source: SourceFile;
  /** Other playlists that list this channel (validate/channels.ts): its files are rendered from them too. */
  alsoFrom?: SourceFile[];
}

/** What a stream file and a subtitles file belong to: a video, or an item without videos. */
export interface StreamOwner {
  id: string;
  streams: Stream[];
  subtitles: Subtitle[];
}

export function streamOwners(item: Pick<Item, 'videos'> & StreamOwner): StreamOwner[] {
  return item.videos ?? [item];
}

/** The streams and subtitles of an item, or of all its videos. */
export function ownedTotals(item: Pick<Item, 'videos'> & StreamOwner): { streams: number; subtitles: number } {
  let [streams, subtitles] = [0, 0];
  for (const owner of streamOwners(item)) [streams, subtitles] = [streams + owner.streams.length, subtitles + owner.subtitles.length];
  return { streams, subtitles };
}

/**
 * A title that another addon describes (Cinemeta's IMDb ids `tt…`, Kitsu's `kitsu:…`), and what
 * this addon adds to it: an item without a name. Its id is the one the client asks with, a video
 * id for an episode (`tt0034167:1:1`). It has no meta and is in no catalog: the describing
 * addon's metadata is what users see.
 */
export interface ExternalTitle extends StreamOwner {
  type: string;
  when?: When;
  where: Locator;
  source: SourceFile;
}

/** What an item file is written from: an item this addon describes, or a title described elsewhere. */
export type FileOrigin = Item | ExternalTitle;

export interface Catalog {
  id: string;
  type: string;
  name: string;
  /** The genre filter's options; empty when the catalog has no genre filter. */
  genres: string[];
  /** `genres: auto`: the genres its items carry, worked out again for each configuration. */
  autoGenres?: true;
  /** `genres` written as a list: a member's genre it does not offer is warned of (unknown-genre). */
  fixedGenres?: true;
  /** `items: all`: it lists every item of its type that names no catalog (validate/catalogs.ts). */
  listsAll?: true;
  /** Members in catalog order. */
  items: Item[];
  /** What that order is by (validate/catalogs.ts, catalogOrder); without it, the order they were read in. */
  sort?: NonNullable<CatalogSettings['sort']>;
  /** false: off the Board, in Discover only, behind a required genre filter that opens on ALL_GENRES. */
  board: boolean;
  /** Declares the search extra: also found by search, or (`only`) a catalog for search alone. */
  search?: { only: boolean; queries: SearchQueries };
  /** Where the catalog is declared in addon.yaml (`where(['genres'])`), for diagnostics found later. */
  where: Locator;
  when?: When;
}

/** Where a part of addon.yaml is, with its field path, for problems found after validate. */
export type FieldPlace = Location & { path: string };

/** An addon that an addon collection lists. */
export interface ListedAddon {
  /** Its manifest URL, written as the descriptor's `transportUrl`. */
  transportUrl: string;
  /** Where the URL is written. */
  at: FieldPlace;
  /** The file its manifest is read from instead of the network: absolute, as written, and where. */
  file?: { absolute: string; written: string; at: FieldPlace };
  /** What the client is told of it, set once its manifest is read (load/addon-manifests.ts). */
  manifest?: ManifestPreview;
}

/** An addon collection: a list of other addons on the Addons screen (`addon_catalog`). */
export interface AddonCatalog {
  id: string;
  type: string;
  name: string;
  addons: ListedAddon[];
}

export interface Asset {
  /** Output path below the output folder. */
  path: string;
  /** Absolute path of the content file to copy. */
  source: string;
}

export interface Content {
  addon: Omit<AddonSettings, 'catalogs' | 'config' | 'addonCatalogs'>;
  /** The options of a configurable addon (`config`), checked; empty when it has none. */
  config: ConfigOption[];
  /**
   * Set in the content of one configuration (plan/configure.ts): what is left of the addon's
   * content for these values. Unset in the content validate makes, which holds everything.
   */
  configuration?: Configuration;
  /** The bytes of the text the output is built from: addon.yaml and the items' files (see shared/output-limit.ts). */
  textBytes: number;
  /** Normalized (ends in `/`); undefined when neither addon.yaml nor a flag gives one. */
  baseUrl?: string;
  types: string[];
  idPrefixes: string[];
  catalogs: Catalog[];
  items: Item[];
  /** Streams and subtitles for titles other addons describe, in the order they were read. */
  externalTitles: ExternalTitle[];
  assets: Asset[];
  /** Addon collections, in the order addon.yaml declares them. */
  addonCatalogs: AddonCatalog[];
  /** The variables that `${NAME}` replaced, with their values: the output depends on them too. */
  variables: Record<string, string>;
}

/** The fields of addon.yaml that only the manifest shows, and the pages made from it (plan/page.ts). */
export type ManifestOnlyField = 'version' | 'name' | 'description' | 'logo' | 'background' | 'contactEmail';

/**
 * The addon's settings but for those only the manifest shows: what items are checked against and
 * their files and catalog pages rendered with. A release's new version or description leaves them.
 */
export function itemSettings<T extends Partial<Pick<AddonSettings, ManifestOnlyField>>>(addon: T): Omit<T, ManifestOnlyField> {
  const {
    version: _version,
    name: _name,
    description: _description,
    logo: _logo,
    background: _background,
    contactEmail: _email,
    ...settings
  } = addon;
  return settings;
}
