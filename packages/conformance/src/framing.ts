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

/**
 * Creates a strict reader of what a target writes to stdout. Each well-formed frame whose body is
 * JSON goes to `onMessage`; anything else goes to `onGarbage` with a description.
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
  let buffer: Buffer = Buffer.alloc(0);
  const deliver = (body: string): void => {
    try {
      JSON.parse(body);
    } catch {
      onGarbage(`not JSON: ${JSON.stringify(body.slice(0, 80))}`);
      return;
    }
    onMessage(body);
  };
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      if (framing === 'newline') {
        const end = buffer.indexOf(0x0a);
        if (end === -1) return;
        const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
        buffer = buffer.subarray(end + 1);
        if (line.trim() !== '') deliver(line);
        continue;
      }
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd === -1) {
        if (buffer.length > 8192 || /[^\x20-\x7e\r\n\t]/.test(buffer.toString('latin1'))) {
          onGarbage(`not a header: ${JSON.stringify(buffer.toString('latin1', 0, 80))}`);
          buffer = Buffer.alloc(0);
        }
        return;
      }
      const lines = buffer.toString('latin1', 0, headerEnd).split('\r\n');
      let length = -1;
      let bad = false;
      for (const line of lines) {
        if (!HEADER_LINE.test(line)) bad = true;
        const m = /^content-length:[ \t]*(\d+)[ \t]*$/i.exec(line);
        if (m) length = Number(m[1]);
      }
      if (bad || length < 0) {
        onGarbage(`bad header: ${JSON.stringify(lines.join('\\r\\n').slice(0, 80))}`);
        buffer = buffer.subarray(headerEnd + 4);
        continue;
      }
      if (buffer.length < headerEnd + 4 + length) return;
      const body = buffer.toString('utf8', headerEnd + 4, headerEnd + 4 + length);
      buffer = buffer.subarray(headerEnd + 4 + length);
      deliver(body);
    }
  };
}
