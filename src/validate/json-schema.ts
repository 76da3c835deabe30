// addon-gen schema: JSON Schemas of the content files (addon.yaml, item files) generated from the zod
// schemas that validate them, so that editors complete, describe and check fields as they are typed.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../diagnostics/index.js';
import { contentSchemas, SOURCE_FIELD_NEEDS, STREAM_SOURCES } from './schema.js';

export const ADDON_SCHEMA_FILE = 'addon.schema.json';
export const ITEM_SCHEMA_FILE = 'item.schema.json';

export type JsonSchema = Record<string, unknown>;

/** One generated file: its name inside the schema folder and its text. */
export interface SchemaFile {
  path: string;
  body: string;
}

/**
 * The JSON Schemas of addon.yaml and of an item file (one document of it: an item, a list of
 * items, or nothing). Pure. They describe the files as written (zod's input side), and never
 * refuse what the build accepts; what they cannot say is left to `addon-gen validate`:
 * refinements (file names, dates that exist, URLs), local files, and checks across fields and items.
 *
 * Draft-07, not zod's default 2020-12: the YAML language server validates with draft-07 rules, and
 * reads 2020-12's tuples (`prefixItems` with `items: false`) as "no entry allowed".
 */
export function contentJsonSchemas(): { addon: JsonSchema; item: JsonSchema } {
  // Local file fields check their file while parsing; a JSON Schema of the input never parses.
  const schemas = contentSchemas((file) => ({ url: file }));
  const itemFile = z
    .union([schemas.item, z.array(schemas.item), z.null()])
    .describe('An addon-gen item file: each --- document is an item, a list of items, or empty');

  // Objects used in several places become named definitions; the rest stays inline.
  const names = new Map<z.core.$ZodType, string>([
    [schemas.item, 'item'],
    [schemas.video, 'video'],
    [schemas.stream, 'stream'],
    [schemas.subtitle, 'subtitle'],
  ]);
  const metadata = new NamedRegistry(names);

  const override = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }) => {
    refuseRegexFlags(zodSchema);
    if (zodSchema === schemas.stream) Object.assign(jsonSchema, streamSourceRules());
  };
  // `unrepresentable` stays "throw": a zod type with no JSON Schema form fails here (and in the
  // freshness test) instead of silently becoming {}.
  const generate = (schema: z.core.$ZodType): JsonSchema => z.toJSONSchema(schema, { target: 'draft-07', io: 'input', metadata, override });
  return { addon: generate(schemas.addon), item: generate(itemFile) };
}

/** The files `addon-gen schema` and `init` write, in path order. */
export function jsonSchemaFiles(): SchemaFile[] {
  const { addon, item } = contentJsonSchemas();
  return [
    { path: ADDON_SCHEMA_FILE, body: `${JSON.stringify(addon, null, 2)}\n` },
    { path: ITEM_SCHEMA_FILE, body: `${JSON.stringify(item, null, 2)}\n` },
  ];
}

export interface WrittenSchema {
  /** The path as shown: the folder as given, joined with the file name. */
  file: string;
  /** False when the file held these bytes already, and was left alone. */
  written: boolean;
}

/** Writes the schemas into `outDir` (created when missing); files with the same bytes are left alone. */
export async function writeJsonSchemas(outDir: string): Promise<WrittenSchema[]> {
  const written: WrittenSchema[] = [];
  try {
    await mkdir(outDir, { recursive: true });
  } catch (error) {
    throw new UsageError(`--out ${outDir}: ${reason(error)}`);
  }
  for (const { path: name, body } of jsonSchemaFiles()) {
    const file = path.join(outDir, name);
    const current = await readFile(file, 'utf8').catch(() => undefined);
    if (current === body) {
      written.push({ file, written: false });
      continue;
    }
    // A temporary file beside it, then a rename: an editor never reads half a schema.
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      await writeFile(temporary, body);
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw new UsageError(`cannot write ${file}: ${reason(error)}`);
    }
    written.push({ file, written: true });
  }
  return written;
}

/** What `addon-gen schema` prints: the files, and the first lines that use them in `content/`. */
export function jsonSchemaText(written: readonly WrittenSchema[], outDir: string, cwd = process.cwd()): string {
  const what: Record<string, string> = { [ADDON_SCHEMA_FILE]: 'addon.yaml', [ITEM_SCHEMA_FILE]: 'the item files' };
  const width = Math.max(...written.map((w) => w.file.length));
  const lines = ['JSON Schemas for editors:'];
  for (const w of written) {
    lines.push(`  ${w.file.padEnd(width)}  ${what[path.basename(w.file)]}${w.written ? '' : ' (unchanged)'}`);
  }
  // From a file directly in the default content folder, the way `init` lays a project out.
  const fromContent = path.relative(path.resolve(cwd, 'content'), path.resolve(cwd, outDir)).split(path.sep).join('/');
  lines.push(
    'Editors with the YAML language server use them for YAML files that start with a line naming',
    'one, relative to the file; for content/addon.yaml and for an item file in content/:',
    `  # yaml-language-server: $schema=${fromContent}/${ADDON_SCHEMA_FILE}`,
    `  # yaml-language-server: $schema=${fromContent}/${ITEM_SCHEMA_FILE}`,
  );
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// What zod cannot say by itself

/**
 * The stream rules of the schemas that JSON Schema can state, from the same tables: exactly one
 * source (`oneOf` of `required`), and fields that need a source (draft-07 `dependencies`).
 */
function streamSourceRules(): JsonSchema {
  return {
    oneOf: STREAM_SOURCES.map((source) => ({ required: [source] })),
    dependencies: Object.fromEntries(
      SOURCE_FIELD_NEEDS.map(([field, sources]) => [
        field,
        sources.length === 1 ? [...sources] : { anyOf: sources.map((source) => ({ required: [source] })) },
      ]),
    ),
  };
}

/**
 * zod writes a regex as its source alone, and JSON Schema patterns have no flags: `/[a-z]/i` would
 * refuse capitals that zod accepts. Content schemas spell such ranges out instead (`[a-zA-Z]`).
 */
function refuseRegexFlags(schema: z.core.$ZodType) {
  const patterns: unknown = schema._zod.bag.patterns;
  if (!(patterns instanceof Set)) return;
  for (const pattern of patterns) {
    if (pattern instanceof RegExp && pattern.flags.replace('u', '') !== '') {
      throw new Error(`${pattern} has flags, which a JSON Schema pattern cannot carry: write the regex without them`);
    }
  }
}

/** The global registry's metadata (descriptions), plus the names of the definitions. */
class NamedRegistry extends z.core.$ZodRegistry<z.core.GlobalMeta> {
  constructor(private readonly names: ReadonlyMap<z.core.$ZodType, string>) {
    super();
  }

  override get(schema: z.core.$ZodType): z.core.GlobalMeta | undefined {
    const meta = z.globalRegistry.get(schema);
    const id = this.names.get(schema);
    return id === undefined ? meta : { ...meta, id };
  }
}

function reason(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file is in the way of the folder';
  if (code === 'EISDIR') return 'a folder is in the way of the file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  return error instanceof Error ? error.message : String(error);
}
