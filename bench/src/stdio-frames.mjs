/**
 * Raw stdio framing for the baselines: Content-Length (LSP style) and newline-delimited JSON.
 */

const HEADER_END = Buffer.from('\r\n\r\n');

/** Returns a `(chunk) => void` that decodes frames from byte chunks and calls `onMessage(text)`. */
export function decoder(framing, onMessage) {
  let buffer = Buffer.alloc(0);
  if (framing === 'newline') {
    // Chunks of an unfinished line wait in a list and are joined once, when its end arrives, so
    // a big message costs one copy rather than one per chunk.
    let parts = [];
    return (chunk) => {
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        parts.push(chunk);
        return;
      }
      if (parts.length > 0) {
        parts.push(chunk);
        buffer = Buffer.concat(parts);
        parts = [];
      } else buffer = chunk;
      let start = 0;
      for (;;) {
        const end = buffer.indexOf(10, start);
        if (end === -1) break;
        if (end > start) onMessage(buffer.toString('utf8', start, end));
        start = end + 1;
      }
      if (start < buffer.length) parts.push(buffer.subarray(start));
    };
  }
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let start = 0;
    for (;;) {
      const end = buffer.indexOf(HEADER_END, start);
      if (end === -1) break;
      const header = buffer.toString('latin1', start, end);
      const match = /Content-Length: *(\d+)/i.exec(header);
      if (match === null) throw new Error(`bad header: ${header}`);
      const bodyStart = end + 4;
      const bodyEnd = bodyStart + Number(match[1]);
      if (bodyEnd > buffer.length) break;
      onMessage(buffer.toString('utf8', bodyStart, bodyEnd));
      start = bodyEnd;
    }
    buffer = start === buffer.length ? Buffer.alloc(0) : buffer.subarray(start);
  };
}

/** Frames one message as text. */
export function encode(framing, text) {
  return framing === 'newline'
    ? text + '\n'
    : `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/** Writes each frame with its own `write()`. */
export function perFrameWriter(stream, framing) {
  return (text) => stream.write(encode(framing, text));
}

/** Queues frames and writes all frames of one turn with a single `write()`. */
export function coalescingWriter(stream, framing) {
  let queue = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const out = queue;
    queue = '';
    stream.write(out);
  };
  return (text) => {
    queue += encode(framing, text);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  };
}
