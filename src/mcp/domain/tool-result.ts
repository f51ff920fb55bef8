/** A `tools/call` result as the router sends it: structured, with its JSON text copy for old clients. */
export interface ToolCallResult {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export function toolResult(structured: Record<string, unknown>, isError: boolean): ToolCallResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError };
}

export function toolError(structured: Record<string, unknown>): ToolCallResult {
  return toolResult(structured, true);
}
