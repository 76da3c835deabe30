// Part of stage 4, write: what the last build recorded of each file it wrote (state.ts), as a
// rebuild looks it up. The state file lists the files in the order of the plan that wrote them,
// and a rebuild's plan mostly has the same paths in the same order: each entry is matched to the
// planned file at its place, or a few places on (past files added or removed), and only those
// that match none are kept by path. The entries had been read into a map of every path, which held
// each path and an entry for it through the write stage, where the memory of a rebuild of the
// largest catalogs peaks (bench/README.md, "Memory at a million files").
import { readFile } from 'node:fs/promises';
import { fieldOf } from '../shared/fields.js';
import {
  EDITED,
  foreignOf,
  headLength,
  headOf,
  readStateFile,
  recordedEntries,
  slotText,
  stateFileIn,
  stateFileOf,
  type ReadStateFile,
  type State,
  type Written,
} from './state.js';

/** How many places before or after its own a recorded path is looked for among the planned ones. */
const NEARBY = 256;

/** A recorded entry, as state.ts reads it: its path, size (-1: unknown) and inputs fingerprint. */
export type RecordedEntry = readonly [path: string, bytes: number, inputs: string | undefined];

/** What the CLI's edits wrote (with what is known of each) and removed since the state file. */
export interface EditsSince {
  written: readonly (readonly [string, Written])[];
  removed: readonly string[];
  /** The output's folders as the last edit stamped them, and a time after it did (edit-journal.ts, foldersAfterEdits). */
  folders?: { stamps: [dir: string, stamp: string][]; before: bigint };
}

export class PreviousFiles {
  /** By entry: the size, and the index of the inputs fingerprint in `fingerprints` (-1: none). */
  private readonly bytes: Float64Array;
  private readonly inputs: Int32Array;
  private readonly fingerprints: (string | undefined)[] = [];
  /** The planned file each entry matched, by its index in the plan; -1 when none. */
  private readonly planOf: Int32Array;
  /** The entry each planned file matched; -1 when none. */
  private readonly entryOf: Int32Array;
  /** The entries that matched no planned file near their place, by path. */
  private readonly rest = new Map<string, number>();
  /** Every entry by path, made only when a path is asked for without its place in the plan. */
  private byPath: Map<string, number> | undefined;
  readonly size: number;

  /**
   * The entries `recorded` gives, in their order, matched to `planned` (the plan's files, whose
   * paths are distinct), with what `edits` wrote and removed since in place of what they say.
   */
  constructor(
    recorded: Iterable<RecordedEntry>,
    count: number,
    private readonly planned: readonly { readonly path: string }[],
    edits: EditsSince = { written: [], removed: [] },
  ) {
    const since = new Map<string, Written | undefined>(edits.written);
    for (const file of edits.removed) since.set(file, undefined);
    const length = count + since.size;
    this.bytes = new Float64Array(length);
    this.inputs = new Int32Array(length);
    this.planOf = new Int32Array(length).fill(-1);
    this.entryOf = new Int32Array(planned.length).fill(-1);
    const fingerprintIndex = new Map<string, number>();
    const fingerprint = (inputs: string | undefined): number => {
      if (inputs === undefined) return -1;
      let index = fingerprintIndex.get(inputs);
      if (index === undefined) fingerprintIndex.set(inputs, (index = this.fingerprints.push(inputs) - 1));
      return index;
    };
    let entries = 0;
    const add = (file: string, bytes: number, inputs: string | undefined, at: number): void => {
      const entry = entries++;
      this.bytes[entry] = bytes;
      this.inputs[entry] = fingerprint(inputs);
      if (at >= 0) {
        this.planOf[entry] = at;
        this.entryOf[at] = entry;
      } else {
        this.rest.set(file, entry);
      }
    };
    // What edits wrote stands for what the record says of a path, however often it says it.
    const edited = new Set<string>();
    // The place each entry had in the plan that wrote it, and how far the planned ones moved since.
    let place = -1;
    let shift = 0;
    for (const entry of recorded) {
      place++;
      const file = entry[0];
      let [, bytes, inputs] = entry;
      const edit = since.size > 0 && since.has(file);
      if (edit) {
        const written = since.get(file);
        if (written === undefined || edited.has(file)) continue;
        edited.add(file);
        ({ bytes, inputs } = written);
      }
      const expected = place + shift;
      const at = this.planned[expected]?.path === file ? expected : this.nearby(file, expected);
      if (at >= 0) shift = at - place;
      const matched = at >= 0 ? this.entryOf[at]! : -1;
      const earlier = matched >= 0 ? matched : this.rest.size > 0 ? this.rest.get(file) : undefined;
      if (earlier !== undefined) {
        // The same path recorded twice (a hand edit), the last as a map keeps it: whatever it
        // holds is compared. Twice far apart, it stays twice: the record is then not the same as
        // the next (recordsTheSame), which is written.
        this.bytes[earlier] = -1;
        this.inputs[earlier] = fingerprint(inputs);
        continue;
      }
      add(file, bytes, inputs, at);
    }
    for (const [file, written] of since) if (written !== undefined && !edited.has(file)) add(file, written.bytes, written.inputs, -1);
    this.size = entries;
  }

