/**
 * The option names each factory of this package knows: an unknown name (misspelt, or renamed) is
 * refused with a `TypeError` instead of being ignored, naming the replacement of a renamed one.
 *
 * @module
 */
import { checkOptionNames, type OptionNames } from '@jsonrpc-kit/core/engine';
import type { HttpHandlerOptions } from './handler-options.js';
import type { HttpTransportOptions } from './post-transport.js';
import type { OriginGuardOptions } from './request-policy.js';
import type { StreamableHttpHandlerOptions } from './streamable-options.js';
import type { StreamableHttpTransportOptions } from './streamable-transport-options.js';

/** Every name of {@link HttpHandlerOptions} (`listen()` adds its own to them). */
export const HANDLER_OPTION_NAMES: OptionNames<HttpHandlerOptions> = {
  maxMessageBytes: true,
  bodyTimeout: true,
  requireJsonContentType: true,
  status: true,
  cors: true,
  authenticate: true,
  onError: true,
};

const ORIGIN_GUARD: OptionNames<OriginGuardOptions> = {
  allowedOrigins: true,
  allowedHosts: true,
  dnsRebindingProtection: true,
};

const STREAMABLE: OptionNames<StreamableHttpHandlerOptions> = {
  ...HANDLER_OPTION_NAMES,
  ...ORIGIN_GUARD,
  sessions: true,
  eventStore: true,
  responseMode: true,
  keepAliveInterval: true,
  maxBufferedEvents: true,
  maxBufferedBytes: true,
  protocolVersions: true,
  pushMethods: true,
};

const TRANSPORT: OptionNames<HttpTransportOptions> = {
  url: true,
  headers: true,
  fetch: true,
  timeout: true,
  maxMessageBytes: true,
};

/** The Node entry's `createHttpTransport` takes the pool's options too. */
const NODE_TRANSPORT: Readonly<Record<string, true>> = {
  ...TRANSPORT,
  dispatcher: true,
  connections: true,
  keepAliveTimeout: true,
  pipelining: true,
};

const STREAMABLE_TRANSPORT: OptionNames<StreamableHttpTransportOptions> = {
  url: true,
  headers: true,
  fetch: true,
  sessionHeader: true,
  stream: true,
  reconnect: true,
  onSessionExpired: true,
  maxMessageBytes: true,
};

/** Old option names of this package's factories, and what replaced them. */
export const RENAMED_HTTP_OPTIONS: Readonly<Record<string, string>> = {
  maxRequestBytes: 'maxMessageBytes',
};

/** A factory of this package whose options are checked. */
type HttpFactory =
  | 'createHttpHandler'
  | 'createFetchHandler'
  | 'createStreamableHttpHandler'
  | 'createHttpTransport'
  | 'createHttpTransport (node)'
  | 'createStreamableHttpTransport';

/** The option names of each factory, by the name its errors give. */
const KNOWN: Readonly<Record<HttpFactory, Readonly<Record<string, true>>>> = {
  createHttpHandler: HANDLER_OPTION_NAMES,
  createFetchHandler: HANDLER_OPTION_NAMES,
  createStreamableHttpHandler: STREAMABLE,
  createHttpTransport: TRANSPORT,
  'createHttpTransport (node)': NODE_TRANSPORT,
  createStreamableHttpTransport: STREAMABLE_TRANSPORT,
};

/**
 * Refuses option names the factory does not know.
 *
 * @param factory - which factory
 * @param options - what it was given
 * @throws TypeError for an unknown name, naming the replacement of a renamed one
 */
export function checkHttpOptions(factory: HttpFactory, options: unknown): void {
  checkOptionNames(factory.replace(' (node)', ''), options, KNOWN[factory], RENAMED_HTTP_OPTIONS);
}
