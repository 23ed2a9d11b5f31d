import { SENT } from '@jsonrpc-kit/core/engine';
import { describe, expect, it } from 'vitest';
import { Outbox, outboxCounters } from './subscription-outbox.js';

describe('Outbox, sends that did not wait', () => {
  it('costs no callback per item once the shared resolved promise is known', async () => {
    const shared = Promise.resolve();
    const sent: string[] = [];
    const outbox = new Outbox(
      {
        send(text) {
          sent.push(text);
          return shared;
        },
      },
      4,
      'close',
      () => {},
    );
    outbox.release();
    const before = outboxCounters.waited;
    outbox.push('first');
    await shared; // the first send learns that the shared promise settles at once
    await Promise.resolve();
    for (let i = 0; i < 1000; i++) expect(outbox.push(`item ${i}`)).toBe(true);
    expect(sent).toHaveLength(1001);
    expect(outbox.size).toBe(0);
    // Only the first send, before its promise was known, went through a callback.
    expect(outboxCounters.waited - before).toBe(1);
  });

  it('still waits on a promise that has not settled', async () => {
    let release!: () => void;
    const pending = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[] = [];
    const outbox = new Outbox(
      {
        send(text) {
          sent.push(text);
          return pending;
        },
      },
      2,
      'drop-newest',
      () => {},
    );
    outbox.release();
    const before = outboxCounters.waited;
    for (let i = 0; i < 5; i++) outbox.push(`item ${i}`);
    // Two in the transport's hands, two waiting here, one dropped.
    expect(sent).toEqual(['item 0', 'item 1']);
    expect(outbox.size).toBe(2);
    expect(outbox.dropped).toBe(1);
    expect(outboxCounters.waited - before).toBe(2);
    release();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual(['item 0', 'item 1', 'item 2', 'item 3']);
  });
});

describe('Outbox, a target that takes bytes', () => {
  it('hands both parts over as they are when nothing waits, and queues them joined while held', () => {
    const calls: { head: string; tail: string | undefined }[] = [];
    const texts: string[] = [];
    const decoder = new TextDecoder();
    const outbox = new Outbox(
      {
        send(text) {
          texts.push(text);
          return SENT;
        },
        sendBytes(head, tail) {
          calls.push({
            head: decoder.decode(head),
            tail: tail === undefined ? undefined : decoder.decode(tail),
          });
          return SENT;
        },
      },
      4,
      'close',
      () => {},
    );
    expect(outbox.takesBytes).toBe(true);
    const encode = (text: string) => new TextEncoder().encode(text);
    outbox.pushBytes(encode('{"a":'), encode('1}')); // held: joined, queued
    outbox.push('{"end":true}');
    expect(calls).toEqual([]);
    outbox.release();
    outbox.pushBytes(encode('{"b":'), encode('"é"}'));
    expect(calls).toEqual([
      { head: '{"a":1}', tail: undefined },
      { head: '{"b":', tail: '"é"}' },
    ]);
    expect(texts).toEqual(['{"end":true}']);
  });

  it('a target without sendBytes does not take bytes', () => {
    const outbox = new Outbox({ send: () => SENT }, 4, 'close', () => {});
    expect(outbox.takesBytes).toBe(false);
  });
});
