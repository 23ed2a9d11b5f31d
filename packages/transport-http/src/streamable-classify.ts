/**
 * What the streaming handler reads from messages: the requests, cancellations and session start
 * in a POST body, the ids a server's answer carries, and progress tokens, with ids kept as the
 * JSON text they were sent with (exact beyond 2^53).
 *
 * @module
 */
import { type ParseResult, parse, serializeError } from '@jsonrpc-kit/core';
import {
  type MessageEnvelope,
  type ParsedInvalid,
  type ParsedMessage,
  type ParsedRequest,
  scanEnvelope,
  scanHead,
} from '@jsonrpc-kit/core/engine';

/**
 * Cancellation notifications (MCP's, and the kit's and LSP's default): a cancelled request may
 * get no answer at all (MCP), so the stream of the exchange that carried it must not wait for one.
 */
export const CANCEL_METHODS: ReadonlySet<string> = new Set([
  'notifications/cancelled',
  '$/cancelRequest',
]);

const NONE: readonly string[] = Object.freeze([]);

/** What a POST body holds. */
export interface Classified {
  /** Its valid requests, for their progress tokens. */
  readonly requests: unknown[];
  /**
   * The id of every answer the body will get, as the JSON text the server writes it with: each
   * request's, and each invalid message's that is answered (with `null` when its id is no valid
   * id, and one `null` for a batch refused whole).
   */
  readonly ids: string[];
  /** Ids (as JSON text) a cancellation notification in the body names. */
  readonly cancelled: readonly string[];
  /** Whether the answers come back as one array. */
  readonly batch: boolean;
  /** Whether the body gets any answer. */
  readonly hasRequest: boolean;
  readonly startsSession: boolean;
}

/** The exact id texts of a body's members, by position (core's parse keeps them beyond 2^53). */
function rawIdsOf(text: string): (string | undefined)[] {
  const parsed = parse(text);
  const members = parsed.kind === 'batch' ? parsed.messages : [parsed];
  return members.map((m) => ('rawId' in m ? m.rawId : undefined));
}

/**
 * A member's id as the JSON text it was sent with: exact also for numbers a JavaScript number
 * cannot hold (their text is read from `text` once, only then), so that an answer echoing
 * `9007199254740993` finds the request that sent it.
 *
 * @param id - the id as `JSON.parse` read it
 * @param index - the member's position (0 for a single message)
 * @param raws - the exact texts, read on first need
 */
function idText(
  id: unknown,
  index: number,
  raws: { text: string; ids?: (string | undefined)[] },
): string {
  if (typeof id !== 'number' || Number.isSafeInteger(id)) return JSON.stringify(id);
  raws.ids ??= rawIdsOf(raws.text);
  return raws.ids[index] ?? JSON.stringify(id);
}

/**
 * The id a cancellation names, as the JSON text it was sent with: for a number a JavaScript number
 * cannot hold, the first number in `text` after a `requestId` or `id` key that reads as the same
 * number (the rare path: one scan of the body).
 *
 * @param id - the id as the body's reader read it
 * @param text - the body
 */
function cancelledIdText(id: unknown, text: string): string {
  if (typeof id === 'bigint') return String(id);
  if (typeof id !== 'number' || Number.isSafeInteger(id)) return JSON.stringify(id);
  for (const match of text.matchAll(/"(?:requestId|id)"\s*:\s*(-?\d[\d.eE+-]*)/g)) {
    if (Number(match[1]) === id) return match[1]!;
  }
  return JSON.stringify(id);
}

/** A body the handler refuses (400), with the JSON-RPC error to answer. */
export interface Refused {
  readonly refused: string;
}

function refuse(code: number, message: string): Refused {
  return { refused: serializeError(null, { code, message }) };
}

/** The id an answer to `parsed` carries, as the JSON text the server writes it with. */
function answerIdText(parsed: ParsedRequest | ParsedInvalid): string {
  if (parsed.rawId !== undefined) return parsed.rawId;
  return JSON.stringify(parsed.kind === 'request' ? parsed.message.id : parsed.id);
}

/**
 * Classifies a POST body, as parsed by the parser of the server that will answer it: every member
 * must be a JSON object, and what the server answers is what the response waits for. An invalid
 * message the server answers (a bad id, params that are not structured, a batch over its limit)
 * is waited for with the id its answer carries, so that the response never waits for an answer
 * that cannot come.
 *
 * @param parsed - the body, as `parse` read it (the server's own `parse`, when it has one)
 * @param text - the body, for the exact text of a cancelled id
 * @param startMethod - the method that starts a session (`null`: any)
 * @returns what it holds, or why it is refused
 */
