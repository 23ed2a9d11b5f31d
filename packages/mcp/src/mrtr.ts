/**
 * Multi Round-Trip Requests (MCP 2026-07-28, SEP-2322): a handler's `elicit()`, `sample()` and
 * `listRoots()` under the stateless revision end the round with an `input_required` result; the
 * client retries with `inputResponses` and the `requestState` it got, and the handler runs again
 * from the start, its earlier questions now answered. The answers of earlier rounds travel in
 * `requestState`, sealed with an HMAC-SHA-256 of a server key and bound to the request and an
 * expiry: no process memory is needed between rounds, so any process that has the key can take
 * the retry, and a state that was changed, made for another request or expired is refused.
 *
 * @module
 */
import { InvalidParamsError } from '@jsonrpc-kit/core';

/** One question of an `input_required` result. */
export interface InputRequest {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  /** Its params. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** The questions and answers of one request's rounds. */
export class InputRounds {
  /** The answers known: of earlier rounds (from `requestState`) and of this retry. */
  readonly answers: Record<string, unknown>;
  /** The questions this round asks. */
  readonly asked: Record<string, InputRequest> = {};
  /** Resolves once the handler asked something not answered yet. */
  readonly needed: Promise<void>;
  #fire!: () => void;
  #count = 0;

  /** @param answers - the answers known */
  constructor(answers: Record<string, unknown>) {
    this.answers = answers;
    this.needed = new Promise((resolve) => {
      this.#fire = resolve;
    });
  }

  /**
   * Answers a question from the known answers, or records it for the client: the promise then
   * never settles (the round ends with the questions asked so far, so `Promise.all` of several
   * questions asks them all at once).
   *
   * @param method - the question's method
   * @param params - its params
   * @param key - its key in `inputRequests` (default: the method and its rank in the handler)
   * @returns the answer
   */
  ask(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    key?: string,
  ): Promise<unknown> {
    const k = key ?? `${method}#${this.#count}`;
    this.#count++;
    if (Object.hasOwn(this.answers, k)) return Promise.resolve(this.answers[k]);
    this.asked[k] = { method, params: params ?? {} };
    setTimeout(this.#fire, 0);
    return new Promise(() => {});
  }
}

/** Options of the `requestState` seal. */
export interface RequestStateOptions {
  /**
   * The HMAC keys, newest first: the first seals, every one opens (rotate by putting a new key
   * first and dropping the old one after a lifetime). Give the same keys to every process of a
   * cluster. Left out, a random key of this process: a retry must then come back to it.
   */
  readonly keys?: ReadonlyArray<string | Uint8Array>;
  /**
   * Milliseconds a `requestState` stays valid.
   *
   * @default 600000 (ten minutes)
   */
  readonly lifetime?: number;
}

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Seals and opens `requestState`. */
export interface RequestStateSeal {
  /**
   * Seals the answers of a request's rounds.
   *
   * @param binding - what the state is for (method, name, arguments)
   * @param answers - the answers so far
   * @returns the opaque state
   */
  seal(binding: string, answers: Record<string, unknown>): Promise<string>;
  /**
   * Opens a state.
   *
   * @param binding - what the retry is for
   * @param state - the state the client sent
   * @returns the answers it carries
   * @throws InvalidParamsError when it was changed, is for another request or expired
   */
  open(binding: string, state: string): Promise<Record<string, unknown>>;
}

/**
 * Creates the `requestState` seal.
 *
 * @param options - keys and lifetime
 * @returns the seal
 */
export function createRequestStateSeal(options: RequestStateOptions = {}): RequestStateSeal {
  const lifetime = options.lifetime ?? 600_000;
  const raw =
    options.keys !== undefined && options.keys.length > 0
      ? options.keys.map((k) => (typeof k === 'string' ? encoder.encode(k) : k))
      : [crypto.getRandomValues(new Uint8Array(32))];
  const keys = Promise.all(
    raw.map((k) =>
      crypto.subtle.importKey('raw', k as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'sign',
        'verify',
      ]),
    ),
  );
  const refuse = () => new InvalidParamsError('Invalid requestState');
  return {
    async seal(binding, answers) {
      const body = base64url(
        encoder.encode(JSON.stringify({ b: binding, a: answers, e: Date.now() + lifetime })),
      );
      const [key] = await keys;
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key!, encoder.encode(body)));
      return `${body}.${base64url(mac)}`;
    },
    async open(binding, state) {
      const [body, mac, extra] = state.split('.');
      if (body === undefined || mac === undefined || extra !== undefined) throw refuse();
      let signature: Uint8Array;
      let payload: { b?: unknown; a?: unknown; e?: unknown };
      try {
        signature = fromBase64url(mac);
        let valid = false;
        for (const key of await keys) {
          if (
            await crypto.subtle.verify('HMAC', key, signature as BufferSource, encoder.encode(body))
          ) {
            valid = true;
            break;
          }
        }
        if (!valid) throw refuse();
        payload = JSON.parse(new TextDecoder().decode(fromBase64url(body)));
      } catch {
        throw refuse();
      }
      if (payload.b !== binding || typeof payload.e !== 'number' || payload.e < Date.now()) {
        throw refuse();
      }
      const answers = payload.a;
      if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) throw refuse();
      return answers as Record<string, unknown>;
    },
  };
}
