/**
 * Raw HTTP exchanges with a target: one request, its status, headers and body text.
 *
 * @module
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createReadBudget, type ReadBudget } from './budget.js';
import { pause } from './pause.js';

/** What an HTTP target answered. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How to send one HTTP request. */
export interface HttpSendOptions {
  /** The HTTP method. @default 'POST' */
  readonly method?: string;
  /** The body, whole or in parts written one after another. */
  readonly body?: string | Buffer | readonly Buffer[];
  /** The pause between parts, in milliseconds. @default 0 */
  readonly delayMs?: number;
  /** Request headers; `content-type: application/json` unless given. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The deadline for the whole exchange, in milliseconds. */
  readonly timeoutMs: number;
  /** The deadline as a failure tells it. @default "`timeoutMs` ms" */
  readonly waitText?: string;
  /** Counts the body's bytes; past its bound the exchange is dropped. @default no bound */
  readonly budget?: ReadBudget;
}

/**
 * Sends one raw HTTP request and reads the whole answer.
 *
 * @param url - the endpoint
 * @param options - method, body, headers and deadline
 * @returns status, headers and body text
 * @throws Error when the connection fails, the deadline passes or the body passes the budget
 */
export function httpSend(url: string, options: HttpSendOptions): Promise<HttpAnswer> {
  const parts =
    options.body === undefined
      ? []
      : typeof options.body === 'string'
        ? [Buffer.from(options.body, 'utf8')]
        : Buffer.isBuffer(options.body)
          ? [options.body]
          : options.body;
  const length = parts.reduce((n, part) => n + part.length, 0);
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...options.headers,
  };
  if (method !== 'GET') headers['content-length'] = String(length);
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const budget = options.budget ?? createReadBudget(Number.POSITIVE_INFINITY);
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(answer!);
    };
    const timer = setTimeout(
      () =>
        finish(new Error(`no HTTP answer within ${options.waitText ?? `${options.timeoutMs} ms`}`)),
      options.timeoutMs,
    );
    const req = send(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (budget.take(chunk.length)) chunks.push(chunk);
        else {
          chunks.length = 0;
          finish(new Error(budget.describe()));
        }
      });
      res.on('error', (error) => finish(error));
      res.on('end', () => {
        finish(undefined, {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    // A server may answer (413, say) and close before the whole body is written: that is fine.
    req.on('error', (error) => finish(error));
    void (async () => {
      for (let i = 0; i < parts.length; i++) {
        if (settled || req.destroyed) return;
        if (i > 0 && options.delayMs) await pause(options.delayMs);
        req.write(parts[i]!);
      }
      if (!settled && !req.destroyed) req.end();
    })();
  });
}
