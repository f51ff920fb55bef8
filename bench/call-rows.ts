import { toolCall } from './harness';

/** One row of the single-call and batch-entry figures: which backend, which shape, how many connections. */
export interface CallRow {
  name: string;
  server: 'null' | 'nullstdio';
  shape: 'single' | 'batch';
  connections: number;
}

/** Entries in each batch of these rows. */
export const BATCH_SIZE = 25;

/** The single-call and batch-entry rows of `npm run bench` (sections 1 and 2). */
export const ROWS: CallRow[] = (['null', 'nullstdio'] as const).flatMap((server) =>
  [1, 16].flatMap((connections) =>
    (['single', 'batch'] as const).map((shape) => ({
      name: `${server === 'null' ? 'HTTP' : 'stdio'}, ${shape === 'single' ? 'single call' : `batch of ${BATCH_SIZE}, per entry`}, ${connections} conn${connections > 1 ? 's' : ''}`,
      server,
      shape,
      connections,
    })),
  ),
);

/** The request body of a row: one `invoke_read_tool`, or a batch of `fast` calls. */
export const bodyOf = (row: Pick<CallRow, 'server' | 'shape'>): string =>
  row.shape === 'single'
    ? toolCall('invoke_read_tool', { name: 'fast', server: row.server })
    : toolCall('invoke_read_tool_batch', { calls: Array.from({ length: BATCH_SIZE }, () => ({ name: 'fast', server: row.server })) });

/** True when an answer of a row's request says every call succeeded. */
export const okBody = (body: string): boolean => body.includes('"status":"ok"') || body.includes('"failed":0');
