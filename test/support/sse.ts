/**
 * A Server-Sent Events client for tests and benchmarks (GET /v1/generations/:id/events): reads a stream as it
 * arrives and parses it into messages (id, event, data) and comments (heartbeats), each with its arrival time.
 */
export interface SseMessage {
  id?: string;
  event: string;
  data: any;
  at: number;
}

export interface SseStream {
  status: number;
  messages: SseMessage[];
  comments: { text: string; at: number }[];
  /** Resolves when the server ends the stream (or it is aborted). */
  ended: Promise<void>;
  close(): void;
}

/** Opens the stream; resolves once the answer's headers are in, while the body keeps being read. */
export async function openEvents(url: string, secret: string, lastEventId?: string): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${secret}`, Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
    signal: abort.signal,
  });
  const stream: SseStream = { status: res.status, messages: [], comments: [], ended: Promise.resolve(), close: () => abort.abort() };
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.text().catch(() => undefined);
    return stream;
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          parseBlock(buffer.slice(0, cut), stream);
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return stream;
}

function parseBlock(block: string, stream: SseStream): void {
  const at = Date.now();
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) stream.comments.push({ text: line.slice(1).trim(), at });
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trim());
  }
  if (data.length === 0) return;
  const text = data.join('\n');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  stream.messages.push({ ...(id === undefined ? {} : { id }), event, data: parsed, at });
}
