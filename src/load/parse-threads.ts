// Part of stage 1, load: the fast parse of item files. js-yaml is a sizeable part of a large
// build's main-thread time, so worker threads parse the next files while the main thread
// validates the values of the last ones. A parsed file comes back as JSON text: JSON.parse reads
// it faster than a structured clone (itself much faster than js-yaml), and gives every short
// string (`movie`, `eng`, a genre) once, not once per use. Values that JSON cannot carry come
// back as a structured clone: those with aliases (every alias of an anchor is one value, and
// stays one), and numbers such as .nan, .inf and -0.
// js-yaml stays at major version 4: version 5 is a rewrite without the `listener` that gives the
// spans below, and it is much slower. Figures: bench/README.md, 'Figures behind the code'
// ('Parse threads', 'Parses sent as JSON text', 'js-yaml 4').
import { createRequire } from 'node:module';
import jsYaml from 'js-yaml';
import { startThreadPool, threadProgram } from '../shared/thread-pool.js';

declare module 'js-yaml' {
  /** What js-yaml 4's loader keeps in its state beside what its types declare (the listener reads them). */
  interface State {
    /** How deeply the node being read is nested: 1 for a document's value. */
    depth: number;
    /** The node's anchor, if it has one. */
    anchor: string | null;
  }
}

/** Where js-yaml found a document: its value's text, and the text of each item of a list. */
export interface DocumentSpan {
  start: number;
  end: number;
  /** For a list, the start and end of each element, flat: [start0, end0, start1, end1, …]. */
  elements?: number[];
}

/** js-yaml's error, as much of it as the diagnostic uses (see yaml-errors.ts, jsYamlError). */
export interface FastError {
  message: string;
  reason?: string;
  mark?: { line: number; column: number };
}

export type FastParse =
  | {
      values: unknown[];
      spans: DocumentSpan[];
      /** Some node has an anchor: aliases may share values. */
      anchored: boolean;
      /** Some number is one that JSON cannot carry (NaN, an infinity, -0). */
      exotic: boolean;
      /** The short strings are shared already (the values came as JSON). */
      shared?: boolean;
    }
  | { error: FastError };

/**
 * The documents' values by the fast parser, and where each document and list element is in the
 * text; or the parser's error. js-yaml's listener sees each node open and close: it records the
 * spans, whether any node has an anchor, and replaces each string by the one `keep` gives.
 * js-yaml gives every alias of an anchor the same value instead of a copy, so even a billion
 * laughs parses in linear time and memory; the aliases are limited after (yaml.ts, checkAliases).
 * It also runs inside worker threads as the text of this function, so it may use only its arguments.
 */
function fastParse(text: string, yaml: typeof jsYaml, maxDepth: number, keep: (text: string) => string): FastParse {
  const spans: DocumentSpan[] = [];
  let anchored = false;
  let exotic = false;
  let elementStart = 0;
  const listener = (event: jsYaml.EventType, state: jsYaml.State) => {
    const { depth, position, anchor } = state;
    if (event === 'open') {
      if (depth === 1) spans.push({ start: position, end: position, elements: [] });
      else if (depth === 2) elementStart = position;
      return;
    }
    if (anchor != null) anchored = true;
    // The parser takes the node's value from `state.result` after this event.
    if (typeof state.result === 'string') state.result = keep(state.result);
    else if (typeof state.result === 'number' && (!Number.isFinite(state.result) || Object.is(state.result, -0))) exotic = true;
    const span = spans[spans.length - 1]!;
    if (depth === 2) span.elements?.push(elementStart, position);
    else if (depth === 1) {
      span.end = position;
      // An empty entry (`-` alone) has no node of its own, a pair in a flow list (`[a: b]`) two:
      // elements are known only when there is one span for each.
      if (!Array.isArray(state.result) || span.elements!.length !== 2 * state.result.length) delete span.elements;
    }
  };
  try {
    // CORE_SCHEMA, like `yaml`'s default: dates stay text (the schema checks them), `yes` is text.
    // js-yaml refuses nesting beyond maxDepth itself, before its recursion overflows the stack.
    const options = { schema: yaml.CORE_SCHEMA, listener, maxDepth };
    const values = yaml.loadAll(text, undefined, options);
    // Likewise one span for each document, or none at all.
    return { values, spans: spans.length === values.length ? spans : [], anchored, exotic };
  } catch (error) {
    // Syntax errors, duplicate keys, nesting, unknown aliases: the careful path says where and why.
    // Read field by field: anything may be thrown.
    const thrown: object = typeof error === 'object' && error !== null ? error : {};
    const message = 'message' in thrown ? thrown.message : undefined;
    const reason = 'reason' in thrown ? thrown.reason : undefined;
    const mark = 'mark' in thrown && typeof thrown.mark === 'object' && thrown.mark !== null ? thrown.mark : {};
    const line = 'line' in mark ? mark.line : undefined;
    const column = 'column' in mark ? mark.column : undefined;
    return {
      error: {
        message: String(message),
        ...(typeof reason === 'string' && { reason }),
        ...(typeof line === 'number' && typeof column === 'number' && { mark: { line, column } }),
      },
    };
  }
}

