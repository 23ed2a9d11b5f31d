/**
 * The two stdio framings, written and read strictly: Content-Length headers (LSP) and one JSON
 * text per line (MCP). The reader reports anything that is not a well-formed frame.
 *
 * @module
 */

/** A stdio framing. */
export type Framing = 'content-length' | 'newline';

/** The framings, for argument checks. */
export const FRAMINGS: readonly Framing[] = ['content-length', 'newline'];

/**
 * Frames one message.
 *
 * @param text - the message
 * @param framing - how to frame it
 * @returns the bytes to write (for `newline`, line breaks in the text become spaces)
 */
export function frame(text: string, framing: Framing): Buffer {
  if (framing === 'newline') return Buffer.from(`${text.replace(/\r?\n/g, ' ')}\n`, 'utf8');
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'latin1'), body]);
}

const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*[^\r\n]*$/;
/** The longest header block read before it is taken for garbage. */
const MAX_HEADER_BYTES = 8192;
const NOT_HEADER_TEXT = /[^\x20-\x7e\r\n\t]/;
const EMPTY: Buffer = Buffer.alloc(0);

/**
 * Creates a strict reader of what a target writes to stdout. Each well-formed frame whose body is
 * JSON goes to `onMessage`; anything else goes to `onGarbage` with a description.
 *
 * Linear in the bytes read, however they are cut: a message's chunks are kept in a list and
 * joined once, when it is complete, and only the new chunk is searched for the end of a line or
 * a header. Bounding what is kept is the caller's part (it counts the chunks it passes).
 *
 * @param framing - the framing to expect
 * @param onMessage - called with each message text
 * @param onGarbage - called with a description of each bad frame or stray output
 * @returns a function to call with each chunk of stdout
 */
export function createStrictReader(
  framing: Framing,
  onMessage: (text: string) => void,
  onGarbage: (description: string) => void,
): (chunk: Buffer) => void {
  const deliver = (body: string): void => {
    try {
      JSON.parse(body);
    } catch {
      onGarbage(`not JSON: ${JSON.stringify(body.slice(0, 80))}`);
      return;
    }
    onMessage(body);
  };
  return framing === 'newline' ? lineReader(deliver) : contentLengthReader(deliver, onGarbage);
}

function lineReader(deliver: (body: string) => void): (chunk: Buffer) => void {
  // The start of the line being read, in pieces: searched once each, joined once.
  const pieces: Buffer[] = [];
  let kept = 0;
  return (chunk) => {
    let from = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, from);
      if (end === -1) {
        if (from < chunk.length) {
          pieces.push(from === 0 ? chunk : chunk.subarray(from));
          kept += chunk.length - from;
        }
        return;
      }
      const tail = chunk.subarray(from, end);
      const bytes =
        pieces.length === 0 ? tail : Buffer.concat([...pieces, tail], kept + tail.length);
      pieces.length = 0;
      kept = 0;
      from = end + 1;
      const line = bytes.toString('utf8').replace(/\r$/, '');
      if (line.trim() !== '') deliver(line);
    }
  };
}

function contentLengthReader(
  deliver: (body: string) => void,
  onGarbage: (description: string) => void,
): (chunk: Buffer) => void {
  // Between messages: the bytes of a header block not ended yet (at most MAX_HEADER_BYTES).
  let head: Buffer = EMPTY;
  // Within a body: its pieces so far, and how many bytes it has and needs.
  let body: Buffer[] | undefined;
  let have = 0;
  let need = 0;
  return (chunk) => {
    let data = chunk;
    for (;;) {
      if (body !== undefined) {
        const take = Math.min(need - have, data.length);
        if (take > 0) body.push(take === data.length ? data : data.subarray(0, take));
        have += take;
        data = data.subarray(take);
        if (have < need) return;
        const text = Buffer.concat(body, need).toString('utf8');
        body = undefined;
        deliver(text);
        continue;
      }
      if (data.length === 0) return;
      // Only the new bytes are searched (from 3 bytes back, for a "\r\n\r\n" cut in two) and
      // checked: what `head` holds was searched and checked when it came.
      const searchFrom = Math.max(0, head.length - 3);
      const joined = head.length === 0 ? data : Buffer.concat([head, data]);
      const checkedUpTo = head.length;
      head = EMPTY;
      const headerEnd = joined.indexOf('\r\n\r\n', searchFrom);
      if (headerEnd === -1) {
        if (
          joined.length > MAX_HEADER_BYTES ||
          NOT_HEADER_TEXT.test(joined.toString('latin1', checkedUpTo))
        ) {
          onGarbage(`not a header: ${JSON.stringify(joined.toString('latin1', 0, 80))}`);
        } else head = joined;
        return;
      }
      const lines = joined.toString('latin1', 0, headerEnd).split('\r\n');
      let length = -1;
      let bad = false;
      for (const line of lines) {
        if (!HEADER_LINE.test(line)) bad = true;
        const m = /^content-length:[ \t]*(\d+)[ \t]*$/i.exec(line);
        if (m) length = Number(m[1]);
      }
      data = joined.subarray(headerEnd + 4);
      if (bad || length < 0 || !Number.isSafeInteger(length)) {
        onGarbage(`bad header: ${JSON.stringify(lines.join('\\r\\n').slice(0, 80))}`);
        continue;
      }
      body = [];
      have = 0;
      need = length;
    }
  };
}
