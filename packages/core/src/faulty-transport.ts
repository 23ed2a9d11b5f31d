/**
 * A transport wrapper that injects faults, seeded and reproducible: for tests of code that must
 * survive a bad network or a broken peer. The faults themselves are named in `faults.ts` (and
 * re-exported here), the PRNG they are drawn from is in `seeded-random.ts`.
 *
 * @module
 */
import { type Deferred, deferred } from './deferred.js';
import { ConnectionClosedError } from './errors.js';
import {
  DEFAULT_FAULT_DELAY_MS,
  DEFAULT_FAULT_STALL_MS,
  FAULT_NAMES,
  type FaultName,
  type FaultRates,
  type InjectedFault,
} from './faults.js';
import { mulberry32 } from './seeded-random.js';
import type { TapDirection } from './tap-transport.js';
import { toError } from './to-error.js';
import type { SendOptions, Transport, TransportHandler } from './transport.js';

export * from './faults.js';

/** Options of {@link createFaultyTransport}. */
export interface FaultyTransportOptions {
  /**
   * The seed of the pseudo-random choices: the same seed and the same messages give the same
   * faults. Print `transport.seed` when a test fails to replay it.
   *
   * @default a random 32-bit integer
   */
  readonly seed?: number | undefined;
  /**
   * The probability of each fault per message.
   *
   * @default {} (no faults)
   */
  readonly faults?: FaultRates | undefined;
  /**
   * Which messages are hit: those this side sends, those it receives, or both.
   *
   * @default 'both'
   */
  readonly direction?: TapDirection | 'both' | undefined;
  /**
   * The longest `delay`, and how long `reorder` and `merge` wait for the next message.
   *
   * @default DEFAULT_FAULT_DELAY_MS (20 ms)
   */
  readonly maxDelayMs?: number | undefined;
  /**
   * How long `stallReader` stops the reader.
   *
   * @default DEFAULT_FAULT_STALL_MS (200 ms)
   */
  readonly stallMs?: number | undefined;
  /**
   * Told of each fault as it is injected.
   *
   * @param fault - what was injected, and where
   */
  readonly onFault?: ((fault: InjectedFault) => void) | undefined;
  /**
   * Whether faults are injected from the start; see {@link FaultyTransport.enabled}.
   *
   * @default true
   */
  readonly enabled?: boolean | undefined;
}

/** A transport with injected faults: a `Transport`, plus its seed and what it injected. */
export interface FaultyTransport extends Transport {
  /** The seed in use (the one given, or the random one chosen). */
  readonly seed: number;
  /** How many times each fault was injected so far. */
  readonly injected: Readonly<Record<FaultName, number>>;
  /**
   * Whether faults are injected. While `false`, messages pass untouched (still in order behind
   * any held back) and draw nothing from the PRNG: let a handshake through, then turn faults on;
   * or turn them off to check that the connection recovers.
   */
  enabled: boolean;
}
/** Control characters JSON allows nowhere: U+0000 to U+001F but tab, LF and CR. */
const CORRUPTING = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).filter(
  (c) => c !== '\t' && c !== '\n' && c !== '\r',
);

const noop = (): void => {};
const sleep = (ms: number): Promise<void> =>
  ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));

/** A text to hand on, with the options of the `send()` it came from. */
interface Piece {
  readonly text: string;
  readonly options: SendOptions | undefined;
}

/** A message held back by `reorder` or `merge`. */
interface Held {
  readonly pieces: Piece[];
  readonly mode: 'reorder' | 'merge';
  readonly done: Deferred;
  readonly timer: ReturnType<typeof setTimeout>;
}

interface LaneSettings {
  readonly direction: TapDirection;
  readonly enabled: () => boolean;
  readonly rates: FaultRates;
  readonly random: () => number;
  readonly maxDelayMs: number;
  readonly stallMs: number;
  readonly record: (fault: FaultName, direction: TapDirection, index: number) => void;
  /** Hands one text on (to the inner transport, or to the handler). */
  readonly out: (text: string, options: SendOptions | undefined) => Promise<void>;
  /** Closes the transport after `closeMidMessage`; returns the close error. */
  readonly closeMid: () => Error;
}

/** One direction: messages pass through in order, one at a time, and faults hit them. */
interface Lane {
  /** Resolves once the message (or what the faults left of it) was handed on. */
  push(text: string, options?: SendOptions): Promise<void>;
  /** Runs `step` after every message pushed so far, releasing a held one first. */
  after(step: () => void): void;
  /** Forgets a held message, failing its `push` with `error`. */
  discard(error: Error): void;
}

