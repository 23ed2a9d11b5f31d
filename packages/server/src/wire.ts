/**
 * The raw text path of a served connection: lets server-side features that fan one serialized
 * message out to many connections (subscriptions) send text as it is, without a second
 * `JSON.stringify`. Internal to the package.
 *
 * @module
 */
import type { Peer, Transport } from '@jsonrpc-kit/core';

const wires = new WeakMap<Peer, Transport>();

/**
 * Records the transport a connection sends on.
 *
 * @param peer - the connection
 * @param transport - its transport
 */
export function bindWire(peer: Peer, transport: Transport): void {
  wires.set(peer, transport);
}

/**
 * A function that sends serialized text to a peer: straight to its transport when the peer is a
 * connection of this package, else through `peer.notify` (parsing the text once more).
 *
 * @param peer - the peer
 * @returns the sender
 */
export function wireOf(peer: Peer): (text: string) => Promise<void> {
  const transport = wires.get(peer);
  if (transport !== undefined) return (text) => transport.send(text);
  return (text) => {
    const message = JSON.parse(text) as { method: string; params?: never };
    return peer.notify(message.method, message.params);
  };
}
