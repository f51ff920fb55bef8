/**
 * A `tools/call` result as the router sends it: `structuredContent`, with its JSON text copy in
 * `content` for old clients (MCP spec 2025-06-18, "Structured Content"), and `isError`. Built as
 * JSON text from the structured content's JSON, serialized once by whoever produced it: the
 * structured content goes in as that text, and the copy is that text escaped as a string. The same
 * bytes as `JSON.stringify({ content: [{ type: 'text', text }], structuredContent, isError })`.
 */
export function toolResultJson(structuredJson: string, isError: boolean): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(structuredJson)}}],"structuredContent":${structuredJson},"isError":${isError}}`;
}

/** A result from a structured content object not serialized yet. */
export function toolResult(structured: Record<string, unknown>, isError: boolean): string {
  return toolResultJson(JSON.stringify(structured), isError);
}

export function toolError(structured: Record<string, unknown>): string {
  return toolResult(structured, true);
}
