// The public API of addon-gen as a library: the pipeline stages and the server behind the CLI.
export { build, type BuildOptions, type BuildResult, type Progress, type Stage } from './build/index.js';
export { run } from './cli/index.js';
export {
  CODES,
  diagnosticJson,
  DiagnosticList,
  formatDiagnostics,
  githubAnnotation,
  IoError,
  UsageError,
  useColor,
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticJson,
} from './diagnostics/index.js';
export { headerRules, headersFor, hostReport, HOSTS, type Host, type HeaderRule } from './hosts/index.js';
export { initProject, renderInitFiles, readInitTemplates, type InitFile, type InitOptions, type InitResult } from './cli/init.js';
export { contentJsonSchemas, writeJsonSchemas } from './validate/json-schema.js';
export { loadContent, type Loaded } from './load/index.js';
export { withAddonManifests } from './load/addon-manifests.js';
export { plan, catalogPages, PAGE_SIZE, type OutputFile, type Plan } from './plan/index.js';
export { resourcePath, resourceUrlPath } from './shared/paths.js';
export { route, startServer, type AddonServer, type ServeOptions } from './serve/index.js';
export type { Manifest, MetaItem, MetaItemPreview, Stream, Subtitle, Video } from './validate/schema.js';
export { expandVariables, secretPolicy, type Environment, type SecretPolicy } from './validate/secrets.js';
export { validate, type Content } from './validate/index.js';
export { writeOutput, type WriteResult } from './write/index.js';
