/**
 * The calculator's implementation, typed by its contract.
 *
 * @module
 */
import { JsonRpcError } from '@jsonrpc-kit/core';
import { createServer, type Server, type ServerOptions } from '@jsonrpc-kit/server';
import { calculator, DIVISION_BY_ZERO } from './contract.js';

/**
 * Creates a server that implements the calculator contract.
 *
 * @param options - server options
 * @returns the server
 * @example
 * ```ts
 * const server = createCalculatorServer();
 * await server.handle('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}');
 * ```
 */
export function createCalculatorServer(options?: ServerOptions): Server {
  const server = createServer(options);
  server.implement(calculator, {
    add: ([a, b]) => a + b,
    subtract: ({ minuend, subtrahend }) => minuend - subtrahend,
    divide: ({ dividend, divisor }) => {
      if (divisor === 0) {
        throw new JsonRpcError(DIVISION_BY_ZERO, 'Division by zero', { dividend });
      }
      return dividend / divisor;
    },
  });
  return server;
}
