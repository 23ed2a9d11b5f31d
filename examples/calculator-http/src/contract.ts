/**
 * The calculator's contract: one object that types the server's implementation, types the
 * client's proxy, and validates params and results at run time on both sides.
 *
 * @module
 */
import { defineContract, method } from '@jsonrpc-kit/core';
import * as v from 'valibot';

/** The application error code answered when dividing by zero. */
export const DIVISION_BY_ZERO = 1001;

const finite = v.pipe(v.number(), v.finite());

/** The calculator contract. */
export const calculator = defineContract({
  /** `add(a, b)`: params by position, `[a, b]`. */
  add: method({
    params: v.strictTuple([finite, finite]),
    result: v.number(),
    description: 'Adds two numbers given by position: [a, b].',
  }),
  /** `subtract({ minuend, subtrahend })`: by name, or by position as `[minuend, subtrahend]`. */
  subtract: method({
    params: v.object({ minuend: finite, subtrahend: finite }),
    result: v.number(),
    description: 'Subtracts by name { minuend, subtrahend } or by position [minuend, subtrahend].',
  }),
  /** `divide({ dividend, divisor })`: error 1001 "Division by zero" when the divisor is 0. */
  divide: method({
    params: v.object({ dividend: finite, divisor: finite }),
    result: v.number(),
    description: 'Divides; answers error 1001 "Division by zero" when the divisor is 0.',
  }),
});

/** The calculator contract's type. */
export type Calculator = typeof calculator;
