// The builds of `addon-gen serve`: the content built into a private folder, and with `watch`
// rebuilt after each change, the served tree swapped only for a good build.
import { unwatchFile, watch, watchFile, type FSWatcher, type Stats } from 'node:fs';
import { mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build, keptBetweenBuilds, type BuildOptions, type BuildResult } from '../build/index.js';
import { hasRewrites, headerRules } from '../hosts/index.js';
import { earlyAnswers, listCatalogs, provisionalContent, searchAnswers, type BuiltTree } from '../plan/index.js';
import type { CheckedItems } from '../validate/index.js';
import type { Content } from '../shared/content.js';
import { readManifest, type Tree } from './http.js';
import { linkOutput } from '../write/index.js';
import { eventLoopTurns } from '../shared/turns.js';
import type { AddonServer, ServeOptions } from './index.js';

/** The first build failed (without `watch` there is nothing to serve); the diagnostics went to onBuild. */
export class ContentError extends Error {
  override name = 'ContentError';
  constructor(readonly result: BuildResult) {
    super('the content has errors');
  }
}

/** What the server answers from; the builds replace `tree` as a whole. */
export interface ServedState {
  tree?: Tree;
  headerSource: AddonServer['headerSource'];
}

export interface Builds {
  /** Stops watching, waits for a running build, removes the private folder. */
  close(): Promise<void>;
}

/**
 * Builds the content into a private folder and serves it; with `watch`, again after each change.
 * Two slots: each build writes into the one not being served, and only a good build is swapped
 * in, so a request never sees a half-written or failed build. Once a rebuild has checked the
 * edited files, their items' own files and the catalog pages that list them are answered as it
 * will write them (ServedTrees).
 */
export async function startBuilds(contentDir: string, baseUrl: string, options: ServeOptions, state: ServedState): Promise<Builds> {
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), 'addon-gen-serve-')));
  const slots = [path.join(workspace, 'a'), path.join(workspace, 'b')] as const;
  let served = 1;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let building: Promise<void> | undefined;
  let pending = false;
  const settings = buildSettings(contentDir, baseUrl, options);
  const trees = new ServedTrees(state, options);
  const onError = (cause: unknown) => options.onError?.(cause instanceof Error ? cause : new Error(String(cause)));

  // A change since the running build began: it may stop before it writes (ServedTrees.answeredWhole).
  let changed = false;
  const folders = options.watch
    ? watchFolders(contentDir, () => {
        changed = true;
        clearTimeout(timer);
        timer = setTimeout(rebuild, options.debounceMs ?? 50);
      })
    : undefined;

  async function buildOnce(): Promise<BuildResult> {
    changed = false;
    // Folders made since the last build are watched before this build reads them.
    await folders?.sync();
    const slot = served === 0 ? 1 : 0;
    try {
      const early = options.watch && trees.rebuildOptions(() => changed);
      const result = await build({ ...settings, outDir: slots[slot], ...early });
      // Not reported: the next build reports the content it found.
      if (result.stopped) return result;
      if (result.ok && !closed) {
        await trees.swapIn(slots[slot], result.content!, result.previews);
        served = slot;
      }
      options.onBuild?.(result);
      return result;
    } finally {
      // The new tree has the early answers' files; a failed build drops its own.
      trees.dropEarly();
    }
  }

  /** One build at a time: both would write the same slot. A change during a build queues one more. */
  function track(running: Promise<unknown>) {
    building = running
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        building = undefined;
        if (pending) {
          pending = false;
          rebuild();
        }
      });
  }

  function rebuild() {
    if (closed) return;
    if (building) {
      pending = true;
      return;
    }
    const running = buildOnce();
    running.catch(onError);
    track(running);
  }

  // Stops the links being made when the server stops: there are a quarter of a million for a large catalog.
  const linking = new AbortController();
  const close = async () => {
    closed = true;
    linking.abort();
    clearTimeout(timer);
    folders?.close();
    await building;
    await rm(workspace, { recursive: true, force: true });
  };
  try {
    const running = buildOnce();
    track(running);
    const first = await running;
    if (!first.ok && !options.watch) throw new ContentError(first);
    // The other tree gets the first one's files as hard links, in the background: the first
    // rebuild then writes what changed, not a whole tree (a large catalog's first edit took twice
    // as long as the next ones). An edit meanwhile waits for it, as for a build.
    await building;
    const [from, to] = served === 0 ? slots : ([slots[1], slots[0]] as const);
    if (options.watch && first.ok && !building && !closed) track(linkOutput(from, to, linking.signal));
  } catch (cause) {
    await close();
    throw cause;
  }
  return { close };
}

/**
 * The tree served and what it was built from, and the content files parsed since: every file an
 * edit changed since that build is among them, through failed and stopped builds too. From a
 * rebuild's check of the edited files to its end, the tree is served with the edited items' files
 * as that build will write them (plan/early-answers.ts): first from the files checked each on
 * their own, then again from the content checked across them. Exported for its tests.
 */
