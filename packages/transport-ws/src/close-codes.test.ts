import { describe, expect, it } from 'vitest';
import { CloseCode, closeReasonText, isCleanClose } from './close-codes.js';

describe('close codes', () => {
  it('cuts reasons to 123 UTF-8 bytes on a character boundary', () => {
    expect(closeReasonText(undefined)).toBe('');
    expect(closeReasonText(new Error('bye'))).toBe('bye');
    expect(closeReasonText(42)).toBe('42');
    const long = closeReasonText('é'.repeat(100));
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(123);
    expect(long).toBe('é'.repeat(61));
    const emoji = closeReasonText('😀'.repeat(40));
    expect(new TextEncoder().encode(emoji).length).toBeLessThanOrEqual(123);
    expect(emoji).toBe('😀'.repeat(30));
  });

  it('tells clean closes from failures', () => {
    expect(isCleanClose(CloseCode.Normal)).toBe(true);
    expect(isCleanClose(CloseCode.GoingAway)).toBe(true);
    expect(isCleanClose(CloseCode.NoStatus)).toBe(true);
    expect(isCleanClose(CloseCode.Abnormal)).toBe(false);
    expect(isCleanClose(CloseCode.MessageTooBig)).toBe(false);
  });
});
