import { describe, expect, it } from 'vitest';
import { createReporter } from './report.js';

describe('createReporter', () => {
  it('passes events at or above the least level, and swallows the hook throwing', () => {
    const seen: string[] = [];
    const report = createReporter((error: string) => {
      seen.push(error);
      throw new Error('hook');
    });
    report('debug', { kind: 'unknown-notification', level: 'debug' });
    report('warn', { kind: 'invalid-message', level: 'warn' });
    report('error', { kind: 'handler-failed', level: 'error' });
    expect(seen).toEqual(['warn', 'error']);
    const all: string[] = [];
    createReporter((error: string) => all.push(error), 'debug')('d', {
      kind: 'send-failed',
      level: 'debug',
    });
    expect(all).toEqual(['d']);
    expect(() => createReporter(undefined, 'info' as 'warn')).toThrow(RangeError);
  });
});
