/**
 * Stream profiles: the wire form of streams as plain data, so that one server and one client
 * speak either the kit's own protocol or the kotlinx-rpc JSON-RPC draft's Flow protocol.
 *
 * @module
 */
import { JsonRpcError } from '@jsonrpc-kit/core';
import {
  STREAM_CANCEL_METHOD,
  STREAM_ENDED,
  STREAM_NEXT_METHOD,
  StreamEndedError,
} from './stream-protocol.js';

/** How a stream is spoken on the wire: method names, answer shapes, the end signal. */
export interface StreamProfile {
  /** A short name, for messages and docs. */
  readonly name: string;
  /** The method that pulls the next item (or page of items). */
  readonly next: string;
  /** The method that stops a stream early. */
  readonly cancel: string;
  /**
   * `true`: `next` takes a `max` and answers a page `{ items, done }`. `false`: `next` answers
   * exactly one value, and the end is only ever the `end` error.
   */
  readonly page: boolean;
  /**
   * How the receiver sends the stream id (and `max`): by name (`{ "<idParam>": id }`) or by
   * position (`[id]`). The sender accepts both.
   */
  readonly params: 'byName' | 'byPosition';
  /** The name of the id parameter of `next` and `cancel`. */
  readonly idParam: string;
  /**
   * How the streaming call is answered: `'object'` is `{ "<idParam>": id }`, `'id'` is the bare
   * id.
   */
  readonly handle: 'object' | 'id';
  /** Ids of streams on connections: `'string'` (`"s1"`) or `'number'` (`1`). */
  readonly ids: 'string' | 'number';
  /** The error that says a stream has ended (or was cancelled, or never existed). */
  readonly end: {
    /** The error's code. */
    readonly code: number;
    /** The error's message. */
    readonly message: string;
  };
  /** What `cancel` answers: `{ cancelled }` (`'object'`) or `null`. */
  readonly cancelAnswer: 'object' | 'null';
  /** Whether streams may be resumed after a reconnect (see `resumable`). */
  readonly resume: boolean;
}

/**
 * The kit's own stream protocol: `rpc.stream.next` with `{ stream, max }` answering
 * `{ items, done }`, `rpc.stream.cancel` answering `{ cancelled }`, the end is -32010, string ids,
 * and resumable streams.
 *
 * @example
 * ```ts
 * streams(server, { profile: defaultStreamProfile }); // the same as streams(server)
 * ```
 */
export const defaultStreamProfile: StreamProfile = Object.freeze({
  name: 'default',
  next: STREAM_NEXT_METHOD,
  cancel: STREAM_CANCEL_METHOD,
  page: true,
  params: 'byName',
  idParam: 'stream',
  handle: 'object',
  ids: 'string',
  end: Object.freeze({ code: STREAM_ENDED, message: 'Stream ended' }),
  cancelAnswer: 'object',
  resume: true,
}) as StreamProfile;

/** The kotlinx-rpc draft's method that pulls the next value of a Flow. */
export const KOTLINX_NEXT_FLOW_VALUE: 'kotlinx.rpc.jsonrpc.internal.nextFlowValue' =
  'kotlinx.rpc.jsonrpc.internal.nextFlowValue';
/** The kotlinx-rpc draft's method that cancels a Flow. */
export const KOTLINX_CANCEL_FLOW: 'kotlinx.rpc.jsonrpc.internal.cancelFlow' =
  'kotlinx.rpc.jsonrpc.internal.cancelFlow';
/**
 * The kotlinx-rpc draft's completion code: a pull on a finished Flow is answered with it.
 * @default -32001
 */
export const KOTLINX_FLOW_COMPLETED: -32001 = -32001;

/**
 * The kotlinx-rpc JSON-RPC draft's Flow protocol: the streaming call answers a numeric flow id;
 * `kotlinx.rpc.jsonrpc.internal.nextFlowValue` with the flow id as its sole parameter (by name
 * `{ "flowId": id }` by default, `[id]` accepted) answers one value; completion is error -32001;
 * `kotlinx.rpc.jsonrpc.internal.cancelFlow` stops it early and answers `null`. Not resumable.
 *
 * @example
 * ```ts
 * streams(server, { profile: kotlinxStreamProfile });
 * for await (const n of streamCall<number>(client, 'count', [3], { profile: kotlinxStreamProfile })) {
 *   console.log(n);
 * }
 * ```
 */
export const kotlinxStreamProfile: StreamProfile = Object.freeze({
  name: 'kotlinx',
  next: KOTLINX_NEXT_FLOW_VALUE,
  cancel: KOTLINX_CANCEL_FLOW,
  page: false,
  params: 'byName',
  idParam: 'flowId',
  handle: 'id',
  ids: 'number',
  end: Object.freeze({ code: KOTLINX_FLOW_COMPLETED, message: 'Flow completed' }),
  cancelAnswer: 'null',
  resume: false,
}) as StreamProfile;

/**
 * The error a profile answers a pull on an ended stream with.
 *
 * @param profile - the profile
 * @param id - the stream id
 * @param message - the message, @default the profile's end message
 * @param reason - why, when it is not a plain end (`"idle"`)
 * @returns the error (a `StreamEndedError` for the default profile's code)
 * @internal
 */
export function endError(
  profile: StreamProfile,
  id: string | number,
  message: string = profile.end.message,
  reason?: string,
): JsonRpcError {
  const data = reason === undefined ? { [profile.idParam]: id } : { [profile.idParam]: id, reason };
  return profile.end.code === STREAM_ENDED
    ? new StreamEndedError(message, data)
    : new JsonRpcError(profile.end.code, message, data);
}

/**
 * The params of a pull or a cancel, in the profile's encoding.
 *
 * @param profile - the profile
 * @param id - the stream id
 * @param max - items asked for (pages only)
 * @returns the params
 * @internal
 */
export function pullParams(
  profile: StreamProfile,
  id: string | number,
  max?: number,
): Record<string, string | number> | Array<string | number> {
  const withMax = profile.page && max !== undefined;
  if (profile.params === 'byPosition') return withMax ? [id, max] : [id];
  return withMax ? { [profile.idParam]: id, max } : { [profile.idParam]: id };
}
