// The disk floor: writes the files listed in LIST (relative path and size) below DEST with plain
// writeFile calls, no parsing or validation, with the build's concurrency and thread pool.
//   node floor.mjs LIST DEST   ->   prints {"files": N, "bytes": N}
process.env.UV_THREADPOOL_SIZE ??= '16';
const { mkdir, readFile, writeFile } = await import('node:fs/promises');
const path = await import('node:path');

const [listFile, dest] = process.argv.slice(2);
const list = JSON.parse(await readFile(listFile, 'utf8'));
const made = new Map();
let next = 0;
let bytes = 0;
const worker = async () => {
  while (next < list.length) {
    const [relative, size] = list[next++];
    const target = path.join(dest, relative);
    const dir = path.dirname(target);
    if (!made.has(dir)) made.set(dir, mkdir(dir, { recursive: true }));
    await made.get(dir);
    await writeFile(target, Buffer.alloc(size, 120));
    bytes += size;
  }
};
await Promise.all(Array.from({ length: 32 }, worker));
console.log(JSON.stringify({ files: list.length, bytes }));
