// Part of stage 4, write: the bookkeeping of output folders that one long-lived caller (serve
// --watch) writes build after build, kept in memory between them. A rebuild otherwise reads and
// parses the state file whole, and makes a map of a quarter of a million files from it, to learn
// what this process wrote there itself (figures: bench/README.md, 'Bookkeeping kept in memory').
import type { OutputFile } from '../plan/index.js';
import { readStateHead, stateFileOf, type State, type StateHead, type Written } from './state.js';

/** A state file as this process left it: its place, size and modification time. */
interface Left {
  file: string;
  bytes: number;
  mtimeNs: bigint;
}

export class KeptStates {
  private readonly byRoot = new Map<string, { state: State; left: Left }>();

  /**
   * The state the last build into `root` wrote, while its state file (read as `head`) is the one
   * that build left: same place, size and modification time. Taken, not shared: a build that
   * fails after this leaves nothing kept, and the next one reads the file.
   */
  take(root: string, head: StateHead | undefined): State | undefined {
    const kept = this.byRoot.get(root);
    this.byRoot.delete(root);
    if (!kept || !head) return undefined;
    const { left } = kept;
    return head.file === left.file && head.bytes === left.bytes && head.mtimeNs === left.mtimeNs ? kept.state : undefined;
  }

  /**
   * Keeps what a complete build wrote into `root`: `files` with what was `recorded` for each, by
   * position, the foreign entries and its record. Called after its last write there (the stamps),
   * so that the state file is as it is left.
   */
  async keep(root: string, files: readonly OutputFile[], recorded: readonly Written[], state: Pick<State, 'foreign' | 'record'>): Promise<void> {
    const head = await readStateHead(root);
    // One kept inside the output folder is moved beside it by the next build that can: read it then.
    if (!head || head.complete !== true || head.file !== stateFileOf(root)) return;
    const written = new Map<string, Written>();
    files.forEach((file, i) => written.set(file.path, recorded[i]!));
    const { foreign, record } = state;
    this.byRoot.set(root, {
      state: { files: written, complete: true, foreign, ...(record !== undefined && { record }) },
      left: { file: head.file, bytes: head.bytes, mtimeNs: head.mtimeNs },
    });
  }
}
