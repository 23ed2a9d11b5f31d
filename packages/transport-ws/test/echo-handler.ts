/**
 * A small `ConnectionHandler` for the transport's own tests, built on core only: answers
 * `echo` (params back), `sleep` ([ms] then "slept"), anything else -32601; answers invalid
 * text per the spec; reports `inFlight`; aborts running calls when the transport closes.
 */
import { setMaxListeners } from 'node:events';
import {
  ConnectionClosedError,
  ErrorCode,
  type JsonRpcParams,
  parse,
  serializeError,
  serializeNotification,
  serializeSuccess,
  type Transport,
  type TransportContext,
} from '@jsonrpc-kit/core';
import type { ConnectionHandler, ConnectionLike, ParsedMessage } from '@jsonrpc-kit/core/engine';

export interface EchoConnection extends ConnectionLike {
  readonly context: TransportContext;
  readonly transport: Transport;
  readonly inFlight: number;
  readonly signals: AbortSignal[];
  closeError: Error | undefined;
  closedFired: boolean;
}

export interface EchoHandler extends ConnectionHandler<EchoConnection> {
  readonly connections: EchoConnection[];
  readonly errors: Error[];
}

export function createEchoHandler(): EchoHandler {
  const connections: EchoConnection[] = [];
  const errors: Error[] = [];
  return {
    connections,
    errors,
    connect(transport: Transport, context: TransportContext = {}): EchoConnection {
      const controller = new AbortController();
      setMaxListeners(0, controller.signal);
      let inFlight = 0;
      let resolveClosed!: () => void;
      const closed = new Promise<void>((r) => {
        resolveClosed = r;
      });
      const answer = async (item: ParsedMessage): Promise<string | undefined> => {
        if (item.kind === 'invalid') {
          return item.silent || item.response
            ? undefined
            : serializeError(item.id, item.error, item.rawId);
        }
        if (item.kind !== 'request') return undefined;
        const { method, params } = item.message;
        if (method === 'echo') return serializeSuccess(item.message.id, params ?? null, item.rawId);
        if (method === 'sleep') {
          const ms = (params as number[])[0]!;
          signals.push(controller.signal);
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, ms);
            controller.signal.addEventListener('abort', () => {
              clearTimeout(t);
              resolve();
            });
          });
          return serializeSuccess(item.message.id, 'slept', item.rawId);
        }
        return serializeError(
          item.message.id,
          { code: ErrorCode.MethodNotFound, message: 'Method not found' },
          item.rawId,
        );
      };
      const signals: AbortSignal[] = [];
      const connection: EchoConnection = {
        context,
        transport,
        signals,
        closeError: undefined,
        closedFired: false,
        get inFlight() {
          return inFlight;
        },
        closed,
        notify(method: string, params?: JsonRpcParams) {
          return transport.send(serializeNotification(method, params));
        },
        request() {
          return Promise.reject(new Error('not supported by the echo handler'));
        },
        close(reason?: unknown) {
          return transport.close(reason);
        },
      };
      void transport.start({
        onMessage(text) {
          const parsed = parse(text);
          if (parsed.kind === 'batch') {
            inFlight++;
            void Promise.all(parsed.messages.map(answer)).then((answers) => {
              inFlight--;
              const list = answers.filter((a): a is string => a !== undefined);
              if (list.length > 0) transport.send('[' + list.join(',') + ']').catch(() => {});
            });
            return;
          }
          if (parsed.kind === 'request' && parsed.message.method === 'echo') {
            // Synchronous fast path, like a real server with a sync handler.
            const params = parsed.message.params ?? null;
            transport
              .send(serializeSuccess(parsed.message.id, params, parsed.rawId))
              .catch(() => {});
            return;
          }
          inFlight++;
          void answer(parsed).then((out) => {
            inFlight--;
            if (out !== undefined) transport.send(out).catch(() => {});
          });
        },
        onClose(error) {
          connection.closeError = error;
          connection.closedFired = true;
          controller.abort(error ?? new ConnectionClosedError());
          resolveClosed();
        },
        onError(error) {
          errors.push(error);
        },
      });
      connections.push(connection);
      return connection;
    },
  };
}