/** `fastParse` on the calling thread. */
export function parseFast(text: string, maxDepth: number, keep: (text: string) => string): FastParse {
  return fastParse(text, jsYaml, maxDepth, keep);
}

/** The thread's program: texts in, parses out. */
const THREAD_PROGRAM = threadProgram(`
const yaml = require(workerData.jsYaml);
const fastParse = ${fastParse.toString()};
// A clone is a copy anyway: strings need no keeping here (yaml.ts shares them on the main thread).
const same = (text) => text;
const handle = (text) => {
  let parse;
  try {
    parse = fastParse(text, yaml, workerData.maxDepth, same);
    // Trees of what JSON carries go as JSON text (see the top of this file).
    if (parse.values && !parse.anchored && !parse.exotic) parse = { json: JSON.stringify(parse.values), spans: parse.spans };
  } catch (error) {
    parse = { error: { message: 'the YAML parser failed: ' + (error && error.message) } };
  }
  return { result: parse };
};
`);

/** A parse as a thread sends it: values without aliases or exotic numbers come as JSON text. */
type ThreadParse = FastParse | { json: string; spans: DocumentSpan[] };

/**
 * Files sent ahead to each thread. The first 2,000 items are checked by zod's runtime parser
 * (validate/index.ts, COMPILE_ITEM_SCHEMA_AT), more slowly than the thread parses their files:
 * with a few files ahead the thread waits for its next one, with 32 it hardly does (figures:
 * bench/README.md, 'Files ahead').
 */
const AHEAD_PER_THREAD = 32;

/** Texts sent ahead beyond one file per thread add up to less than this: it bounds the parses held. */
const AHEAD_BYTES = 16 * 1024 * 1024;

/**
 * The parses of `texts`, in order, by `threads` worker threads that work ahead of the caller.
 * The threads end when the iteration does, however it ends. A thread that fails (out of memory,
 * say) makes the iteration throw.
 */
export async function* parseInThreads(texts: readonly string[], threads: number, maxDepth: number): AsyncGenerator<FastParse> {
  const workerData = { jsYaml: createRequire(import.meta.url).resolve('js-yaml'), maxDepth };
  // Never the reason the process stays alive, should a caller stop iterating without ending it.
  const pool = startThreadPool<string, ThreadParse>({ threads, program: THREAD_PROGRAM, workerData, unref: true });
  const promises: Promise<ThreadParse>[] = [];
  let sent = 0;
  let bytesAhead = 0;
  const sendAhead = (taken: number) => {
    while (sent < texts.length && sent - taken < threads * AHEAD_PER_THREAD && (sent - taken < threads || bytesAhead < AHEAD_BYTES)) sendNext();
  };
  const sendNext = () => {
    const id = sent++;
    bytesAhead += texts[id]!.length;
    // To the least busy thread: files are of similar size, and each thread has several queued.
    promises[id] = pool.run(texts[id]!);
    // Rejected while earlier ones are awaited: handled when its turn comes, or never (the first throws).
    promises[id].catch(() => {});
  };
  try {
    sendAhead(0);
    for (let i = 0; i < texts.length; i++) {
      const parse = await promises[i]!;
      delete promises[i];
      bytesAhead -= texts[i]!.length;
      sendAhead(i + 1);
      // Read as it is asked for: a file's values are made only when their turn comes.
      yield 'json' in parse ? { values: jsonValues(parse.json), spans: parse.spans, anchored: false, exotic: false, shared: true } : parse;
    }
  } finally {
    await pool.close();
  }
}

/** The values a thread sent as JSON text: the array of a file's documents. */
function jsonValues(json: string): unknown[] {
  const values: unknown = JSON.parse(json);
  if (!Array.isArray(values)) throw new Error('a parse thread sent values that are not a list of documents');
  return values;
}