export class ServedTrees {
  /** The content files parsed since the served tree's build began: the builds add to it (`parsed`). */
  readonly unserved = new Set<string>();
  private served: { tree: Tree; built: BuiltTree } | undefined;
  // The settings the running build checked its items with, for its tree once swapped in.
  private settings: string | undefined;
  // What rebuilds stopped for a newer save answered, each the whole of its changes (its catalog
  // pages too), checked and planned: the served tree with them is the tree it would have written.
  private kept: ReadonlyMap<string, Buffer | null> = new Map();
  // What the running build answers, by path; the catalog pages among them, once answered.
  private own: ReadonlyMap<string, Buffer | null> = new Map();
  private pages: { bodies: ReadonlyMap<string, string>; encoded: [string, Buffer | null][] } | undefined;
  // What is served over the tree: `kept`, and `own` over it.
  private early: ReadonlyMap<string, Buffer | null> = new Map();
  // The running build was told to stop (rebuildOptions).
  private stopped = false;
  // The paths the running build answered, told to onEarly.
  private told = new Set<string>();

  constructor(
    private readonly state: ServedState,
    private readonly options: ServeOptions,
  ) {}

  /** What a rebuild gets to answer early; `stale` says whether a save came since it began. */
  rebuildOptions(stale: () => boolean): Partial<BuildOptions> {
    return {
      parsed: this.unserved,
      onItemsChecked: this.answerSooner,
      onChecked: this.answerEarly,
      keepPreviews: true,
      // Stale, it stops for the next build, which starts once it ends: the newer save shows sooner.
      stopBeforeWrite: () => (this.stopped = stale() && this.answeredWhole),
    };
  }

  /**
   * A rebuild's onItemsChecked: the edited items' files, then the catalog pages that changed,
   * each followed by two turns of the event loop, before the rebuild checks across items.
   */
  answerSooner = async (checked: CheckedItems): Promise<void> => {
    this.settings = checked.settings;
    const { served, unserved } = this;
    const content = served && provisionalContent(served.built, checked, unserved);
    const answers = served && content && earlyAnswers(served.built, content, unserved);
    if (!answers || !this.answer(answers.files)) return;
    await eventLoopTurns();
    const changed = answers.pages();
    if (!changed) return;
    this.answer(answers.files, changed);
    await eventLoopTurns();
  };

  /**
   * A rebuild's onChecked: the item files made again from the checked content, or none; the
   * catalog pages too, unless they were answered already (they would take as long again).
   */
  answerEarly = (content: Content): void => {
    if (!this.served) return;
    const answers = earlyAnswers(this.served.built, content, this.unserved);
    this.answer(answers?.files, answers && (this.pages?.bodies ?? answers.pages()));
  };

  /**
   * Whether the running build answered the whole of its changes, its catalog pages too: then it
   * may stop, its answers kept (dropEarly), since the served tree with them is the tree it would
   * write. A build that answered less runs to its end, so that every edit shows, also while saves
   * keep coming.
   */
  get answeredWhole(): boolean {
    // Pages are answered only with item files.
    return this.pages !== undefined;
  }

  /** Serves a good build's tree, at `root`, built from `content`, with the previews the build rendered. */
  async swapIn(root: string, content: Content, previews: BuiltTree['previews']): Promise<void> {
    const { manifest, text } = await readManifest(root, 'the build');
    const rewrites = hasRewrites(this.options.like ?? 'github-pages');
    const tree = { root, manifest, rules: headerRules(content), search: searchAnswers(content), rewrites };
    const built = { content, manifest: text, settings: this.settings, previews };
    this.served = { tree, built };
    this.state.tree = tree;
    this.state.headerSource = 'content';
    this.unserved.clear();
    // Its files hold what it and the builds stopped before it answered.
    this.kept = this.own = this.early = new Map();
    this.pages = undefined;
    // Ahead of the next edit, whose catalog pages are compared with these lists.
    setImmediate(() => listCatalogs(built));
  }

  /**
   * The running build ended. Stopped, what it answered is served on, as the tree it would have
   * written (answeredWhole); failed, its answers are dropped, and those of builds stopped before it
   * served on; swapped in, its tree has them all.
   */
  dropEarly(): void {
    if (this.stopped) this.kept = this.early;
    this.stopped = false;
    this.settings = undefined;
    this.answer(undefined);
    this.told = new Set();
  }

