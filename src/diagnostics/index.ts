// Problems found in content, as values: every stage returns them, one formatter prints them.
// The catalog (codes.ts) is the list of every code addon-gen can report; docs/diagnostics.md
// documents each (test/diagnostics.test.ts runs its examples). Formats: human, JSON, GitHub
// Actions commands.
export { CODES, mapDiagnosticFiles, type Diagnostic, type DiagnosticCode, type Location, type RelatedLocation, type Severity } from './codes.js';
export { errorCode, ioFailure, IoError, systemErrorMessage, systemErrorReason, UsageError } from './errors.js';
export { printable, sourceExcerpt } from './excerpt.js';
export { formatDiagnostic, formatDiagnostics, useColor, type FormatOptions, type SourceLine } from './human.js';
export { DiagnosticList, hasErrors, MAX_PROBLEMS_PER_FILE, sortDiagnostics } from './list.js';
export { diagnosticJson, githubAnnotation, type AnnotationPaths, type DiagnosticJson, type RelatedLocationJson } from './machine.js';
export { closest, formatPath, suggester } from './suggest.js';
