// Problems found in content, as values: every stage returns them, one formatter prints them.
// codes.ts is the list of every code addon-gen can report, with its title; the message catalog
// (catalog*.ts) writes each code's message and hint from typed parameters, and the stages make
// their problems with `problem(code, params, place)`. docs/diagnostics.md documents each code
// (test/diagnostics.test.ts runs its examples). Formats: human, JSON, GitHub
// Actions commands.
export { CODES, mapDiagnosticFiles, type Diagnostic, type DiagnosticCode, type Location, type RelatedLocation, type Severity } from './codes.js';
export { errorCode, ioFailure, IoError, systemErrorMessage, systemErrorReason, UsageError } from './errors.js';
export { CATALOG, type CatalogEntry, type CataloguedCode } from './catalog.js';
export { isSyntaxCause, type SyntaxCause } from './catalog-load.js';
export type { LargestSource } from './catalog-plan.js';
export type { HlsPlaylist, PlaylistAttribute, PlaylistSyntax, PlaylistUnreadable } from './catalog-playlists.js';
export { problem, words, type MessageParams, type Place, type PlaceOf } from './problem.js';
export { printable, sourceExcerpt } from './excerpt.js';
export { formatDiagnostic, formatDiagnostics, useColor, type FormatOptions, type SourceLine } from './human.js';
export { DiagnosticList, hasErrors, MAX_PROBLEMS_PER_FILE, sortDiagnostics } from './list.js';
export { diagnosticJson, githubAnnotation, type AnnotationPaths, type DiagnosticJson, type RelatedLocationJson } from './machine.js';
export { closest, formatPath, suggester } from './suggest.js';
