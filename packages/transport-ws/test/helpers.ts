/** Test utilities: raw `ws` clients, waiting with bounds. */
import { once } from 'node:events';
import { WebSocket } from 'ws';

export function wsUrl(port: number, path = '/'): string {
  return `ws://127.0.0.1:${port}${path}`;
}

/** Opens a raw ws client and collects what it receives. */
export async function openRaw(
  url: string,
  options: ConstructorParameters<typeof WebSocket>[2] = {},
): Promise<{ ws: WebSocket; received: string[]; next(): Promise<string> }> {
  const ws = new WebSocket(url, options);
  const received: string[] = [];
  const waiters: ((text: string) => void)[] = [];
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? `<binary ${(data as Buffer).length}>` : (data as Buffer).toString();
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(text);
    else received.push(text);
  });
  await once(ws, 'open');
  return {
    ws,
    received,
    next() {
      const queued = received.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return withTimeout(new Promise<string>((resolve) => waiters.push(resolve)), 3000, 'message');
    },
  };
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Polls `check` every 5 ms, up to `ms`. */
export async function waitFor(check: () => boolean, ms = 3000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function closeCode(ws: WebSocket): Promise<number> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve(-1);
  return withTimeout(
    new Promise<number>((resolve) => ws.once('close', (code) => resolve(code))),
    3000,
    'close',
  );
}
