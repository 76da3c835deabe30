// What checking each item file found, kept between the builds of one long-lived process (serve
// --watch): a file whose text is as it was, checked against the same settings, is neither parsed
// nor checked again. Kept only for files that gave no problem and depend on nothing but their text
// and the settings: no `${NAME}` or guarded value, no local file (which may have gone since).
import { textFingerprint } from '../shared/fingerprint.js';
import type { SourceFile } from '../load/index.js';
import type { ExternalTitle, Item } from '../shared/content.js';
import type { Locator } from './issues.js';

/** Where a value was in its file, to point a kept item's locator at the file read this time. */
interface Placed<T> {
  value: T;
  document: number;
  at: (string | number)[];
}

/** What one file's values became: its items and titles described elsewhere, in order, and the config keys their `when`s name. */
export interface FileResult {
  items: Placed<Item>[];
  externalTitles: Placed<ExternalTitle>[];
  usedKeys: string[];
}

interface Kept extends FileResult {
  fingerprint: string;
  kind: SourceFile['kind'];
  /** The reading of the file that was parsed: what parsing left on it holds for the same text. */
  source: SourceFile;
}

export class CheckedFiles {
  private context: string | undefined;
  private kept = new Map<string, Kept>();
  private next = new Map<string, Kept>();

  /**
   * Starts a build checked against `context`, everything but a file's own text that what it
   * becomes depends on (addon.yaml, the variables, the options): what was kept under another is dropped.
   */
  begin(context: string): void {
    if (context !== this.context) this.kept.clear();
    this.context = context;
    this.next = new Map();
  }

  /** Whether what `file` became is kept: load then does not parse it, and validate takes it. */
  has(file: SourceFile): boolean {
    const kept = this.kept.get(file.file);
    return kept !== undefined && kept.kind === file.kind && kept.fingerprint === textFingerprint(file);
  }

  /** What `file` became, its items and titles pointing at `file` (this build's reading of it). */
  take(file: SourceFile, locatorOf: (file: SourceFile, document: number, at: (string | number)[]) => Locator): FileResult {
    const kept = this.kept.get(file.file);
    if (!kept || !this.has(file)) throw new Error(`${file.relative} was not kept`);
    this.next.set(file.file, kept);
    // What parsing the same text left, which a file that is not parsed again lacks: a playlist's
    // channels (validate/channels.ts merges those of several playlists), and the positions and
    // table layout that locate its problems.
    const parsed = kept.source;
    file.spans ??= parsed.spans;
    file.parsed ??= parsed.parsed;
    file.lines ??= parsed.lines;
    file.table ??= parsed.table;
    file.playlist ??= parsed.playlist;
    const again = <T extends Item | ExternalTitle>({ value, document, at }: Placed<T>): Placed<T> => ({
      value: Object.assign({}, value, { source: file, where: locatorOf(file, document, at) }),
      document,
      at,
    });
    return { items: kept.items.map(again), externalTitles: kept.externalTitles.map(again), usedKeys: kept.usedKeys };
  }

  /** Keeps what `file` became for the next build. */
  keep(file: SourceFile, result: FileResult): void {
    this.next.set(file.file, { ...result, fingerprint: textFingerprint(file), kind: file.kind, source: file });
  }

  /** Ends the build: what the next one can take is what this one kept or took. */
  end(): void {
    this.kept = this.next;
    this.next = new Map();
  }
}
