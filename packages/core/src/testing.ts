/**
 * Tools for testing code built on jsonrpc-kit: a transport that injects faults (drops, delays,
 * duplicates, corruption, closes) and a transport tap that shows every message that passes.
 *
 * @module
 */
export type {
  FaultName,
  FaultRates,
  FaultyTransport,
  FaultyTransportOptions,
  InjectedFault,
} from './faulty-transport.js';
export {
  createFaultyTransport,
  DEFAULT_FAULT_DELAY_MS,
  DEFAULT_FAULT_STALL_MS,
  FAULT_NAMES,
} from './faulty-transport.js';
export type { TapDirection, TransportTap } from './tap-transport.js';
export { tapTransport } from './tap-transport.js';
