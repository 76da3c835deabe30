// What a build says about a configurable addon's trees: how many there are, for the host report,
// and the configurations whose folders it removed, for a warning.
import { problem, type Diagnostic } from '../diagnostics/index.js';
import { configurationCount, treeCount } from '../shared/configurations.js';
import type { Content } from '../shared/content.js';

/** How many trees a configurable addon is written in, for the host report. */
export function trees(content: Content): { trees: number; configurations: number } | undefined {
  if (content.config.length === 0) return undefined;
  const required = content.addon.behaviorHints?.configurationRequired;
  return { trees: treeCount(content.config, required), configurations: configurationCount(content.config) };
}

/**
 * The configurations whose folders this build removed: people who installed one get errors from
 * it until they install another. Once, from the build that removed them.
 */
export function removedConfigurations(manifests: readonly string[]): Diagnostic[] {
  const folders = manifests.map((manifest) => manifest.slice(0, manifest.lastIndexOf('/'))).filter((folder) => folder !== '');
  if (folders.length === 0) return [];
  const examples = folders.slice(0, 3).join(', ') + (folders.length > 3 ? ', …' : '');
  return [problem('removed-configurations', { count: folders.length, examples }, {})];
}
