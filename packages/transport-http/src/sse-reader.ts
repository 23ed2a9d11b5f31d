/**
 * Reading an event stream that answers a Streamable HTTP client: its events to their end, an
 * event's id, data and the server's `retry`, and the bound of `maxMessageBytes` on each event.
 *
 * @module
 */
import { TransportError } from '@jsonrpc-kit/core';
import { createSseParser } from './sse.js';

/**
 * How reading a stream ended: `ended` cleanly, `dropped` broken off, `too-large` an event grew
 * past `maxMessageBytes`, `settled` nothing more is wanted from it.
 */
export type EventsEnd = 'ended' | 'dropped' | 'too-large' | 'settled';

/**
 * Reads an event stream to its end: `ended` when it ended cleanly, `dropped` when it broke off,
 * `too-large` when an event grew past `maxMessageBytes`, `settled` when `settled()` said after a
 * chunk that nothing more is wanted from it (the stream is cancelled in both, which aborts its
 * exchange).
 *
 * @param body - the stream
 * @param maxMessageBytes - the most characters an event may have
 * @param onId - called with each event's id
 * @param onMessage - called with each `message` event's data
 * @param settled - whether nothing more is wanted, asked after each chunk
 * @param onRetry - called with the server's `retry`, in ms
 * @returns how it ended
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  maxMessageBytes: number,
  onId: (id: string) => void,
  onMessage: (data: string) => void,
  settled?: () => boolean,
  onRetry?: (ms: number) => void,
): Promise<EventsEnd> {
  const decoder = new TextDecoder();
  let tooLarge = false;
  const parser = createSseParser((event) => {
    if (tooLarge || event.data.length > maxMessageBytes) {
      tooLarge = true;
      return;
    }
    if (event.id !== undefined) onId(event.id);
    if (event.event !== 'message' || event.data === '') return;
    onMessage(event.data);
  }, onRetry);
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'ended';
      parser.push(decoder.decode(value, { stream: true }));
      if (tooLarge || parser.buffered > maxMessageBytes) {
        await reader.cancel().catch(() => undefined);
        return 'too-large';
      }
      if (settled?.() === true) {
        await reader.cancel().catch(() => undefined);
        return 'settled';
      }
    }
  } catch {
    return 'dropped';
  } finally {
    reader.releaseLock();
  }
}

/**
 * The error of a stream dropped for an event over `maxMessageBytes`.
 *
 * @param what - which stream, for the message
 * @param maxMessageBytes - the bound
 * @returns the error
 */
export function overLimit(what: string, maxMessageBytes: number): TransportError {
  return new TransportError(
    `${what}: an event over maxMessageBytes (${maxMessageBytes} characters)`,
  );
}
