import { describe, expect, it } from 'vitest';
import {
  AbortError,
  BatchTooLargeError,
  ConnectionClosedError,
  ErrorCode,
  fromErrorObject,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  isJsonRpcError,
  JsonRpcError,
  LocalError,
  MethodNotFoundError,
  ParseError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  RequestTooLargeError,
  ServerBusyError,
  TimeoutError,
  TransportError,
} from './errors.js';

describe('wire errors', () => {
  it('refuses a code that is not an integer, so it never reaches the wire', () => {
    for (const code of [1.5, Number.NaN, Number.POSITIVE_INFINITY, -32000.1]) {
      expect(() => new JsonRpcError(code, 'bad')).toThrow(TypeError);
    }
    expect(new JsonRpcError(-32000, 'ok').toErrorObject()).toEqual({ code: -32000, message: 'ok' });
  });

  it('has one class per code, each with its default message', () => {
    const cases = [
      [ParseError, -32700, 'Parse error'],
      [InvalidRequestError, -32600, 'Invalid Request'],
      [MethodNotFoundError, -32601, 'Method not found'],
      [InvalidParamsError, -32602, 'Invalid params'],
      [InternalError, -32603, 'Internal error'],
      [RequestCancelledError, -32001, 'Request cancelled'],
      [ServerBusyError, -32002, 'Server busy'],
      [BatchTooLargeError, -32003, 'Batch too large'],
      [RequestTooLargeError, -32004, 'Request too large'],
      [RequestTimeoutError, -32005, 'Request timed out'],
    ] as const;
    for (const [Class, code, message] of cases) {
      const error = new Class();
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(Class.code).toBe(code);
      expect(error.message).toBe(message);
      expect(error.name).toBe(Class.name);
      expect(error.toErrorObject()).toEqual({ code, message });
      expect(fromErrorObject({ code, message })).toBeInstanceOf(Class);
    }
    expect(Object.values(ErrorCode)).toHaveLength(cases.length);
  });

  it('carries data and serializes to the wire form', () => {
    const error = new JsonRpcError(1001, 'Division by zero', { a: 1 });
    expect(JSON.stringify(error)).toBe('{"code":1001,"message":"Division by zero","data":{"a":1}}');
  });

  it('rebuilds application errors as JsonRpcError with the call it belongs to', () => {
    const error = fromErrorObject({ code: 42, message: 'nope', data: [1] }, { method: 'm', id: 7 });
    expect(error.constructor).toBe(JsonRpcError);
    expect(error).toMatchObject({ code: 42, message: 'nope', data: [1], method: 'm', id: 7 });
    expect(error).not.toBeInstanceOf(MethodNotFoundError);
  });

  it('recognizes errors from another copy of the package through the brand', () => {
    // What a second copy of this package would build: same brand, another class.
    const foreign = Object.assign(new Error('Method not found'), { code: -32601 });
    Object.defineProperty(foreign, Symbol.for('@jsonrpc-kit/core/JsonRpcError'), { value: true });
    expect(foreign).toBeInstanceOf(JsonRpcError);
    expect(foreign).toBeInstanceOf(MethodNotFoundError);
    expect(foreign).not.toBeInstanceOf(InvalidParamsError);
    expect(isJsonRpcError(foreign)).toBe(true);
    expect(isJsonRpcError(new Error('x'))).toBe(false);
    expect(isJsonRpcError(null)).toBe(false);
  });

  it('keeps user subclasses working with instanceof', () => {
    class DivisionByZero extends JsonRpcError {
      constructor() {
        super(1001, 'Division by zero');
      }
    }
    const error = new DivisionByZero();
    expect(error).toBeInstanceOf(DivisionByZero);
    expect(new JsonRpcError(1001, 'x')).not.toBeInstanceOf(DivisionByZero);
  });
});

describe('local errors', () => {
  it('carry a string code, the call, and never look like wire errors', () => {
    const cases = [
      [new TimeoutError(50, { method: 'sum', id: 3 }), 'TIMEOUT', TimeoutError],
      [new AbortError({ method: 'sum', id: 3, cause: 'user' }), 'ABORTED', AbortError],
      [
        new ConnectionClosedError(undefined, { method: 'sum', id: 3 }),
        'CONNECTION_CLOSED',
        ConnectionClosedError,
      ],
      [
        new TransportError('HTTP 500', { method: 'sum', id: 3, status: 500, body: 'x' }),
        'TRANSPORT_ERROR',
        TransportError,
      ],
      [
        new ProtocolError('bad answer', '{}', { method: 'sum', id: 3 }),
        'PROTOCOL_ERROR',
        ProtocolError,
      ],
    ] as const;
    for (const [error, code, Class] of cases) {
      expect(error.code).toBe(code);
      expect(Class.code).toBe(code);
      expect(error).toBeInstanceOf(LocalError);
      expect(error).not.toBeInstanceOf(JsonRpcError);
      expect(error.method).toBe('sum');
      expect(error.id).toBe(3);
      expect(error.message).toContain('sum');
      expect(error.name).toBe(Class.name);
    }
    expect(new TimeoutError(50).message).toBe('Request timed out after 50 ms');
    expect(new AbortError({ cause: 'user' }).cause).toBe('user');
    expect(new TransportError('x', { status: 502, body: 'bad' })).toMatchObject({
      status: 502,
      body: 'bad',
    });
  });
});
