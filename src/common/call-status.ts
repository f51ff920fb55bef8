/**
 * The final status of one read call (architecture §5). A closed union: it is both the wire value and the
 * Prometheus label set, so a new status fails to compile wherever statuses are mapped.
 */
export const CALL_STATUSES = ['ok', 'error', 'blocked', 'unknown_tool', 'invalid_cursor', 'invalid_call', 'confirmation_required'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/**
 * Which published tool a call came through, or which MCP method for a backend's resources and
 * prompts (architecture §16); a closed label set for metrics and audit.
 */
export type Entrypoint = 'invoke_read_tool' | 'batch' | 'invoke_tool' | 'read_resource' | 'get_prompt';
