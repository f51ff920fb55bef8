/** Tool annotations as a backend declares them (MCP spec, ToolAnnotations). Hints, not guarantees. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One backend tool in the catalog. */
export interface CatalogTool {
  /** Backend name (the `server` a caller names). */
  backend: string;
  /** Exact tool name as the backend publishes it. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The tool's `outputSchema`, when it declares one (pinned with the rest of its definition). */
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
}
