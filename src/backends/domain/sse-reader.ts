/**
 * Incremental reader of a `text/event-stream` body (WHATWG HTML "Server-sent events", the framing
 * a Streamable HTTP server may answer a POST with). Only what an MCP answer needs: `data` lines
 * joined by newlines, one event per blank line; `event`, `id`, `retry` and comments are skipped.
 * Each chunk is scanned once, so an 8 MiB event costs linear time however it is split.
 * Pure: text in, event data out.
 */
export class SseReader {
  /** The current line's text before the last chunk. */
  private pending = '';
  /** A CR ended the last chunk: it may be the first half of a CRLF. */
  private heldCR = false;
  private data: string[] = [];

  /** Feeds decoded text; returns the data of every event this text completed, in order. */
  push(text: string): string[] {
    let chunk = this.heldCR ? `\r${text}` : text;
    this.heldCR = chunk.endsWith('\r');
    if (this.heldCR) chunk = chunk.slice(0, -1);
    // CRLF, LF and a lone CR each end a line.
    if (chunk.includes('\r')) chunk = chunk.replace(/\r\n?/g, '\n');
    const events: string[] = [];
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      this.pending += chunk;
      return events;
    }
    this.takeLine(this.pending + chunk.slice(0, nl), events);
    let start = nl + 1;
    while ((nl = chunk.indexOf('\n', start)) !== -1) {
      this.takeLine(chunk.slice(start, nl), events);
      start = nl + 1;
    }
    this.pending = chunk.slice(start);
    return events;
  }

  private takeLine(line: string, events: string[]): void {
    if (line === '') {
      // An event whose data is empty is not dispatched (WHATWG, "dispatch the event"): servers
      // send one to prime the stream with an id.
      const data = this.data.join('\n');
      if (data !== '') events.push(data);
      this.data = [];
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    // One space after the colon belongs to the framing, not to the value.
    this.data.push(colon === -1 ? '' : line.slice(line.startsWith(' ', colon + 1) ? colon + 2 : colon + 1));
  }
}
