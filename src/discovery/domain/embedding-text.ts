import { createHash } from 'node:crypto';
import { isJsonObject } from '../../common/json-object';
import type { CatalogTool } from '../../registry/registry.types';
import { cleanText } from '../../registry/domain/sanitize';

/**
 * The text of a tool that an embeddings endpoint sees (`discovery.embeddings`): its name, title, description
 * and parameters, cleaned as a model reading `find_tool` sees them. The backend's name is left
 * out, so the same tool served by two backends is one text, embedded once. Pure.
 */

/**
 * Longest text sent per tool. Embedding models read 512 (many served by TEI, which refuses longer
 * inputs unless told to truncate) to 8,192 tokens; 1,200 characters stay under 512 tokens even for
 * token-dense text (about 2.5 characters a token), and a tool's first lines say what it does.
 */
export const MAX_EMBEDDING_TEXT_CHARS = 1200;
const MAX_PARAMS = 40;
const MAX_PARAM_DESCRIPTION_CHARS = 200;

/** The cleaned definition of `tool` as one line of text. */
export function embeddingText(tool: CatalogTool): string {
  const title = tool.annotations?.title;
  const head = title === undefined || title.trim() === '' ? tool.name : `${tool.name} (${title})`;
  const params = paramTexts(tool.inputSchema);
  const text = `${head}: ${tool.description}${params.length > 0 ? `. Parameters: ${params.join('; ')}` : ''}`;
  return cleanText(text, MAX_EMBEDDING_TEXT_CHARS);
}

/** SHA-256 of an embedding text in hex: the key its vector is cached under. */
export function embeddingKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function paramTexts(schema: Record<string, unknown>): string[] {
  const properties = schema['properties'];
  if (!isJsonObject(properties)) return [];
  return Object.entries(properties)
    .slice(0, MAX_PARAMS)
    .map(([name, prop]) => {
      // An array has no `description` either: the check is the one every other object field gets.
      const description = isJsonObject(prop) ? prop.description : undefined;
      return typeof description === 'string' && description.trim() !== '' ? `${name} (${cleanText(description, MAX_PARAM_DESCRIPTION_CHARS)})` : name;
    });
}
