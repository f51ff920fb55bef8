import { toolCall } from './harness';

/** What one request of a row is: which backend, and a single call or a batch. */
export interface CallShape {
  name: string;
  server: 'null' | 'nullstdio';
  shape: 'single' | 'batch';
}

/** One row of the single-call and batch-entry figures: a shape at a number of connections. */
export interface CallRow extends CallShape {
  connections: number;
}

/** Entries in each batch of these rows. */
export const BATCH_SIZE = 25;

/** HTTP and stdio, each a single call and a batch (bench/instructions.ts counts these at 1 connection). */
export const CALL_SHAPES: CallShape[] = (['null', 'nullstdio'] as const).flatMap((server) =>
  (['single', 'batch'] as const).map((shape) => ({
    name: `${server === 'null' ? 'HTTP' : 'stdio'}, ${shape === 'single' ? 'single call' : `batch of ${BATCH_SIZE}, per entry`}`,
    server,
    shape,
  })),
);

/** The single-call and batch-entry rows of `npm run bench` (sections 1 and 2). */
export const ROWS: CallRow[] = (['null', 'nullstdio'] as const).flatMap((server) =>
  [1, 16].flatMap((connections) =>
    CALL_SHAPES.filter((s) => s.server === server).map((s) => ({ ...s, name: `${s.name}, ${connections} conn${connections > 1 ? 's' : ''}`, connections })),
  ),
);

/** The request body of a row: one `invoke_read_tool`, or a batch of `fast` calls. */
export const bodyOf = (row: Pick<CallRow, 'server' | 'shape'>): string =>
  row.shape === 'single'
    ? toolCall('invoke_read_tool', { name: 'fast', server: row.server })
    : toolCall('invoke_read_tool_batch', { calls: Array.from({ length: BATCH_SIZE }, () => ({ name: 'fast', server: row.server })) });

/** True when an answer of a row's request says every call succeeded. */
export const okBody = (body: string): boolean => body.includes('"status":"ok"') || body.includes('"failed":0');
