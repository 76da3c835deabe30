// `resources` in addon.yaml, checked against what the content offers (shared/resources.ts): a
// resource, type or prefix declared for nothing is an error, since the client would ask this addon
// for what it does not have; one the content offers and the list leaves out is an error too.
import { formatPath, problem, type DiagnosticList } from '../diagnostics/index.js';
import type { Content } from '../shared/content.js';
import { offeredResources, type OfferedResource } from '../shared/resources.js';
import { checkIdsCovered } from './ids.js';
import type { Locator } from './issues.js';

type Declared = NonNullable<Content['addon']['resources']>[number];

export function checkResources(content: Content, at: Locator, diagnostics: DiagnosticList) {
  const declared = content.addon.resources;
  if (declared === undefined) return;
  const offered = new Map(offeredResources({ ...content, declaredPrefixes: content.addon.idPrefixes }).map((r) => [r.name, r]));
  const seen = new Set<string>();
  declared.forEach((entry, index) => {
    const name = typeof entry === 'string' ? entry : entry.name;
    const place = (...path: (string | number)[]) => ({ ...at(['resources', index, ...path]), path: formatPath(['resources', index, ...path]) });
    if (seen.has(name)) {
      diagnostics.push(problem('invalid-value', { kind: 'resource-twice', name }, place()));
      return;
    }
    seen.add(name);
    const offer = offered.get(name);
    if (typeof entry !== 'string' && name === 'addon_catalog' && (entry.types || entry.idPrefixes)) {
      diagnostics.push(problem('invalid-value', { kind: 'resource-catalog-typed', name }, place()));
    } else if (typeof entry !== 'string' && name === 'catalog' && (entry.types || entry.idPrefixes)) {
      diagnostics.push(problem('invalid-value', { kind: 'resource-catalog-typed' }, place()));
    } else if (!offer) diagnostics.push(problem('invalid-value', { kind: 'resource-unused', name }, place()));
    else if (typeof entry !== 'string') checkTyped(entry, offer, place, diagnostics);
  });
  for (const offer of offered.values()) {
    if (seen.has(offer.name)) continue;
    const example = offer.titles[0];
    const related = example ? [{ ...example.where(['id']), message: `"${example.id}", which ${offer.name} is offered for` }] : undefined;
    const named = offer.name === 'addon_catalog' ? content.addonCatalogs : content.catalogs;
    const params = { kind: 'resource-omitted', name: offer.name, example: example?.id ?? named[0]?.id ?? '' } as const;
    diagnostics.push(problem('invalid-value', params, { ...at(['resources']), path: 'resources', ...(related && { related }) }));
  }
}

type Place = (...path: (string | number)[]) => ReturnType<Locator> & { path: string };

/** A resource written with its types or prefixes: each must be offered, and cover all that is. */
function checkTyped(entry: Exclude<Declared, string>, offer: OfferedResource, place: Place, diagnostics: DiagnosticList) {
  const { name } = entry;
  if (entry.types) {
    entry.types.forEach((type, t) => {
      if (!offer.types.includes(type)) diagnostics.push(problem('invalid-value', { kind: 'resource-type-unused', name, type }, place('types', t)));
    });
    const omitted = offer.types.filter((type) => !entry.types!.includes(type));
    if (omitted.length > 0) diagnostics.push(problem('invalid-value', { kind: 'resource-types-omitted', name, types: omitted }, place('types')));
  }
  if (entry.idPrefixes) {
    const { path: _path, ...declared } = place('idPrefixes');
    const used = checkIdsCovered(offer.titles, entry.idPrefixes, { ...declared, message: `the idPrefixes of ${name}` }, name, diagnostics);
    entry.idPrefixes.forEach((prefix, p) => {
      if (!used.has(prefix)) diagnostics.push(problem('invalid-value', { kind: 'resource-prefix-unused', name, prefix }, place('idPrefixes', p)));
    });
  }
}
