/**
 * Which upgrades the WebSocket server takes: its path, the origin policy (same origin by default),
 * and the refusal of the others with an HTTP status written on the raw socket.
 *
 * @module
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { noop } from './noop.js';
import type { OriginCheck, WebSocketServerOptions } from './server-options.js';

/** The path of a request URL, without its query string (`/` when there is none). */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Refuses an upgrade: writes an HTTP response with `status` on the socket and closes it. */
export function refuse(socket: Duplex, status: number): void {
  const text = STATUS_CODES[status] ?? 'Error';
  socket.on('error', noop);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  socket.once('finish', () => socket.destroy());
}

/** The default origin policy: no `Origin` (not a browser), or one naming the `Host` itself. */
function sameOrigin(origin: string | undefined, request: IncomingMessage): boolean {
  if (origin === undefined) return true;
  const host = request.headers.host;
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    // Compared as URL hosts, so a default port written out (`Host: a.example:443`) still matches.
    return url.host === host.toLowerCase() || url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false; // `null` and other opaque origins, or a malformed Host
  }
}

/** The origin check `allowedOrigins` asks for; `undefined` for any origin (`'*'`). */
export function originCheck(
  allowed: WebSocketServerOptions['allowedOrigins'],
): OriginCheck | undefined {
  if (allowed === '*') return undefined;
  if (allowed === undefined) return sameOrigin;
  if (typeof allowed === 'function') return allowed;
  const set = new Set(allowed.map((origin) => origin.toLowerCase()));
  return (origin) => origin === undefined || set.has(origin.toLowerCase());
}
