// The public API of addon-gen as a library: the pipeline stages and the server behind the CLI.
export { build, type BuildOptions, type BuildResult, type Progress, type Stage } from './build.js';
export { run } from './cli.js';
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
} from './diagnostics.js';
export { headerRules, headersFor, hostReport, HOSTS, type Host, type HeaderRule } from './hosts.js';
export { initProject, renderInitFiles, readInitTemplates, type InitFile, type InitOptions, type InitResult } from './init.js';
export { contentJsonSchemas, writeJsonSchemas } from './jsonschema.js';
export { loadContent, type Loaded } from './load.js';
export { plan, catalogPages, PAGE_SIZE, type OutputFile, type Plan } from './plan.js';
export { resourcePath, resourceUrlPath } from './paths.js';
export { route, startServer, type AddonServer, type ServeOptions } from './serve.js';
export type { Manifest, MetaItem, MetaItemPreview, Stream, Subtitle, Video } from './schema.js';
export { expandVariables, secretPolicy, type Environment, type SecretPolicy } from './secrets.js';
export { validate, type Content } from './validate.js';
export { writeOutput, type WriteResult } from './write.js';
