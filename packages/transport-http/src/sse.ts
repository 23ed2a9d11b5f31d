/**
 * Server-Sent Events framing: encoding events, and an incremental parser that takes the stream
 * in chunks of any size. Imports no `node:` module.
 *
 * @module
 */

/** One parsed event. */
export interface SseEvent {
  /** The `id` field, or `undefined` when the event named none. */
  readonly id: string | undefined;
  /** The `event` field; `"message"` when absent. */
  readonly event: string;
  /** The `data` lines, joined with `\n`. */
  readonly data: string;
}

/**
 * Encodes one event: `id`, `event` (when not `message`), then one `data:` line per line of
 * `data` (`\r\n`, `\r` and `\n` all split), then the blank line that ends it.
 *
 * @param data - the payload (a JSON text)
 * @param id - the event id; omitted when `undefined`
 * @param event - the event type
 * @returns the event's text
 */
export function encodeSseEvent(data: string, id?: string, event = 'message'): string {
  let out = id === undefined ? '' : `id: ${id}\n`;
  if (event !== 'message') out += `event: ${event}\n`;
  // JSON text has no raw line breaks unless pretty-printed; the common case is one line.
  if (!data.includes('\n') && !data.includes('\r')) return `${out}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A keep-alive comment: ignored by every SSE parser, keeps proxies from closing an idle stream. */
export const SSE_KEEP_ALIVE: string = ': keep-alive\n\n';

/** An incremental SSE parser. */
export interface SseParser {
  /**
   * Feeds decoded text; complete events go to the callback, a partial one waits for more.
   *
   * @param chunk - the next piece of the stream, any size
   */
  push(chunk: string): void;
  /**
   * How many characters wait: an incomplete line, and the data lines of an event not dispatched
   * yet (for a caller's size limit: a peer that never ends a line or an event grows these).
   */
  readonly buffered: number;
}

/**
 * Creates a parser of the `text/event-stream` format (the WHATWG rules: `\r\n`, `\r` or `\n` end a
 * line, a blank line dispatches, `:` starts a comment, one optional space after the colon is
 * dropped, `retry` is reported through `onRetry`, an event with no data is not dispatched, an
 * `id` with NUL is ignored). Cost: linear in the text pushed; a line split over chunks is
 * joined once.
 *
 * @param onEvent - called with each complete event
 * @param onRetry - called with a `retry:` value in milliseconds
 * @returns the parser
 */
export function createSseParser(
  onEvent: (event: SseEvent) => void,
  onRetry?: (ms: number) => void,
): SseParser {
  let partial = '';
  let pendingCr = false;
  let data: string[] = [];
  /** The characters of `data`. */
  let dataChars = 0;
  let eventType = '';
  // The last event id persists across events, and is set even by an event with no data.
  let lastId: string | undefined;

  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) {
        onEvent({
          id: lastId,
          event: eventType === '' ? 'message' : eventType,
          data: data.join('\n'),
        });
      }
      data = [];
      dataChars = 0;
      eventType = '';
      return;
    }
    if (text.charCodeAt(0) === 0x3a) return; // ':' comment
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      dataChars += value.length;
    } else if (field === 'event') eventType = value;
    else if (field === 'id') {
      if (!value.includes('\0')) lastId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) onRetry?.(Number(value));
  };

  return {
    push(chunk: string): void {
      let start = 0;
      if (pendingCr && chunk.charCodeAt(0) === 0x0a) start = 1;
      pendingCr = false;
      // Line ends are found with `indexOf` (native) rather than by reading every character here,
      // which cost five times `JSON.parse` of the same text. Each search starts past the last
      // line end, so every character is scanned at most once for `\n` and once for `\r` (a JSON
      // text seldom has a `\r`: one search a chunk).
      let lf = chunk.indexOf('\n', start);
      let cr = chunk.indexOf('\r', start);
      while (lf !== -1 || cr !== -1) {
        const end = lf === -1 || (cr !== -1 && cr < lf) ? cr : lf;
        const piece = chunk.slice(start, end);
        line(partial === '' ? piece : partial + piece);
        partial = '';
        start = end + 1;
        if (end === cr) {
          if (start === chunk.length) pendingCr = true;
          else if (chunk.charCodeAt(start) === 0x0a) start++;
          cr = chunk.indexOf('\r', start);
        }
        if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start);
      }
      if (start < chunk.length) partial += chunk.slice(start);
    },
    get buffered(): number {
      return partial.length + dataChars;
    },
  };
}
