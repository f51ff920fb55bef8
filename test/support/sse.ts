/** The JSON-RPC messages of a server-sent event stream, one by one. */
export async function* sseMessages(response: Response): AsyncGenerator<unknown, void, undefined> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      let end = buffered.indexOf('\n\n');
      while (end < 0) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += value;
        end = buffered.indexOf('\n\n');
      }
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) yield JSON.parse(data);
    }
  } finally {
    await reader.cancel();
  }
}
