/**
 * Test support for servers that a test stops and starts again on the same port.
 *
 * A port from `listen(0)` is one of the system's ephemeral ports, which any outgoing connection
 * or `listen(0)` of the machine (the rest of the suite runs beside the test) may take while the
 * server is down, so the restart fails or, worse, the client reconnects to a stranger. The
 * systems the kit runs on hand out ephemeral ports from 32768 (Linux) or 49152 (macOS, the BSDs,
 * Windows) up, so a port picked below that is one nothing takes by itself.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The ports {@link restartablePort} picks from: below every default ephemeral range. */
export const RESTARTABLE_PORTS = { low: 16_384, high: 32_768 } as const;

/**
 * The first port of Linux's ephemeral range, for tests that check a port is below it.
 *
 * @returns the port, or `undefined` where the system has no such file to read
 */
export function ephemeralStart(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
  } catch {
    return undefined;
  }
}

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port of 127.0.0.1 in {@link RESTARTABLE_PORTS}, for a server a test restarts.
 *
 * @returns the port, free when it was checked
 * @throws Error when 64 random picks were all taken
 */
export async function restartablePort(): Promise<number> {
  const { low, high } = RESTARTABLE_PORTS;
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await listens(port)) return port;
  }
  throw new Error(`No free port of 127.0.0.1 in ${low}..${high - 1}`);
}
