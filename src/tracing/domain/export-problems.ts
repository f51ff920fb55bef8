/** Longest detail a `trace export problem` line carries: the problem's own message, never a stack. */
const MAX_DETAIL_CHARS = 300;

/** One problem the OpenTelemetry SDK reported, as the router logs it. */
export interface ExportProblem {
  /**
   * What kind of problem it is: the error's code (`ECONNREFUSED`, `HTTP 400`) or, without one,
   * its message with the counts taken out (`Dropped # spans because maxQueueSize reached`).
   * The router logs each kind once.
   */
  kind: string;
  /** The message alone (no stack, no response body), cut to a few hundred characters. */
  detail: string;
}

/**
 * Reads a diagnostic message of the SDK's: either plain text, or an exception the SDK flattened
 * to JSON (every property as a string: `message`, `name`, `code`, `stack`, and for a refused export
 * the receiver's response as `data`).
 */
export function exportProblem(message: string): ExportProblem {
  const error = flattenedError(message);
  const text = error?.message ?? message;
  const code = error?.code;
  const kind = code !== undefined ? (/^\d{3}$/.test(code) ? `HTTP ${code}` : code) : text.replace(/\d+/g, '#');
  return { kind: kind.slice(0, MAX_DETAIL_CHARS), detail: text.slice(0, MAX_DETAIL_CHARS) };
}

/** The string fields of an exception the SDK flattened to JSON, or undefined for plain text. */
function flattenedError(message: string): { message?: string; code?: string } | undefined {
  if (!message.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    // Text that only looks like JSON is plain text.
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { message: text, code } = parsed as Record<string, unknown>;
  return { ...(typeof text === 'string' ? { message: text } : {}), ...(typeof code === 'string' && code !== '' ? { code } : {}) };
}