  /** The place of the planned file at `path` within NEARBY of `place`; -1 when none. */
  private nearby(file: string, place: number): number {
    for (let distance = 1; distance <= NEARBY; distance++) {
      if (this.planned[place + distance]?.path === file) return place + distance;
      if (place >= distance && this.planned[place - distance]?.path === file) return place - distance;
    }
    return -1;
  }

  private entryFor(index: number, file: string): number | undefined {
    const entry = this.entryOf[index];
    if (entry !== undefined && entry >= 0) return entry;
    return this.rest.size > 0 ? this.rest.get(file) : undefined;
  }

  private written(entry: number): Written {
    const input = this.inputs[entry]!;
    return { bytes: this.bytes[entry]!, inputs: input < 0 ? undefined : this.fingerprints[input] };
  }

  /** What was recorded for the planned file at `index` in the plan, whose path is `file`. */
  atPlanned(index: number, file: string): Written | undefined {
    const entry = this.entryFor(index, file);
    return entry === undefined ? undefined : this.written(entry);
  }

  /** Whether the planned file at `index` (at `file`) was recorded. */
  hasPlanned(index: number, file: string): boolean {
    return this.entryFor(index, file) !== undefined;
  }

  /** Whether `file` was recorded and matched no planned file near its place: it may be planned elsewhere, or not at all. */
  hasBesidesPlan(file: string): boolean {
    return this.rest.has(file);
  }

  /** Whether `file` was recorded; without its place in the plan, it is looked up in a map of every path, made once. */
  has(file: string): boolean {
    if (!this.byPath) this.byPath = new Map(this.paths().map((path, entry) => [path, entry]));
    return this.byPath.has(file);
  }

  /** The recorded paths, in the order recorded (edits' new files last). */
  paths(): string[] {
    const paths = new Array<string>(this.size);
    for (let entry = 0; entry < this.size; entry++) {
      const at = this.planOf[entry]!;
      if (at >= 0) paths[entry] = this.planned[at]!.path;
    }
    for (const [file, entry] of this.rest) paths[entry] = file;
    return paths;
  }

  /** The paths recorded that matched no planned file near their place. */
  besidesPlan(): IterableIterator<string> {
    return this.rest.keys();
  }

  /** Each recorded path with what was written there, in the order recorded. */
  *entries(): Generator<[string, Written]> {
    const paths = this.paths();
    for (let entry = 0; entry < this.size; entry++) yield [paths[entry]!, this.written(entry)];
  }

  /** Whether `next`, in the plan's order, records at each path what was recorded, and no other path. */
  recordsTheSame(next: Iterable<readonly [string, Written]>): boolean {
    let index = 0;
    for (const [file, y] of next) {
      const entry = this.entryFor(index++, file);
      if (entry === undefined) return false;
      const input = this.inputs[entry]!;
      if (this.bytes[entry] !== y.bytes || (input < 0 ? undefined : this.fingerprints[input]) !== y.inputs) return false;
    }
    return index === this.size;
  }
}

/** A state file's columns, its paths read one at a time (or all at once, when it is parsed whole). */
type StateColumns = Omit<ReadStateFile, 'paths'> & { paths: Iterable<unknown> };

/**
 * The state file of `root` as the write stage reads it, its files matched to `planned`. When the
 * CLI's edits wrote since (EDITED), `editsSince` reads what they wrote and removed; without that,
 * every file is in doubt. A missing, unreadable or unknown state file means "nothing known": the
 * build still ends up correct.
 */