  /** Serves `files` (and the pages `withPages`) as the running build's answers, over those kept; false for none. */
  private answer(files: ReadonlyMap<string, string | null> | undefined, withPages?: ReadonlyMap<string, string>): boolean {
    const answered = this.served !== undefined && files !== undefined && files.size > 0;
    if (!answered) this.pages = undefined;
    else if (withPages !== this.pages?.bodies) this.pages = withPages && { bodies: withPages, encoded: encoded(withPages) };
    this.own = answered ? new Map([...encoded(files), ...(this.pages?.encoded ?? [])]) : new Map();
    // With its pages, what it answers is all its content changes from the served tree: those
    // kept go (a page that an earlier save changed and a later one changed back is as served).
    // Until then its item files are served over them, as over the served tree's pages.
    const answers = this.kept.size === 0 || this.pages !== undefined ? this.own : new Map([...this.kept, ...this.own]);
    const added = [...this.own.keys()].filter((path) => !this.told.has(path));
    for (const path of added) this.told.add(path);
    this.early = answers;
    if (this.served) this.state.tree = answers.size > 0 ? { ...this.served.tree, early: answers } : this.served.tree;
    if (added.length > 0)
      this.options.onEarly?.(
        added,
        added.filter((path) => this.own.get(path) === null),
      );
    return answered;
  }
}

/**
 * Bodies as served; null, a file removed. A page written in both orders of its extras is one body
 * under two paths, next to each other: encoded once.
 */
function encoded(bodies: ReadonlyMap<string, string | null>): [string, Buffer | null][] {
  let last: { body: string; bytes: Buffer } | undefined;
  return [...bodies].map(([path, body]) => {
    if (body === null) return [path, null];
    if (last?.body !== body) last = { body, bytes: Buffer.from(body) };
    return [path, last.bytes];
  });
}

/** The options of every build of one server, but the folder it writes. */
function buildSettings(contentDir: string, baseUrl: string, options: ServeOptions): BuildOptions {
  return {
    contentDir,
    baseUrl,
    hosts: [],
    maxFileSize: options.maxFileSize,
    allowCredentialsInOutput: options.allowCredentialsInOutput,
    // The header rules the server answers with come from the content: always check it.
    reuse: false,
    // An edit's build parses and checks only its file, and renders few previews.
    kept: keptBetweenBuilds(),
  };
}

const ROOT_POLL_MS = 250;

/**
 * One watcher per folder of the content, not per file: a folder's watcher sees its files written,
 * created, removed and renamed over. (Node 20's recursive fs.watch on Linux watches each file and
 * goes deaf to a file that an editor saved by renaming a new one over it.) sync() walks the tree
 * again and watches new folders. Folders that load() skips (`.*`, node_modules) are not watched.
 * Exported for its tests.
 */
export function watchFolders(root: string, onChange: () => void): { sync(): Promise<void>; close(): void } {
  const watchers = new Map<string, { ino: number; watcher: FSWatcher }>();
  // A sync still walking when the server stops must watch nothing: a watcher made after close()
  // kept the process from ever exiting.
  let closed = false;
  // The content folder itself gone (deleted, or moved away and back): no folder is left to
  // watch, so its path is polled until it is there again.
  let polled = false;
  const back = (now: Stats) => {
    if (now.ino !== 0) onChange();
  };
  const poll = () => {
    if (polled || closed) return;
    polled = true;
    watchFile(root, { interval: ROOT_POLL_MS }, back);
    // Back already, before the poll's first look: that look would see no change.
    void stat(root).then(onChange, () => undefined);
  };
  const unpoll = () => {
    if (polled) unwatchFile(root, back);
    polled = false;
  };
  const skipped = (name: string) => name.startsWith('.') || name === 'node_modules';

  const walk = async (dir: string, found: Map<string, number>): Promise<void> => {
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return;
    found.set(dir, info.ino);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((e) => e.isDirectory() && !skipped(e.name)).map((e) => walk(path.join(dir, e.name), found)));
  };
  const unwatch = (dir: string) => {
    watchers.get(dir)?.watcher.close();
    watchers.delete(dir);
  };

  return {
    async sync() {
      const found = new Map<string, number>();
      await walk(root, found);
      if (closed) return;
      if (found.has(root)) unpoll();
      else poll();
      for (const [dir, { ino }] of watchers) if (found.get(dir) !== ino) unwatch(dir);
      for (const [dir, ino] of found) {
        if (watchers.has(dir)) continue;
        try {
          // Swap files and what load() skips do not trigger a build.
          const watcher = watch(dir, (_event, name) => (name && skipped(name) ? undefined : onChange()));
          // A removed folder: forget it; the next build's sync sees what is there now.
          watcher.on('error', () => {
            if (watchers.get(dir)?.watcher === watcher) unwatch(dir);
            onChange();
          });
          watchers.set(dir, { ino, watcher });
        } catch {
          // The folder went away since the walk; the next sync will not find it either.
        }
      }
    },
    close() {
      closed = true;
      unpoll();
      for (const dir of [...watchers.keys()]) unwatch(dir);
    },
  };
}
