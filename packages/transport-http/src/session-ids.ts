/**
 * The ids of Streamable HTTP sessions and of their event streams: random, URL-safe, and a
 * stream's id names its session.
 *
 * @module
 */

/** The characters of a session or stream id: base64url's, all visible ASCII as MCP requires. */
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Characters of an id: 6 random bits each, 132 bits in all (a UUID has 122). */
const ID_LENGTH = 22;

/**
 * A session or stream id: 22 characters of 6 bits each from the platform's cryptographic random
 * source, made as one flat string. A session keeps its ids for its whole life: 40 bytes, where a
 * UUID's 36 characters take 56 (and `randomUUID()` leaves a tree of 15 strings, about 460 bytes,
 * until something flattens it).
 */
export function randomId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(ID_LENGTH));
  const codes = new Array<number>(ID_LENGTH);
  // 256 is a multiple of 64: each character is uniform.
  for (let i = 0; i < ID_LENGTH; i++) codes[i] = ID_ALPHABET.charCodeAt(bytes[i]! & 63);
  return String.fromCharCode(...codes);
}

/**
 * A new stream id of a session: `<session id>.<random id>` (`.` is not in the id alphabet), so
 * that any process, whatever the event store, can tell whose stream an event belongs to.
 */
export function streamIdOf(session: { readonly id: string | undefined }): string {
  return session.id === undefined ? randomId() : `${session.id}.${randomId()}`;
}

/**
 * Whether a stream is one of this session's: event ids are scoped to their session, and a
 * `Last-Event-ID` of another session's stream is refused, never replayed.
 */
export function ownsStream(
  session: { readonly id: string | undefined },
  streamId: string,
): boolean {
  const id = session.id;
  return (
    id !== undefined &&
    streamId.length > id.length + 1 &&
    streamId.charCodeAt(id.length) === 46 /* . */ &&
    streamId.startsWith(id) &&
    streamId.indexOf('.', id.length + 1) === -1
  );
}