export async function readPreviousState(
  root: string,
  planned: readonly { readonly path: string }[],
  editsSince: () => Promise<EditsSince | undefined>,
): Promise<State> {
  const file = await stateFileIn(root);
  let edits: { read: EditsSince | undefined } | undefined;
  const stateOf = async (state: StateColumns): Promise<State> => {
    const edited = slotText(state.stamps) === EDITED;
    if (edited) edits ??= { read: await editsSince() };
    const since = edited ? edits?.read : undefined;
    return {
      files: new PreviousFiles(recordedEntries(state), state.sizes.length, planned, since),
      complete: state.complete !== false && (!edited || since !== undefined),
      foreign: foreignOf(state),
      ...(state.record !== undefined && { record: state.record }),
      ...(file !== stateFileOf(root) && { inside: true }),
      ...(edited && { edited: true }),
      ...(since?.folders && { foldersAfterEdits: since.folders }),
    };
  };
  const bytes = await readFile(file).catch(() => undefined);
  const columns = bytes && columnsIn(bytes);
  if (columns) {
    try {
      return await stateOf(columns);
    } catch {
      // A path that is not a plain JSON string, or columns of different lengths: parsed whole.
    }
  }
  const whole = await readStateFile(root);
  return whole ? stateOf(whole.state) : { files: new PreviousFiles([], 0, planned), complete: true, foreign: [] };
}

/**
 * Where the paths end and the other columns start. A JSON string holds no bare quote, so this is
 * nowhere in the paths, nor after them.
 */
const AFTER_PATHS = Buffer.from('],"sizes":[');

/**
 * The columns of a state file as this version writes it (state.ts, writeState), its paths read one
 * at a time: all of them at once, with the whole file's text, were where a rebuild of the largest
 * catalogs peaked, at the start of the write stage (bench/README.md, "Memory at a million files").
 * Undefined when it is laid out otherwise.
 */
export function columnsIn(bytes: Buffer): StateColumns | undefined {
  const length = headLength(bytes);
  const head = length && headOf(bytes, length.end);
  const end = bytes.lastIndexOf(AFTER_PATHS);
  if (!head || end < head.columns) return undefined;
  let rest: unknown;
  try {
    rest = JSON.parse(`{${bytes.toString('utf8', end + 2)}`);
  } catch {
    return undefined;
  }
  const [sizes, inputs, fingerprints] = ['sizes', 'inputs', 'fingerprints'].map((name) => fieldOf(rest, name));
  if (!Array.isArray(sizes) || !Array.isArray(inputs) || !Array.isArray(fingerprints) || inputs.length !== sizes.length) return undefined;
  const field = (name: string): unknown => fieldOf(head.fields, name);
  return {
    complete: field('complete'),
    stamps: field('stamps'),
    foreign: field('foreign'),
    record: field('record'),
    sizes,
    inputs,
    fingerprints,
    paths: stringsIn(bytes, head.columns, end),
  };
}

const [QUOTE, BACKSLASH, COMMA, OPEN, CLOSE] = ['"', '\\', ',', '[', ']'].map((c) => c.charCodeAt(0));

/** The strings of the JSON array from `bytes[start]` (`[`) to `bytes[end]` (`]`), one at a time; throws at anything but strings. */
function* stringsIn(bytes: Buffer, start: number, end: number): Generator<string> {
  if (bytes[start] !== OPEN || bytes[end] !== CLOSE) throw new Error('not an array');
  let at = start + 1;
  while (at < end) {
    if (bytes[at] !== QUOTE) throw new Error('not a string');
    let close = at + 1;
    let escapes = false;
    for (;;) {
      const byte = bytes[close];
      // A control character is not allowed in a JSON string.
      if (byte === undefined || byte < 0x20) throw new Error('not a string');
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) {
        escapes = true;
        close++;
      }
      close++;
    }
    if (escapes) {
      const text: unknown = JSON.parse(bytes.toString('utf8', at, close + 1));
      if (typeof text !== 'string') throw new Error('not a string');
      yield text;
    } else {
      yield bytes.toString('utf8', at + 1, close);
    }
    at = close + 1;
    if (at < end && bytes[at++] !== COMMA) throw new Error('not a list');
    if (at === end && bytes[at - 1] === COMMA) throw new Error('not a list');
  }
}
