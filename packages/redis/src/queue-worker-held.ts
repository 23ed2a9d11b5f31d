/**
 * The requests a queue worker holds: each taken off the stream and not yet done with, served one
 * per id at a time (two callers' requests with the same id wait their turn, so that each answer
 * finds its caller; batches likewise one at a time), and the one an answer of the server goes to.
 *
 * @module
 */
import {
  headIdText,
  scanEnvelope,
  scanHead,
  stringifyId,
  TurnoverMap,
} from '@jsonrpc-kit/core/engine';
import { FIELD_BODY, isBatchText } from './queue-keys.js';
import type { StreamEntry } from './stream-reply.js';

/** A request a worker holds. */
export interface Taken {
  readonly entry: StreamEntry;
  /** The id's JSON text for a single request; `undefined` for a batch. */
  readonly key: string | undefined;
}

/** The requests one worker holds, and which of them are being served. Internal. */
export class HeldRequests {
  /** Every entry this worker holds, by stream id (a `TurnoverMap`: one key per request). */
  readonly held: TurnoverMap<string, Taken> = new TurnoverMap<string, Taken>();
  /** The request being served for each id text. */
  readonly #byId = new TurnoverMap<string, Taken>();
  /** Requests waiting because a request with the same id is being served. */
  readonly #waiting = new Map<string, Taken[]>();
  #batch: Taken | undefined = undefined;
  readonly #waitingBatches: Taken[] = [];
  /** Hands a request's text to the server. */
  readonly #deliver: (text: string) => void;

  /** @param deliver - hands a request's text to the server */
  constructor(deliver: (text: string) => void) {
    this.#deliver = deliver;
  }

  /**
   * Holds a request: served now, unless one with its id (for a batch, a batch) is being served.
   *
   * @param entry - its entry on the stream
   * @param key - its id's JSON text; `undefined` for a batch
   */
  hold(entry: StreamEntry, key: string | undefined): void {
    const taken: Taken = { entry, key };
    this.held.set(entry.id, taken);
    if (key === undefined) {
      if (this.#batch === undefined) this.#serve(taken);
      else this.#waitingBatches.push(taken);
      return;
    }
    if (!this.#byId.has(key)) this.#serve(taken);
    else {
      const list = this.#waiting.get(key);
      if (list === undefined) this.#waiting.set(key, [taken]);
      else list.push(taken);
    }
  }

  /**
   * The request being served that a message of the server answers.
   *
   * @param message - what the server sent
   * @returns the request, or `undefined` when none waits for it
   */
  answered(message: string): Taken | undefined {
    if (isBatchText(message)) return this.#batch;
    // The server's own answer: read from its head (scanned when not core's).
    let key = headIdText(message, 'response');
    if (key === undefined) {
      const envelope = scanHead(message) ?? scanEnvelope(message);
      if (envelope.kind === 'response' || envelope.kind === 'unknown') {
        key = stringifyId(envelope.id, envelope.rawId);
      }
    }
    const taken = key === undefined ? undefined : this.#byId.get(key);
    // An error with id null that no request with id null waits for answers the batch being
    // served (`[]`, over the server's batch limit): its caller is the one to get it.
    if (taken === undefined && key === 'null') return this.#batch;
    return taken;
  }

  /**
   * Lets go of a request and serves the next one waiting for its id.
   *
   * @param taken - the request
   */
  release(taken: Taken): void {
    this.held.delete(taken.entry.id);
    if (taken.key === undefined) {
      this.#batch = undefined;
      const next = this.#waitingBatches.shift();
      if (next !== undefined) this.#serve(next);
      return;
    }
    this.#byId.delete(taken.key);
    const list = this.#waiting.get(taken.key);
    const next = list?.shift();
    if (list !== undefined && list.length === 0) this.#waiting.delete(taken.key);
    if (next !== undefined) this.#serve(next);
  }

  #serve(taken: Taken): void {
    if (taken.key === undefined) this.#batch = taken;
    else this.#byId.set(taken.key, taken);
    this.#deliver(taken.entry.fields[FIELD_BODY] ?? '');
  }
}
