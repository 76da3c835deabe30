// The addon of bench/serve.ts written with the official SDK (stremio-addon-sdk), whose serveHTTP
// answers from memory: every answer the built tree at argv[2] holds, read once at the start and
// given back by the SDK's handlers. Run as `node sdk-addon.cjs <tree> <port>`; prints `ready`.
const { readFileSync, readdirSync } = require('node:fs');
const path = require('node:path');
const { addonBuilder, serveHTTP } = require('stremio-addon-sdk');

const [tree, port] = process.argv.slice(2);
const read = (...names) => JSON.parse(readFileSync(path.join(tree, ...names), 'utf8'));
/** Every `{resource}/{type}/{id}.json` of the tree, by resource, then `type/id`. */
const answers = { catalog: new Map(), meta: new Map(), stream: new Map() };
for (const [resource, byKey] of Object.entries(answers)) {
  for (const type of readdirSync(path.join(tree, resource), { withFileTypes: true })) {
    if (!type.isDirectory()) continue;
    for (const file of readdirSync(path.join(tree, resource, type.name))) {
      if (file.endsWith('.json')) byKey.set(`${type.name}/${file.slice(0, -'.json'.length)}`, read(resource, type.name, file));
    }
  }
}

const builder = new addonBuilder(read('manifest.json'));
const answer =
  (resource) =>
  async ({ type, id }) => {
    const found = answers[resource].get(`${type}/${id}`);
    if (!found) throw new Error(`no ${resource} for ${type}/${id}`);
    return found;
  };
builder.defineCatalogHandler(answer('catalog'));
builder.defineMetaHandler(answer('meta'));
builder.defineStreamHandler(answer('stream'));
serveHTTP(builder.getInterface(), { port: Number(port) }).then(() => console.log('ready'));
