// The single source of truth for the protocol's types and for the content format.
// One factory describes each object once; protocol (output) and content (input) differ only in
// their leaves: content URLs may be local files, dates may be bare, archive entries may be plain.
// This module is their surface: protocol-schema.ts and content-schema.ts, made by the factory in
// schema-factory.ts from the leaves in schema-leaves.ts.
export * from './protocol-schema.js';
export * from './content-schema.js';
export { SOURCE_FIELD_NEEDS, STREAM_SOURCES } from './schema-factory.js';
export { absoluteUrl, codedIssue, fileName, genreName, isAbsoluteUrl, toRfc3339, IssueParams } from './schema-leaves.js';
export { fileNameProblem } from '../shared/paths.js';
