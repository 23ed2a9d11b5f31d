/**
 * A toy Ethereum-style chain served over JSON-RPC: `eth_chainId`, `eth_blockNumber`,
 * `eth_getBalance`, `eth_getBlockByNumber`, and `eth_subscribe("newHeads")` in the Ethereum
 * subscription dialect, with a new head every `blockTime` ms. HTTP and WebSocket share one port.
 *
 * @module
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ethereumSubscriptions, InvalidParamsError } from '@jsonrpc-kit/core';
import {
  createServer,
  createSubscriptions,
  type Server,
  type Subscriptions,
} from '@jsonrpc-kit/server';
import { createHttpHandler } from '@jsonrpc-kit/transport-http/node';
import { createWebSocketServer, type JsonRpcWebSocketServer } from '@jsonrpc-kit/transport-ws';

/** A block header as `newHeads` pushes it and `eth_getBlockByNumber` answers it (hex quantities). */
export interface BlockHeader {
  readonly number: `0x${string}`;
  readonly hash: `0x${string}`;
  readonly parentHash: `0x${string}`;
  readonly timestamp: `0x${string}`;
  readonly gasLimit: `0x${string}`;
  readonly gasUsed: `0x${string}`;
  readonly miner: `0x${string}`;
  readonly nonce: `0x${string}`;
  readonly difficulty: `0x${string}`;
  readonly extraData: `0x${string}`;
  readonly logsBloom: `0x${string}`;
  readonly sha3Uncles: `0x${string}`;
  readonly stateRoot: `0x${string}`;
  readonly transactionsRoot: `0x${string}`;
  readonly receiptsRoot: `0x${string}`;
  readonly baseFeePerGas: `0x${string}`;
}

/** Options of {@link createEthApi}. */
export interface EthApiOptions {
  /** The chain id. @default 31337 */
  readonly chainId?: number;
  /** Milliseconds between blocks. @default 50 */
  readonly blockTime?: number;
}

/** The running chain. */
export interface EthApi {
  /** The JSON-RPC server (methods and subscriptions). */
  readonly server: Server;
  /** Its subscriptions, to count subscribers. */
  readonly subscriptions: Subscriptions;
  /** The latest block number. */
  readonly blockNumber: number;
  /**
   * Listens for HTTP and WebSocket on one port.
   *
   * @param port - the port (0: any free one)
   * @param host - the host
   * @returns the port listened on
   */
  listen(port?: number, host?: string): Promise<number>;
  /**
   * Stops the blocks, closes every connection and stops listening.
   *
   * @returns resolves once closed
   */
  close(): Promise<void>;
}

const hex = (n: number | bigint): `0x${string}` => `0x${n.toString(16)}`;
const word = (n: number): `0x${string}` => `0x${n.toString(16).padStart(64, '0')}`;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}` as const;

function header(number: number, start: number): BlockHeader {
  return {
    number: hex(number),
    hash: word(number + 1),
    parentHash: word(number),
    timestamp: hex(Math.floor(start / 1000) + number),
    gasLimit: hex(30_000_000),
    gasUsed: '0x0',
    miner: ZERO_ADDRESS,
    nonce: '0x0000000000000000',
    difficulty: '0x0',
    extraData: '0x',
    logsBloom: `0x${'0'.repeat(512)}`,
    sha3Uncles: word(0),
    stateRoot: word(0),
    transactionsRoot: word(0),
    receiptsRoot: word(0),
    baseFeePerGas: hex(1_000_000_000),
  };
}

/** A made-up balance: the address's last 6 hex digits, in ether. */
function balanceOf(address: string): `0x${string}` {
  return hex(BigInt(`0x${address.slice(-6)}`) * 10n ** 18n);
}

/**
 * Makes the chain. Blocks start at 1 and advance every `blockTime` ms once `listen()` is called.
 *
 * @param options - chain id and block time
 * @returns the chain
 * @example
 * ```ts
 * const api = createEthApi();
 * const port = await api.listen(0, '127.0.0.1');
 * await api.close();
 * ```
 */
export function createEthApi(options: EthApiOptions = {}): EthApi {
  const chainId = options.chainId ?? 31_337;
  const blockTime = options.blockTime ?? 50;
  const start = Date.now();
  let number = 1;
  const server = createServer();
  const subscriptions = createSubscriptions(server, { dialect: ethereumSubscriptions });

  server.method('eth_chainId', () => hex(chainId));
  server.method('eth_blockNumber', () => hex(number));
  server.method('eth_getBalance', (params: unknown) => {
    const address = Array.isArray(params) ? params[0] : undefined;
    if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
      throw new InvalidParamsError('Expected [address, block]');
    }
    return balanceOf(address);
  });
  server.method('eth_getBlockByNumber', (params: unknown) => {
    const tag = Array.isArray(params) ? params[0] : undefined;
    const wanted = tag === 'latest' || tag === undefined ? number : Number(tag);
    if (!Number.isInteger(wanted) || wanted < 0 || wanted > number) return null;
    return { ...header(wanted, start), transactions: [], uncles: [], size: '0x0' };
  });
  subscriptions.subscription('newHeads');

  let timer: ReturnType<typeof setInterval> | undefined;
  let http: HttpServer | undefined;
  let wss: JsonRpcWebSocketServer | undefined;

  return {
    server,
    subscriptions,
    get blockNumber() {
      return number;
    },
    async listen(port = 0, host = '127.0.0.1') {
      http = createHttpServer(createHttpHandler(server));
      wss = createWebSocketServer({ server, httpServer: http });
      await new Promise<void>((resolve, reject) => {
        http!.once('error', reject);
        http!.listen(port, host, () => resolve());
      });
      timer = setInterval(() => {
        number++;
        subscriptions.publish('newHeads', header(number, start));
      }, blockTime);
      return (http.address() as AddressInfo).port;
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      await subscriptions.close();
      await wss?.close({ timeout: 100 });
      await server.close();
      if (http?.listening === true) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http!.close(() => resolve()));
      }
    },
  };
}