function createLane(settings: LaneSettings): Lane {
  const { direction, rates, random, maxDelayMs, stallMs, record, out } = settings;
  let tail: Promise<void> = Promise.resolve();
  let index = 0;
  let held: Held | undefined;

  let on = true;
  const fires = (fault: FaultName, at: number): boolean => {
    const rate = rates[fault];
    if (!on || rate === undefined || rate === 0 || random() >= rate) return false;
    record(fault, direction, at);
    return true;
  };
  /** A cut strictly inside `text` (which has at least two characters). */
  const cut = (text: string): number => 1 + Math.floor(random() * (text.length - 1));
  const send = (pieces: readonly Piece[], done: Deferred): void => {
    done.resolve(Promise.all(pieces.map((p) => out(p.text, p.options))).then(noop));
  };
  const release = (): Piece[] | undefined => {
    const h = held;
    if (h === undefined) return undefined;
    held = undefined;
    clearTimeout(h.timer);
    return h.pieces;
  };
  const enqueue = (step: () => Promise<void> | void): Promise<void> => {
    const run = tail.then(step);
    tail = run.then(noop, noop);
    return run;
  };

  const process = async (
    text: string,
    options: SendOptions | undefined,
    at: number,
    done: Deferred,
  ): Promise<void> => {
    on = settings.enabled();
    if (fires('stallReader', at)) await sleep(stallMs);
    if (fires('delay', at)) await sleep(Math.floor(random() * (maxDelayMs + 1)));
    if (fires('drop', at)) {
      done.resolve();
      return;
    }
    if (text.length >= 2 && fires('closeMidMessage', at)) {
      out(text.slice(0, cut(text)), options).then(noop, noop);
      done.reject(settings.closeMid());
      return;
    }
    if (text.length >= 2 && fires('truncate', at)) text = text.slice(0, cut(text));
    if (text.length >= 1 && fires('corrupt', at)) {
      const at2 = Math.floor(random() * text.length);
      const c = CORRUPTING[Math.floor(random() * CORRUPTING.length)]!;
      text = text.slice(0, at2) + c + text.slice(at2 + 1);
    }
    let pieces: Piece[] = [{ text, options }];
    if (text.length >= 2 && fires('split', at)) {
      const c = cut(text);
      pieces = [
        { text: text.slice(0, c), options },
        { text: text.slice(c), options },
      ];
    }
    if (fires('duplicate', at)) pieces = pieces.concat(pieces);
    const h = held;
    const before = release();
    if (h !== undefined && before !== undefined) {
      // This message releases the one held back; it is not held itself.
      if (h.mode === 'reorder') pieces = pieces.concat(before);
      else {
        const joined = { text: before[before.length - 1]!.text + pieces[0]!.text, options };
        pieces = before.slice(0, -1).concat(joined, pieces.slice(1));
      }
      send(pieces, done);
      h.done.resolve(done.promise);
      return;
    }
    const mode = fires('reorder', at) ? 'reorder' : fires('merge', at) ? 'merge' : undefined;
    if (mode === undefined) {
      send(pieces, done);
      return;
    }
    const timer = setTimeout(() => {
      void enqueue(() => {
        if (held?.timer !== timer) return;
        send(release()!, done);
      });
    }, maxDelayMs);
    held = { pieces, mode, done, timer };
  };

  return {
    push(text, options) {
      const done = deferred();
      const at = index++;
      enqueue(() => process(text, options, at, done)).then(undefined, (error: unknown) =>
        done.reject(error),
      );
      return done.promise;
    },
    after(step) {
      void enqueue(() => {
        const h = held;
        const pieces = release();
        if (h !== undefined && pieces !== undefined) send(pieces, h.done);
        step();
      });
    },
    discard(error) {
      const h = held;
      if (release() !== undefined) h?.done.reject(error);
    },
  };
}

