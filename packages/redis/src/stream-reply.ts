/**
 * Reading Redis Streams replies (`XREAD`, `XREADGROUP`, `XAUTOCLAIM`) in either protocol
 * version: RESP3 answers a map, RESP2 an array of pairs.
 *
 * @module
 */

/** One stream entry: its id and its fields. */
export interface StreamEntry {
  /** The entry id (`1700000000000-0`). */
  readonly id: string;
  /** The fields, by name. */
  readonly fields: Readonly<Record<string, string>>;
}

function toText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

/**
 * Reads the entries of one entry list (`[[id, [field, value, …]], …]`). Entries deleted since
 * they were read come back as `[id, null]`; they are skipped.
 *
 * @param list - the list
 * @returns the entries
 */
export function readEntries(list: unknown): StreamEntry[] {
  const entries: StreamEntry[] = [];
  if (!Array.isArray(list)) return entries;
  for (const item of list) {
    if (!Array.isArray(item) || !Array.isArray(item[1])) continue;
    const raw = item[1] as unknown[];
    const fields: Record<string, string> = Object.create(null);
    for (let i = 0; i + 1 < raw.length; i += 2) fields[toText(raw[i])] = toText(raw[i + 1]);
    entries.push({ id: toText(item[0]), fields });
  }
  return entries;
}

/**
 * Reads the entries of an `XREAD`/`XREADGROUP` reply for one stream.
 *
 * @param reply - the reply (`null` when the block timed out)
 * @returns the entries
 */
export function readStreamReply(reply: unknown): StreamEntry[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    const first = reply[0] as unknown;
    return Array.isArray(first) ? readEntries(first[1]) : [];
  }
  if (reply instanceof Map) return readEntries(reply.values().next().value);
  if (typeof reply === 'object') return readEntries(Object.values(reply)[0]);
  return [];
}
