// The install page (index.html), the configure page and the 404 page, rendered from templates/.
// (Interim version: replaced by the full template renderer.)
import type { Manifest } from './schema.js';

export interface PageTemplates {
  install: string;
  configure: string;
  notFound: string;
}

export function renderPage(template: string, manifest: Manifest): string {
  return template.replace(/\{\{name\}\}/g, manifest.name);
}
