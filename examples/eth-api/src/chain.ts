/**
 * A toy Ethereum-style chain served over JSON-RPC: `eth_chainId`, `eth_blockNumber`,
 * `eth_getBalance`, `eth_getBlockByNumber`, and `eth_subscribe` of `newHeads`,
 * `newPendingTransactions` and `logs` (filtered by address and topics) in the Ethereum
 * subscription dialect, with a new block every `blockTime` ms. HTTP and WebSocket share one port.
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
/** The `Tick` event's topic: a fixed word (a real chain uses the keccak256 of the signature). */
const TICK_TOPIC = word(0x71c);

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

/** The contract address whose made-up `Tick(uint256)` log every block carries. */
export const TICKER_ADDRESS = '0x00000000000000000000000000000000000000a1';

/** A log as `eth_subscribe("logs")` pushes it. */
export interface Log {
  readonly address: string;
  readonly topics: readonly `0x${string}`[];
  readonly data: `0x${string}`;
  readonly blockNumber: `0x${string}`;
  readonly blockHash: `0x${string}`;
  readonly transactionHash: `0x${string}`;
  readonly transactionIndex: `0x${string}`;
  readonly logIndex: `0x${string}`;
  readonly removed: boolean;
}

/** Whether a log passes an `eth_subscribe("logs", filter)` filter (address and topics). */
function matches(params: unknown, log: Log): boolean {
  const filter = Array.isArray(params)
    ? (params[0] as Record<string, unknown> | undefined)
    : undefined;
  if (filter === undefined || filter === null) return true;
  const address = filter.address;
  const addresses = Array.isArray(address) ? address : address === undefined ? [] : [address];
  if (
    addresses.length > 0 &&
    !addresses.some((a) => typeof a === 'string' && a.toLowerCase() === log.address)
  ) {
    return false;
  }
  const topics = Array.isArray(filter.topics) ? filter.topics : [];
  return topics.every((topic, i) => {
    if (topic === null || topic === undefined) return true;
    const wanted = Array.isArray(topic) ? topic : [topic];
    return wanted.includes(log.topics[i]);
  });
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
  subscriptions.subscription('newPendingTransactions');
  subscriptions.subscription('logs');

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
        const head = header(number, start);
        const transactionHash = word(0x7700_0000 + number);
        subscriptions.publish('newHeads', head);
        subscriptions.publish('newPendingTransactions', transactionHash);
        const log: Log = {
          address: TICKER_ADDRESS,
          topics: [TICK_TOPIC, word(number)],
          data: '0x',
          blockNumber: head.number,
          blockHash: head.hash,
          transactionHash,
          transactionIndex: '0x0',
          logIndex: '0x0',
          removed: false,
        };
        subscriptions.publish('logs', log, (params) => matches(params, log));
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
