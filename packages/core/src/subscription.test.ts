import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineContract, method, subscription } from './contract.js';
import {
  createSubscriptionDialect,
  ethereumSubscriptions,
  genericSubscriptions,
  SubscriptionError,
} from './subscription.js';

describe('subscription()', () => {
  it('declares an entry defineContract accepts, with param names from an object schema', () => {
    const heads = subscription({ params: v.object({ full: v.boolean() }), item: v.string() });
    expect(heads.kind).toBe('subscription');
    expect(heads.paramNames).toEqual(['full']);
    expect(Object.isFrozen(heads)).toBe(true);
    expect(defineContract({ heads, now: method() }).heads).toBe(heads);
    expect(() => defineContract({ bad: { kind: 'stream' } as never })).toThrow(
      /method\(\), notification\(\) or subscription\(\)/,
    );
  });
});

describe('dialects', () => {
  it('Ethereum: the kind first, positional params after it', () => {
    const d = ethereumSubscriptions;
    expect(d.toSubscribeParams('newHeads', undefined)).toEqual(['newHeads']);
    expect(d.toSubscribeParams('logs', [{ address: '0x1' }])).toEqual(['logs', { address: '0x1' }]);
    expect(d.toSubscribeParams('logs', { address: '0x1' })).toEqual(['logs', { address: '0x1' }]);
    expect(d.fromSubscribeParams(['newHeads'])).toEqual({ name: 'newHeads', params: [] });
    expect(d.fromSubscribeParams([1])).toBeUndefined();
    expect(d.fromSubscribeParams({ name: 'x' })).toBeUndefined();
    expect(d.toUnsubscribeParams('0xab')).toEqual(['0xab']);
    expect(d.fromUnsubscribeParams(['0xab'])).toBe('0xab');
    expect(d.fromUnsubscribeParams({ subscription: '0xab' })).toBeUndefined();
    expect(d.end).toBeUndefined();
  });

  it('generic: by name, every name configurable', () => {
    const d = genericSubscriptions;
    expect(d.toSubscribeParams('ticks', { every: 1 })).toEqual({
      name: 'ticks',
      params: { every: 1 },
    });
    expect(d.fromSubscribeParams({ name: 'ticks' })).toEqual({ name: 'ticks', params: undefined });
    expect(d.fromSubscribeParams({ name: 'ticks', params: 3 })).toBeUndefined();
    expect(d.fromSubscribeParams(['ticks'])).toBeUndefined();
    expect(d.fromUnsubscribeParams({ subscription: 'a' })).toBe('a');
    expect(d.end).toBe('subscription.end');
    const custom = createSubscriptionDialect({
      subscribe: 'watch',
      idKey: 'watchId',
      nameKey: 'topic',
      end: null,
    });
    expect(custom.subscribe).toBe('watch');
    expect(custom.toSubscribeParams('files', undefined)).toEqual({ topic: 'files' });
    expect(custom.toUnsubscribeParams('w1')).toEqual({ watchId: 'w1' });
    expect(custom.end).toBeUndefined();
    expect(() => createSubscriptionDialect({ item: '' })).toThrow(TypeError);
  });

  it('SubscriptionError carries a stable code and the name', () => {
    const error = new SubscriptionError('SUBSCRIPTION_REFUSED', 'no', { name: 'x', cause: 1 });
    expect(error).toMatchObject({ code: 'SUBSCRIPTION_REFUSED', subscription: 'x', cause: 1 });
    expect(error.name).toBe('SubscriptionError');
  });
});
