/**
 * Every case, in the order they run.
 *
 * @module
 */
import type { ConformanceCase } from '../context.js';
import { CANCEL_CASES } from './cancel.js';
import { HTTP_CASES } from './http.js';
import { LIMIT_CASES } from './limits.js';
import { ROBUST_CASES } from './robust.js';
import { RULE_CASES } from './rules.js';
import { SPEC_CASES } from './spec.js';
import { STDIO_CASES } from './stdio.js';
import { WS_CASES } from './ws.js';

/** Every case, in the order they run (stdio's last two look back at the whole run). */
export const ALL_CASES: readonly ConformanceCase[] = [
  ...SPEC_CASES,
  ...RULE_CASES,
  ...HTTP_CASES,
  ...WS_CASES,
  ...LIMIT_CASES,
  ...CANCEL_CASES,
  ...ROBUST_CASES,
  ...STDIO_CASES,
];