export function classify(
  parsed: ParseResult,
  text: string,
  startMethod: string | null,
): Classified | Refused {
  let members: readonly ParsedMessage[];
  if (parsed.kind === 'batch') members = parsed.messages;
  else if (parsed.kind === 'invalid' && Array.isArray(parsed.value)) {
    if (parsed.value.length === 0) return refuse(-32600, 'Invalid Request: empty batch');
    // Refused whole (over the server's maxBatchSize, or it takes no batches): one answer.
    return {
      requests: [],
      ids: [answerIdText(parsed)],
      cancelled: NONE,
      batch: false,
      hasRequest: true,
      startsSession: startMethod === null,
    };
  } else if (parsed.kind === 'invalid' && parsed.error.code === -32700) {
    return refuse(-32700, 'Parse error');
  } else if (parsed.kind === 'request') {
    // Most bodies: one request. Arrays of one (one grown from empty would reserve room for 16).
    return {
      requests: [parsed.message],
      ids: [answerIdText(parsed)],
      cancelled: NONE,
      batch: false,
      hasRequest: true,
      startsSession: startMethod === null || parsed.message.method === startMethod,
    };
  } else members = [parsed];
  const requests: unknown[] = [];
  const ids: string[] = [];
  const cancelled: string[] = [];
  let startsSession = startMethod === null;
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    switch (member.kind) {
      case 'request':
        requests.push(member.message);
        ids.push(answerIdText(member));
        if (member.message.method === startMethod) startsSession = true;
        break;
      case 'notification': {
        const { method, params } = member.message;
        if (CANCEL_METHODS.has(method)) {
          const named = params as { requestId?: unknown; id?: unknown } | undefined;
          const id = named?.requestId ?? named?.id;
          if (id !== undefined) cancelled.push(cancelledIdText(id, text));
        }
        if (method === startMethod) startsSession = true;
        break;
      }
      case 'response':
        break;
      default: {
        const value = member.value;
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return refuse(-32600, 'Invalid Request');
        }
        const m = value as Record<string, unknown>;
        if (typeof m.method === 'string') {
          if (m.method === startMethod) startsSession = true;
        } else if (!('id' in m) || !('result' in m || 'error' in m)) {
          return refuse(-32600, 'Invalid Request');
        }
        // A session's server answers an invalid message unless it is a notification whose only
        // fault is its params, or a malformed response.
        if (!member.silent && !member.response) ids.push(answerIdText(member));
      }
    }
  }
  return {
    requests,
    ids,
    cancelled,
    batch: parsed.kind === 'batch',
    hasRequest: ids.length > 0,
    startsSession,
  };
}

/** A request's progress token (MCP's `_meta.progressToken`, or `progressToken`), as JSON text. */
export function progressToken(request: unknown): string | undefined {
  const params = (request as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  const token =
    typeof meta === 'object' && meta !== null
      ? (meta as { progressToken?: unknown }).progressToken
      : (params as { progressToken?: unknown }).progressToken;
  return token === undefined ? undefined : JSON.stringify(token);
}

/**
 * The ids (as JSON text) a server's outgoing text answers; `undefined` when it is no response. A
 * message core wrote is read from its head (its id comes first, then what it is), however large
 * its result or params; any other text is scanned whole.
 */
export function answeredIds(text: string): string[] | undefined {
  const head = scanHead(text);
  if (head !== undefined) return envelopeIds(head);
  const first = text.trimStart().charCodeAt(0);
  if (first === 0x5b) {
    const ids: string[] = [];
    const members = JSON.parse(text) as Record<string, unknown>[];
    const raws = { text };
    for (let i = 0; i < members.length; i++) {
      const member = members[i]!;
      if (!('method' in member)) ids.push(idText(member.id ?? null, i, raws));
    }
    return ids;
  }
  return envelopeIds(scanEnvelope(text));
}

/** The id an envelope answers, as JSON text; `undefined` unless it is a response. */
function envelopeIds(envelope: MessageEnvelope): string[] | undefined {
  return envelope.kind === 'response' ? [envelope.rawId ?? JSON.stringify(envelope.id)] : undefined;
}

/** The progress token a server's notification refers to, as JSON text. */
export function tokenOf(text: string): string | undefined {
  try {
    const params = (JSON.parse(text) as { params?: { progressToken?: unknown } }).params;
    const token = params?.progressToken;
    return token === undefined ? undefined : JSON.stringify(token);
  } catch {
    return undefined;
  }
}
