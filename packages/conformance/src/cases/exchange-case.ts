/**
 * Builds the most common kind of case: send one raw message, judge the answer.
 *
 * @module
 */
import { type Expected, type ExpectedResponse, judge } from '../check.js';
import type { MethodNames, MethodRole } from '../config.js';
import type { ConformanceCase, TransportKind } from '../context.js';

/** The description of an exchange case. */
export interface ExchangeCaseOptions {
  readonly id: string;
  readonly title: string;
  /** The raw request; method names of the roles are replaced by the target's names. */
  readonly request: string;
  readonly expected: Expected;
  readonly needs?: readonly MethodRole[];
  readonly ambiguity?: string;
  readonly transports?: readonly TransportKind[];
}

const METHOD_MEMBER = /("method"\s*:\s*)"([A-Za-z_.$/]+)"/g;

/**
 * Replaces the method names of the specification's roles in a raw request by a target's names
 * (`"method": "subtract"` → `"method": "minus"`), keeping every other byte.
 *
 * @param text - a raw request
 * @param methods - the target's names
 * @returns the request for that target
 */
export function renameMethods(text: string, methods: MethodNames): string {
  return text.replace(METHOD_MEMBER, (whole, prefix: string, name: string) => {
    if (!Object.hasOwn(methods, name)) return whole;
    const mapped = methods[name as MethodRole];
    return mapped === null || mapped === name ? whole : `${prefix}${JSON.stringify(mapped)}`;
  });
}

/**
 * Creates a case that sends one raw message and judges what comes back.
 *
 * @param options - the request and what it must be answered with
 * @returns the case
 */
export function exchangeCase(options: ExchangeCaseOptions): ConformanceCase {
  const expectAnswer = !('none' in options.expected);
  return {
    id: options.id,
    title: options.title,
    ...(options.needs ? { needs: options.needs } : {}),
    ...(options.ambiguity ? { ambiguity: options.ambiguity } : {}),
    ...(options.transports ? { transports: options.transports } : {}),
    async run(ctx) {
      const answered = await ctx.exchange(
        renameMethods(options.request, ctx.config.methods),
        expectAnswer,
      );
      return judge(answered, options.expected);
    },
  };
}

/**
 * The specification's first call, `subtract` with `[42, 23]` (answer: 19), under the target's name.
 *
 * @param methods - the target's names
 * @param rawId - the id as raw JSON text
 * @returns the request text
 */
export function subtractRequest(methods: MethodNames, rawId: string): string {
  return renameMethods(
    `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":${rawId}}`,
    methods,
  );
}

/** An expected success. */
export const ok = (result: unknown, id: string): ExpectedResponse => ({ ids: [id], result });
/** An expected error with one of `codes` and one of `ids` (raw id texts). */
export const err = (codes: number | readonly number[], ...ids: string[]): ExpectedResponse => ({
  ids,
  codes: typeof codes === 'number' ? [codes] : codes,
});
