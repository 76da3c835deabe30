// Checks a whole built tree as a client would see it: every JSON file parses with one resource
// field and matches its response schema, and every catalog (and genre) pages from its first page
// to an empty one.
import { expect } from 'vitest';
import { CatalogResponse, Manifest } from '../../src/validate/schema.js';
import { clientRequest, envelopeProblems, hostFileFor } from './envelope.js';

/**
 * Walks one catalog as a client does: the first page without `skip`, then `skip=<items so far>`
 * until a page is empty. `order` is where the genre goes: stremio-core puts the extra it set last
 * first (`skip=100&genre=…`); other clients write `genre=…&skip=100`.
 */
export function walkCatalog(
  tree: Map<string, Buffer>,
  type: string,
  id: string,
  genre?: string,
  order: 'skip-first' | 'genre-first' = 'skip-first',
): { ids: string[]; requests: string[] } {
  const ids: string[] = [];
  const requests: string[] = [];
  for (let page = 0; page < 10_000; page++) {
    const extras: [string, string][] = [];
    if (page > 0) extras.push(['skip', String(ids.length)]);
    if (genre) order === 'skip-first' ? extras.push(['genre', genre]) : extras.unshift(['genre', genre]);
    const request = clientRequest('catalog', type, id, extras);
    requests.push(request);
    const file = tree.get(hostFileFor(request));
    if (!file) throw new Error(`no file for ${request}`);
    const { metas } = CatalogResponse.parse(JSON.parse(file.toString()));
    if (metas.length === 0) return { ids, requests };
    expect(metas.length).toBeLessThanOrEqual(100);
    ids.push(...metas.map((m) => m.id));
  }
  throw new Error('paging never ended');
}

/** Every JSON file is accepted whole, and every catalog and genre of the manifest pages to its end. */
export function checkTree(tree: Map<string, Buffer>): void {
  for (const [file, bytes] of tree) {
    if (!file.endsWith('.json') || file === 'vercel.json') continue;
    const problems = envelopeProblems(file, bytes.toString('utf8'));
    if (problems.length > 0) throw new Error(`${file}: ${problems.join('; ')}`);
  }
  const manifest = Manifest.parse(JSON.parse(tree.get('manifest.json')!.toString()));
  for (const catalog of manifest.catalogs) {
    const all = walkCatalog(tree, catalog.type, catalog.id).ids;
    expect(new Set(all).size, catalog.id).toBe(all.length);
    for (const genre of catalog.extra.find((e) => e.name === 'genre')?.options ?? []) {
      const forward = walkCatalog(tree, catalog.type, catalog.id, genre, 'skip-first').ids;
      expect(walkCatalog(tree, catalog.type, catalog.id, genre, 'genre-first').ids).toEqual(forward);
      expect(
        forward.every((id) => all.includes(id)),
        `${catalog.id} ${genre}`,
      ).toBe(true);
    }
  }
}
