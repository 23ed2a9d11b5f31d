/**
 * The redirect receiver of a CLI or desktop app (RFC 8252 §7.3): an HTTP server on the loopback
 * interface, on a port the system picks, that takes the authorization server's redirect, answers
 * the browser a small page, and hands the callback URL (its `code`, `state`, `iss`) to
 * `createOAuthClient`.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link createLoopbackReceiver}. */
export interface LoopbackReceiverOptions {
  /**
   * Opens the authorization URL in the user's browser (`open` of a package, `xdg-open`, printing
   * it). Called by `authorize` once the receiver waits for the redirect.
   */
  readonly open: (authorizationUrl: URL) => void | Promise<void>;
  /**
   * The loopback address to listen on (RFC 8252 §8.3: an IP literal, not `localhost`).
   *
   * @default '127.0.0.1'
   */
  readonly host?: '127.0.0.1' | '::1';
  /**
   * The port. `0` lets the system pick a free one (the authorization server must accept any port
   * of a loopback redirect URI, RFC 8252 §7.3).
   *
   * @default 0
   */
  readonly port?: number;
  /**
   * The path of the redirect URI.
   *
   * @default '/callback'
   */
  readonly path?: string;
  /**
   * How long `authorize` waits for the redirect, in ms, before it rejects.
   *
   * @default 300000 (five minutes)
   */
  readonly timeoutMs?: number;
  /** The page's title when the authorization came back (an error is shown as such). */
  readonly successMessage?: string;
}

/** A listening redirect receiver; see {@link createLoopbackReceiver}. */
export interface LoopbackReceiver extends AsyncDisposable {
  /** The redirect URI to register and give `createOAuthClient` (`http://127.0.0.1:<port>/callback`). */
  readonly redirectUri: string;
  /**
   * The browser step of `createOAuthClient`: opens the authorization URL and resolves with the
   * URL the authorization server redirected the browser to (one with the URL's `state`).
   *
   * @param authorizationUrl - the URL to send the user to
   * @returns the callback URL
   * @throws Error when no redirect came within `timeoutMs`, or the receiver was closed
   */
  authorize(authorizationUrl: URL): Promise<string>;
  /**
   * Stops listening (a pending `authorize` rejects).
   *
   * @returns resolves when the server is closed
   */
  close(): Promise<void>;
}

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function page(title: string, detail: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>`;
}

/**
 * Starts a redirect receiver on the loopback interface for an OAuth authorization in a browser
 * (RFC 8252): give its `redirectUri` and `authorize` to `createOAuthClient`. Each `authorize` opens
 * the browser, waits (at most `timeoutMs`) for the redirect carrying the authorization request's
 * `state`, answers the browser a short page, and resolves with the callback URL; a request
 * without that `state` is answered 400 and ignored. The server listens until `close()` (a step-up
 * authorization later reuses it) and does not keep the process alive.
 *
 * @param options - how to open the browser, host, port, path, timeout
 * @returns the listening receiver
 * @throws Error when it cannot listen
 * @example
 * ```ts
 * const receiver = await createLoopbackReceiver({ open: (url) => console.log(`Open ${url}`) });
 * const auth = createOAuthClient({
 *   redirectUri: receiver.redirectUri,
 *   authorize: receiver.authorize,
 *   clientMetadata: { client_name: 'my-cli' },
 * });
 * ```
 */
export async function createLoopbackReceiver(
  options: LoopbackReceiverOptions,
): Promise<LoopbackReceiver> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/callback';
  const timeoutMs = options.timeoutMs ?? 300_000;
  /** The authorizations waiting for their redirect, by `state`. */
  const waiting = new Map<string, { resolve: (url: string) => void; fail: (e: Error) => void }>();

  const answer = (res: ServerResponse, status: number, title: string, detail: string): void => {
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(page(title, detail));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    const state = url.searchParams.get('state');
    const pending = state === null ? undefined : waiting.get(state);
    if (req.method !== 'GET' || url.pathname !== path || pending === undefined) {
      answer(res, 400, 'Unexpected request', 'No authorization is waiting for this redirect.');
      return;
    }
    waiting.delete(state!);
    const error = url.searchParams.get('error');
    if (error !== null) {
      const description = url.searchParams.get('error_description');
      answer(res, 200, 'Authorization failed', description ?? error);
    } else {
      answer(
        res,
        200,
        options.successMessage ?? 'Authorization complete',
        'You can close this window and return to the application.',
      );
    }
    // The callback URL as a whole: `createOAuthClient` reads the code or the error from it.
    pending.resolve(url.href);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  const base = `http://${host === '::1' ? '[::1]' : host}:${port}`;
  const redirectUri = `${base}${path}`;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      for (const pending of waiting.values()) pending.fail(new Error('the receiver was closed'));
      waiting.clear();
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };

  return {
    redirectUri,
    authorize: async (authorizationUrl) => {
      if (closed !== undefined) throw new Error('the loopback receiver is closed');
      const state = authorizationUrl.searchParams.get('state');
      if (state === null) throw new Error('the authorization URL has no state');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const redirected = new Promise<string>((resolve, reject) => {
        waiting.set(state, { resolve, fail: reject });
        timer = setTimeout(() => {
          waiting.delete(state);
          reject(new Error(`no authorization redirect came within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      try {
        await options.open(authorizationUrl);
        return await redirected;
      } finally {
        clearTimeout(timer);
        waiting.delete(state);
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
