import { describe, expect, it } from 'vitest';
import type { TransportHandler } from './transport.js';
import { createTransportState } from './transport-state.js';

function recorder(): { handler: TransportHandler; events: string[] } {
  const events: string[] = [];
  return {
    events,
    handler: {
      onMessage: (message) => {
        if (message === 'throw') throw new Error('owner failed');
        events.push(`message ${message}`);
      },
      onClose: (error) => events.push(`close ${error?.message ?? ''}`),
      onError: (error) => events.push(`error ${error.message}`),
    },
  };
}

describe('createTransportState', () => {
  it('buffers what arrives before start, in order, then a close that came before', async () => {
    const state = createTransportState();
    state.deliver('a');
    state.report(new Error('bad frame'));
    state.deliver('b');
    state.close(new Error('gone'));
    state.deliver('after close');
    const { handler, events } = recorder();
    await state.start(handler);
    expect(events).toEqual(['message a', 'error bad frame', 'message b', 'close gone']);
  });

  it('starts once', async () => {
    const state = createTransportState();
    await state.start(recorder().handler);
    await expect(state.start(recorder().handler)).rejects.toThrow('already started');
  });

  it('calls onClose exactly once, and close() says whether it was the first', async () => {
    const state = createTransportState();
    const { handler, events } = recorder();
    await state.start(handler);
    expect(state.close()).toBe(true);
    expect(state.close(new Error('again'))).toBe(false);
    state.deliver('late');
    expect(events).toEqual(['close ']);
    expect(state.closed).toBe(true);
  });

  it('reports an exception from onMessage and keeps delivering', async () => {
    const state = createTransportState();
    const { handler, events } = recorder();
    await state.start(handler);
    state.deliver('throw');
    state.deliver('next');
    expect(events).toEqual(['error owner failed', 'message next']);
  });

  it('makes no closure per transport: every state shares its methods', () => {
    const a = createTransportState();
    const b = createTransportState();
    // Counting objects: one per transport (and its inbox), the behaviour on the prototype.
    for (const name of ['start', 'deliver', 'report', 'close'] as const) {
      expect(a[name], name).toBe(b[name]);
    }
    expect(Object.getOwnPropertyNames(a)).toEqual([]);
  });
});