/**
 * Wraps a transport so that messages going through it meet faults: delays, drops, duplicates,
 * reordering, split and merged messages, truncation, a corrupted character, a close in the middle
 * of a message, a stalled reader (see {@link FaultName}). Each fault hits each message with its
 * own probability, drawn from a small seeded PRNG (mulberry32): the same seed and the same
 * messages give the same faults. For tests: check that your client, server or application
 * settles every call, reports what it must and never hangs on a bad network or a broken peer.
 *
 * The wrapper works on whole messages, as the `Transport` interface moves them: `split` and
 * `merge` make two messages of one and one of two, as a peer with broken framing would; on a
 * byte-stream transport each resulting text is framed on its own. (Bytes of one message arriving
 * in several reads are no fault: the stream decoders handle that below the transport.) Messages
 * of one direction pass one at a time, in order, unless a fault changes that. The handler's
 * other hooks (`onError`, `onDisconnect`, `onReconnect`) pass through.
 *
 * @param transport - the transport to wrap
 * @param options - the seed, the fault probabilities, the direction hit, and the timings
 * @returns the faulty transport, with its `seed` and the count of faults `injected`
 * @throws RangeError when a probability is not between 0 and 1, or a duration is negative
 * @example
 * ```ts
 * const [clientSide, serverSide] = createMemoryTransportPair();
 * const faulty = createFaultyTransport(clientSide, {
 *   seed: 42,
 *   faults: { drop: 0.1, duplicate: 0.1, delay: 0.5 },
 * });
 * // createClient(faulty, { callTimeout: 500 }) … on failure: console.log('seed', faulty.seed)
 * ```
 */
export function createFaultyTransport(
  transport: Transport,
  options: FaultyTransportOptions = {},
): FaultyTransport {
  const rates: FaultRates = options.faults ?? {};
  for (const name of Object.keys(rates)) {
    const rate = rates[name as FaultName];
    if (!(FAULT_NAMES as readonly string[]).includes(name)) {
      throw new RangeError(`Unknown fault "${name}"`);
    }
    if (!(rate !== undefined && rate >= 0 && rate <= 1)) {
      throw new RangeError(`The probability of "${name}" must be between 0 and 1`);
    }
  }
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_FAULT_DELAY_MS;
  const stallMs = options.stallMs ?? DEFAULT_FAULT_STALL_MS;
  if (!(maxDelayMs >= 0) || !(stallMs >= 0)) {
    throw new RangeError('maxDelayMs and stallMs must be numbers >= 0');
  }
  const seed = (options.seed ?? Math.floor(Math.random() * 0x100000000)) >>> 0;
  const direction = options.direction ?? 'both';
  const onFault = options.onFault;
  let enabled = options.enabled ?? true;
  const injected = Object.fromEntries(FAULT_NAMES.map((name) => [name, 0])) as Record<
    FaultName,
    number
  >;
  const record = (fault: FaultName, way: TapDirection, index: number): void => {
    injected[fault]++;
    onFault?.({ fault, direction: way, index });
  };

  /** The error of a `closeMidMessage` close, once one happened. */
  let faultError: Error | undefined;
  const closeMid = (): Error => {
    faultError ??= new ConnectionClosedError('Closed mid-message by an injected fault');
    transport.close(faultError).then(noop, noop);
    return faultError;
  };
  const lane = (
    way: TapDirection,
    out: (text: string, options: SendOptions | undefined) => Promise<void>,
  ): Lane =>
    createLane({
      direction: way,
      enabled: () => enabled,
      rates: direction === 'both' || direction === way ? rates : {},
      // Each direction draws from its own stream, so that timing between them changes nothing.
      random: mulberry32(way === 'sent' ? seed : seed ^ 0x9e3779b9),
      maxDelayMs,
      stallMs,
      record,
      out,
      closeMid,
    });

  const sent = lane('sent', (text, options) => transport.send(text, options));

  return {
    seed,
    injected,
    get enabled() {
      return enabled;
    },
    set enabled(value: boolean) {
      enabled = value;
    },
    start(handler: TransportHandler) {
      const received = lane('received', (text) => {
        try {
          handler.onMessage(text);
        } catch (error) {
          handler.onError?.(toError(error));
        }
        return Promise.resolve();
      });
      const inner: TransportHandler = {
        onMessage: (message) => void received.push(message).then(noop, noop),
        // After the messages received before it, and with the fault's error if it caused it.
        onClose: (error) => received.after(() => handler.onClose(error ?? faultError)),
      };
      if (handler.onError) inner.onError = (error) => handler.onError?.(error);
      if (handler.onDisconnect) inner.onDisconnect = (error) => handler.onDisconnect?.(error);
      if (handler.onReconnect) inner.onReconnect = () => handler.onReconnect?.();
      return transport.start(inner);
    },
    send(message: string, options?: SendOptions) {
      return sent.push(message, options);
    },
    close(reason?: unknown) {
      sent.discard(new ConnectionClosedError());
      return transport.close(reason);
    },
  };
}
