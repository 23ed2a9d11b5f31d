/**
 * Test helper: a client on one end of a memory pair, and a hand-driven raw peer on the other
 * that records every text it receives and answers with raw text.
 */
import { createMemoryTransportPair, type Transport } from '@jsonrpc-kit/core';
import { type Client, type ClientOptions, createClient } from '../src/index.js';

export interface RawPeer {
  readonly client: Client;
  /** Every text the peer received, in order. */
  readonly received: string[];
  /** Errors the client reported through onError. */
  readonly errors: Error[];
  /** Waits for the next received text not yet taken by `next()`. */
  next(): Promise<string>;
  /** Sends raw text to the client. */
  reply(text: string): Promise<void>;
  /** Lets queued microtasks and message deliveries run. */
  settle(): Promise<void>;
  /** The peer's transport (to close it from that side). */
  readonly transport: Transport;
}

export async function flushMicrotasks(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

export function rawPeer(options: ClientOptions = {}): RawPeer {
  const [clientSide, peerSide] = createMemoryTransportPair();
  const received: string[] = [];
  const errors: Error[] = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  void peerSide.start({
    onMessage(text) {
      received.push(text);
      for (const wake of waiters.splice(0)) wake();
    },
    onClose() {},
  });
  const client = createClient(clientSide, {
    onError: (error) => errors.push(error),
    ...options,
  });
  return {
    client,
    received,
    errors,
    transport: peerSide,
    async next() {
      for (let i = 0; i < 1000 && taken >= received.length; i++) {
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 5);
        });
      }
      if (taken >= received.length) throw new Error('No message arrived');
      return received[taken++]!;
    },
    reply(text) {
      return peerSide.send(text);
    },
    settle: () => flushMicrotasks(),
  };
}
