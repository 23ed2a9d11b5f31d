import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  defineContract,
  isDeclaredError,
  method,
  notification,
  paramNamesOf,
  paramsShapeOf,
  subscription,
} from './contract.js';
import { JsonRpcError } from './errors.js';
import { formatIssues, isStandardSchema, validate } from './schema.js';

const calculator = defineContract({
  add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
  divide: method({
    params: v.object({ a: v.number(), b: v.number() }),
    result: v.number(),
    description: 'a / b',
  }),
  parse: method({ params: v.tuple([v.string()]), result: v.pipe(v.string(), v.transform(Number)) }),
  ping: method(),
  log: notification({ params: v.object({ message: v.string() }) }),
});

describe('contracts', () => {
  it('keeps definitions as given, frozen', () => {
    expect(calculator.add.kind).toBe('method');
    expect(calculator.log.kind).toBe('notification');
    expect(calculator.divide.description).toBe('a / b');
    expect(Object.isFrozen(calculator)).toBe(true);
    expect(Object.isFrozen(calculator.add)).toBe(true);
  });

  it('reads parameter names from object schemas, in order', () => {
    expect(calculator.divide.paramNames).toEqual(['a', 'b']);
    expect(calculator.log.paramNames).toEqual(['message']);
    expect(calculator.add.paramNames).toBeUndefined();
    expect(method({ params: v.tuple([v.number()]), paramNames: ['n'] }).paramNames).toEqual(['n']);
    expect(paramNamesOf({ shape: { x: 1, y: 2 } })).toEqual(['x', 'y']);
    expect(paramNamesOf({ type: 'object', properties: { q: {} } })).toEqual(['q']);
    expect(paramNamesOf(undefined)).toBeUndefined();
  });

  it('tells the shape of params a schema takes', () => {
    expect(paramsShapeOf(v.object({ a: v.number() }))).toBe('byName');
    expect(paramsShapeOf(v.tuple([]))).toBe('byPosition');
    expect(paramsShapeOf(v.strictTuple([v.string()]))).toBe('byPosition');
    expect(paramsShapeOf(v.array(v.number()))).toBe('byPosition');
    expect(paramsShapeOf({ type: 'array', items: { type: 'number' } })).toBe('byPosition');
    expect(paramsShapeOf({ def: { type: 'tuple' } })).toBe('byPosition');
    expect(paramsShapeOf(v.string())).toBeUndefined();
    expect(paramsShapeOf(undefined)).toBeUndefined();
  });

  it('refuses entries not made by method() or notification()', () => {
    expect(() => defineContract({ bad: { kind: 'other' } as never })).toThrow(TypeError);
  });

  it('validates with any Standard Schema, synchronously when the schema is sync', () => {
    expect(isStandardSchema(calculator.add.params)).toBe(true);
    expect(isStandardSchema({})).toBe(false);
    const ok = validate(calculator.add.params, [1, 2]);
    expect(ok).not.toBeInstanceOf(Promise);
    expect(ok).toMatchObject({ value: [1, 2] });
    expect((ok as { issues?: unknown }).issues).toBeUndefined();
    const bad = validate(calculator.divide.params, { a: 1, b: 'x' });
    if (bad instanceof Promise || bad.issues === undefined) throw new Error('expected issues');
    expect(formatIssues(bad.issues)).toEqual([
      { path: 'b', message: expect.stringContaining('Expected number') },
    ]);
  });

  it('formats issue paths of every shape', () => {
    expect(
      formatIssues([{ message: 'a', path: ['x', 0, { key: 'y' }] }, { message: 'root' }]),
    ).toEqual([
      { path: 'x.0.y', message: 'a' },
      { path: '', message: 'root' },
    ]);
  });
});

describe('defineContract refuses schemas that are not Standard Schemas', () => {
  it('names the entry and the member', () => {
    const notASchema = { type: 'number' } as never;
    expect(() => defineContract({ add: method({ params: notASchema }) })).toThrow(
      /^Contract entry "add": params must be a Standard Schema .*got an object without it$/,
    );
    expect(() => defineContract({ add: method({ result: notASchema }) })).toThrow(
      /^Contract entry "add": result must be a Standard Schema/,
    );
    expect(() => defineContract({ heads: subscription({ item: notASchema }) })).toThrow(
      /^Contract entry "heads": item must be a Standard Schema/,
    );
  });
});

describe('isDeclaredError', () => {
  const contract = defineContract({
    withdraw: method({
      result: v.number(),
      docs: {
        errors: [
          { code: 4001, message: 'Insufficient funds' },
          { code: 4002, message: 'Frozen' },
        ],
      },
    }),
    balance: method({ result: v.number() }),
    log: notification({ docs: { errors: [{ code: 4001, message: 'never answered' }] } }),
  });

  it('tells the errors a method declares from the others', () => {
    expect(isDeclaredError(contract.withdraw, new JsonRpcError(4001, 'no'))).toBe(true);
    expect(isDeclaredError(contract.withdraw, new JsonRpcError(4002, 'no'), 4002)).toBe(true);
    expect(isDeclaredError(contract.withdraw, new JsonRpcError(4002, 'no'), 4001)).toBe(false);
    expect(isDeclaredError(contract.withdraw, new JsonRpcError(-32603, 'no'))).toBe(false);
    expect(isDeclaredError(contract.withdraw, { code: 4001, message: 'no' })).toBe(false);
    expect(isDeclaredError(contract.withdraw, new Error('no'))).toBe(false);
    expect(isDeclaredError(contract.balance, new JsonRpcError(4001, 'no'))).toBe(false);
    // A notification has no answer, so no error of it reaches a caller.
    expect(isDeclaredError(contract.log, new JsonRpcError(4001, 'no'))).toBe(false);
  });
});
