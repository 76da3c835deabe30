// The files a build of CONTENT writes, in the order it writes them (its plan's), with their sizes
// in LISTED (that build's output): the list the disk floor writes.
//   node plan-order.mjs CONTENT LISTED LIST   ->   writes LIST as [[path, size], ...]
// A process of its own: the plan of the large benchmark takes a few hundred megabytes, which the
// benchmark's process would otherwise hold, and collect at some point while the steps it times run.
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from '../lib/index.js';

const [content, listed, listFile] = process.argv.slice(2);
const sizes = new Map();
for (const entry of await readdir(listed, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const file = path.join(entry.parentPath, entry.name);
  sizes.set(path.relative(listed, file).split(path.sep).join('/'), (await stat(file)).size);
}
const { files = [] } = await build({ contentDir: content });
const list = files.filter((file) => sizes.has(file.path)).map((file) => [file.path, sizes.get(file.path)]);
if (list.length !== sizes.size) throw new Error(`the plan has ${list.length} of the ${sizes.size} files the build wrote`);
await writeFile(listFile, JSON.stringify(list));
