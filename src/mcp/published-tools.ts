import { MAX_BATCH_CALLS, MAX_ID_CHARS } from '../batch/domain/batch-input';
import { MAX_CURSOR_CHARS, MAX_NAME_CHARS, MAX_SERVER_CHARS } from '../batch/domain/read-call';
import { DRY_RUN_PARAMETERS } from '../batch/domain/write-call';
import { FIND_TOOL_LIMITS } from './domain/find-tool-input';

/**
 * The meta-tools the router publishes instead of every backend tool (architecture §1), so a model's
 * context holds three small definitions rather than hundreds.
 */
export const FIND_TOOL = 'find_tool';
export const INVOKE_READ_TOOL = 'invoke_read_tool';
export const INVOKE_READ_TOOL_BATCH = 'invoke_read_tool_batch';
export const INVOKE_TOOL = 'invoke_tool';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export const PUBLISHED_TOOLS = [
  {
    name: FIND_TOOL,
    title: 'Find a tool',
    description:
      'Search the catalog of every backend tool behind this router. Returns ranked hits with the exact ' +
      '`name` and `server` to pass to invoke_read_tool, whether the tool is read-only (only those can be ' +
      'called), and its parameters. Ask for `include_schema` to get the full input schema. When nothing ' +
      'matches, a `note` says why and `servers` lists what each server serves. Servers that are down are ' +
      'listed in `unavailable_servers`.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: FIND_TOOL_LIMITS.maxQueryChars, description: 'What you want to do, in plain words.' },
        top_k: {
          type: 'integer',
          minimum: FIND_TOOL_LIMITS.minTopK,
          maximum: FIND_TOOL_LIMITS.maxTopK,
          default: FIND_TOOL_LIMITS.defaultTopK,
          description: `How many hits (${FIND_TOOL_LIMITS.minTopK}..${FIND_TOOL_LIMITS.maxTopK}).`,
        },
        server: { type: 'string', minLength: 1, maxLength: FIND_TOOL_LIMITS.maxServerChars, description: 'Only tools of this backend.' },
        include_schema: { type: 'boolean', default: false, description: "Include each hit's JSON input schema." },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { title: 'Find a tool', ...readOnly, openWorldHint: false },
  },
  {
    name: INVOKE_READ_TOOL,
    title: 'Call a read-only tool',
    description:
      'Call one read-only backend tool by its exact name from find_tool. Tools that are not read-only are ' +
      'refused (status `blocked`). Large results are cut to a budget: when `truncated` is true and ' +
      '`next_cursor` is present, call again with the same name, server and arguments plus `cursor` to get ' +
      'the next part.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: MAX_NAME_CHARS, description: 'Exact tool name from find_tool.' },
        server: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_SERVER_CHARS,
          description: 'Backend name from find_tool; needed when several backends share the name.',
        },
        arguments: { type: 'object', description: "The tool's arguments (at most 20,000 bytes as JSON, 8 levels deep).", additionalProperties: true },
        cursor: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_CURSOR_CHARS,
          description: 'A next_cursor from an earlier truncated call with the same arguments.',
        },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { title: 'Call a read-only tool', ...readOnly },
  },
  {
    name: INVOKE_READ_TOOL_BATCH,
    title: 'Call several read-only tools',
    description:
      'Up to 25 read-only calls in one round trip, run one after another in order. Answers one result ' +
      'per call, in order, each with its `id` (default: its index) and `status`; one call failing never ' +
      'stops the others. `ok` is true only when every call succeeded; `failed_ids` lists the rest. A cut ' +
      "result carries `next_cursor`: pass it as that call's `cursor` (same name and arguments) to continue.",
    inputSchema: {
      type: 'object',
      properties: {
        calls: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BATCH_CALLS,
          description: `The calls, 1..${MAX_BATCH_CALLS}.`,
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: MAX_NAME_CHARS, description: 'Exact tool name from find_tool.' },
              server: { type: 'string', minLength: 1, maxLength: MAX_SERVER_CHARS, description: 'Backend name from find_tool, when several share the name.' },
              arguments: { type: 'object', additionalProperties: true, description: "The tool's arguments (at most 20,000 bytes, 8 levels)." },
              id: { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS, description: 'Your label for this call; unique in the batch.' },
              cursor: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_CHARS, description: 'A next_cursor from an earlier cut result of the same call.' },
            },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      required: ['calls'],
      additionalProperties: false,
    },
    annotations: { title: 'Call several read-only tools', ...readOnly },
  },
] as const;

/**
 * The write path (architecture §11.2), published only when the operator enables `writes`: one call
 * of a tool that is not read-only, with a confirmation round trip for destructive ones.
 */
export const INVOKE_TOOL_DEFINITION = {
  name: INVOKE_TOOL,
  title: 'Call a tool that changes something',
  description:
    'Call one backend tool that is not read-only (read-only ones go through invoke_read_tool), by its exact ' +
    'name from find_tool. A tool that may destroy data first answers `status: confirmation_required` with a ' +
    'summary and a `confirmation`: call again with the same name, server and arguments plus `confirm` set ' +
    'to it to run the tool (single use, valid 120 s). A tool with a dry-run parameter ' +
    `(${DRY_RUN_PARAMETERS.map((p) => `\`${p}\``).join(' or ')}, whichever its schema spells) runs without confirmation ` +
    'when called with that parameter set to true. Never retried.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: MAX_NAME_CHARS, description: 'Exact tool name from find_tool.' },
      server: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_SERVER_CHARS,
        description: 'Backend name from find_tool; needed when several backends share the name.',
      },
      arguments: { type: 'object', description: "The tool's arguments (at most 20,000 bytes as JSON, 8 levels deep).", additionalProperties: true },
      confirm: { type: 'string', minLength: 1, maxLength: 2048, description: 'The `confirmation` from the answer that asked for it, for the same call.' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { title: 'Call a tool that changes something', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} as const;
