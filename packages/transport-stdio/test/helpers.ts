import { fileURLToPath } from 'node:url';
import type { Transport, TransportHandler } from '@jsonrpc-kit/core';

/** Path of a fixture script. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** A handler that records everything, with ways to wait for it. */
export interface Recorder extends TransportHandler {
  readonly messages: string[];
  readonly errors: Error[];
  readonly closes: (Error | undefined)[];
  /** Resolves with the first message matching `test`. */
  next(test?: (message: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves with the close error once closed. */
  closed(timeoutMs?: number): Promise<Error | undefined>;
}

export function recorder(): Recorder {
  const messages: string[] = [];
  const errors: Error[] = [];
  const closes: (Error | undefined)[] = [];
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  const waitFor = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const done = check();
      if (done !== undefined) {
        resolve(done);
        return;
      }
      const timer = setTimeout(() => {
        waiters.delete(poll);
        reject(new Error(`Timed out waiting for ${what}`));
      }, timeoutMs);
      const poll = (): void => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(poll);
        resolve(value);
      };
      waiters.add(poll);
    });
  let seen = 0;
  return {
    messages,
    errors,
    closes,
    onMessage(message) {
      messages.push(message);
      wake();
    },
    onClose(error) {
      closes.push(error);
      wake();
    },
    onError(error) {
      errors.push(error);
      wake();
    },
    next(test = () => true, timeoutMs = 5000) {
      return waitFor(
        () => {
          for (; seen < messages.length; seen++) {
            if (test(messages[seen]!)) return messages[seen++]!;
          }
          return undefined;
        },
        timeoutMs,
        'a message',
      );
    },
    closed(timeoutMs = 5000) {
      return waitFor(
        () => (closes.length > 0 ? { error: closes[0] } : undefined),
        timeoutMs,
        'close',
      ).then((c) => c.error);
    },
  };
}

/** Sends a request and waits for the answer with the same id. */
export async function call(
  transport: Transport,
  rec: Recorder,
  id: number,
  method: string,
  params?: unknown,
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  await transport.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  const text = await rec.next((m) => (JSON.parse(m) as { id?: unknown }).id === id);
  return JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } };
}
