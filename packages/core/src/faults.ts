/**
 * The faults a faulty transport can inject ({@link FaultName}, in the order they are tried), their
 * probabilities ({@link FaultRates}), the record of one injected fault ({@link InjectedFault}), and
 * the default timings of the faults that wait.
 *
 * @module
 */
import type { TapDirection } from './tap-transport.js';

/**
 * The faults {@link createFaultyTransport} can inject, in the order they are tried on each
 * message:
 *
 * - `stallReader`: the reader stops for `stallMs`; this message and every one behind it wait
 *   (for sent messages, `send()` resolves only afterwards, as when the peer does not read).
 * - `delay`: this message and those behind it wait a random 0 to `maxDelayMs`; order is kept.
 * - `drop`: the message is lost; `send()` still resolves.
 * - `closeMidMessage`: the first part of the message goes out, then the transport closes with a
 *   `ConnectionClosedError`.
 * - `truncate`: only the first part of the message goes out.
 * - `corrupt`: one character is replaced by a control character (U+0000 to U+001F, not tab, LF
 *   or CR), which JSON allows nowhere: the damage is always detectable, never a silently wrong
 *   value.
 * - `split`: the message goes out as two messages, its first and its second part.
 * - `duplicate`: the message goes out twice.
 * - `reorder`: the message is held back and goes out after the next one (or alone after
 *   `maxDelayMs`).
 * - `merge`: the message and the next one go out as one message, concatenated (or alone after
 *   `maxDelayMs`).
 */
export type FaultName =
  | 'stallReader'
  | 'delay'
  | 'drop'
  | 'closeMidMessage'
  | 'truncate'
  | 'corrupt'
  | 'split'
  | 'duplicate'
  | 'reorder'
  | 'merge';

/** Every {@link FaultName}, in the order the faults are tried on each message. */
export const FAULT_NAMES: readonly FaultName[] = /* @__PURE__ */ Object.freeze([
  'stallReader',
  'delay',
  'drop',
  'closeMidMessage',
  'truncate',
  'corrupt',
  'split',
  'duplicate',
  'reorder',
  'merge',
]);

/** For each fault, the probability (0 to 1) that it hits a message. Missing faults never hit. */
export type FaultRates = { readonly [K in FaultName]?: number };

/** One fault as it was injected, for logs (see {@link FaultyTransportOptions.onFault}). */
export interface InjectedFault {
  /** Which fault. */
  readonly fault: FaultName;
  /** Which way the message went. */
  readonly direction: TapDirection;
  /** The message's position among those that went this way, from 0. */
  readonly index: number;
}

/**
 * How long `delay` may hold a message, and how long `reorder` and `merge` wait for the next one.
 *
 * @default 20 (milliseconds)
 */
export const DEFAULT_FAULT_DELAY_MS: number = 20;

/**
 * How long `stallReader` stops the reader.
 *
 * @default 200 (milliseconds)
 */
export const DEFAULT_FAULT_STALL_MS: number = 200;
