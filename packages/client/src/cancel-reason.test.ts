import { AbortError, mcpProfile } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { rawPeer } from '../test/raw-peer.js';

const cancelled = (id: number, reason: string): string =>
  `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id},"reason":${JSON.stringify(reason)}}}`;

describe("the cancel notice carries the abort signal's reason", () => {
  it('sends a string reason, an error message, or "aborted" for a bare abort()', async () => {
    const peer = rawPeer({ profile: mcpProfile, sendCancel: true });
    const cases: Array<[unknown[], string]> = [
      [['user pressed stop'], 'user pressed stop'],
      [[new Error('window closed')], 'window closed'],
      [[], 'aborted'],
    ];
    let id = 0;
    for (const [args, expected] of cases) {
      id++;
      const controller = new AbortController();
      const call = peer.client.request('tools/call', {}, { signal: controller.signal });
      await peer.next();
      controller.abort(...args);
      await expect(call).rejects.toBeInstanceOf(AbortError);
      expect(await peer.next()).toBe(cancelled(id, expected));
    }
    await peer.client.close();
  });

  it('says "timeout" for a call that timed out or a signal of AbortSignal.timeout()', async () => {
    const peer = rawPeer({ profile: mcpProfile, sendCancel: true });
    const timed = peer.client.request('slow', {}, { timeout: 5 });
    await peer.next();
    await expect(timed).rejects.toThrow();
    expect(await peer.next()).toBe(cancelled(1, 'timeout'));
    const viaSignal = peer.client.request('slow', {}, { signal: AbortSignal.timeout(5) });
    await peer.next();
    await expect(viaSignal).rejects.toThrow();
    expect(await peer.next()).toBe(cancelled(2, 'timeout'));
    await peer.client.close();
  });
});
