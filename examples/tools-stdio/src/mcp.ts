/**
 * A minimal MCP tool server on the kit: `initialize`, `notifications/initialized`, `ping`,
 * `tools/list` and `tools/call`, over any transport (stdio with newline framing in this example).
 *
 * @module
 */
import { InvalidParamsError, mcpProfile } from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';
import * as v from 'valibot';
import { inputSchemaOf, type Tool } from './tools.js';

/** The protocol version answered when the client asks for one this server does not know. */
export const DEFAULT_PROTOCOL_VERSION = '2025-06-18';

/** The MCP protocol versions this server speaks (newest first). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/** Who the server is, as `initialize` tells the client. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The tools served. */
  readonly tools: readonly Tool[];
  /** Name and version. */
  readonly info: ServerInfo;
  /** Where diagnostics go (never stdout on stdio). @default no logging */
  readonly log?: (line: string) => void;
}

/** A tool's answer, as MCP's `tools/call` result. */
export interface CallToolResult {
  readonly content: ReadonlyArray<{ readonly type: 'text'; readonly text: string }>;
  readonly isError?: boolean;
}

const InitializeParams = v.looseObject({
  protocolVersion: v.string(),
  capabilities: v.optional(v.looseObject({})),
  clientInfo: v.optional(v.looseObject({ name: v.string(), version: v.optional(v.string()) })),
});

/** `tools/list`: an optional page cursor. Clients (the MCP SDK's too) send no params at all. */
const ListParams = v.looseObject({ cursor: v.optional(v.string()) });

/** `ping`: nothing but an optional `_meta`; usually no params at all. */
const PingParams = v.looseObject({});

const CallParams = v.looseObject({
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.unknown())),
});

function textResult(text: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError: true }
    : { content: [{ type: 'text', text }] };
}

/**
 * Creates an MCP tool server.
 *
 * @param options - tools, server info and logging
 * @returns a kit server: serve it with `server.connect(createStdioTransport({ framing: 'newline' }))`
 * @throws TypeError when two tools share a name
 * @example
 * ```ts
 * const server = createMcpServer({ tools: TOOLS, info: { name: 'tools', version: '1.0.0' } });
 * server.connect(createStdioTransport({ framing: 'newline' }));
 * ```
 */
export function createMcpServer(options: McpServerOptions): Server {
  const log = options.log ?? (() => {});
  const tools = new Map<string, Tool>();
  for (const tool of options.tools) {
    if (tools.has(tool.name)) throw new TypeError(`Two tools are named "${tool.name}"`);
    tools.set(tool.name, tool);
  }
  const listed = {
    tools: options.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
    })),
  };
  const server = createServer({
    // MCP's cancellation (`notifications/cancelled` `{ requestId }`, and no answer at all) and
    // progress (`notifications/progress`, reported with `ctx.progress`).
    profile: mcpProfile,
    onError: (error, info) => log(`error in ${info.method ?? 'a message'}: ${String(error)}`),
  });

  server.method(
    'initialize',
    (params: v.InferOutput<typeof InitializeParams>) => {
      const requested = params.protocolVersion;
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : DEFAULT_PROTOCOL_VERSION;
      log(
        `initialize from ${params.clientInfo?.name ?? 'a client'} (asked ${requested}, answered ${protocolVersion})`,
      );
      return {
        protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: options.info.name, version: options.info.version },
      };
    },
    { params: InitializeParams },
  );
  server.notification('notifications/initialized', () => log('client initialized'));
  // Absent params are the schema's empty value ({}), so a bare `{"method":"ping"}` is valid.
  server.method('ping', () => ({}), { params: PingParams });
  server.method('tools/list', () => listed, { params: ListParams });
  server.method(
    'tools/call',
    async (params: v.InferOutput<typeof CallParams>, ctx): Promise<CallToolResult> => {
      const tool = tools.get(params.name);
      if (tool === undefined) {
        throw new InvalidParamsError(`Unknown tool: ${params.name}`, { name: params.name });
      }
      const parsed = v.safeParse(tool.input, params.arguments ?? {});
      if (!parsed.success) {
        const issues = parsed.issues.map((issue) => {
          const path = issue.path?.map((item) => String(item.key)).join('.');
          return path ? `${path}: ${issue.message}` : issue.message;
        });
        return textResult(`Invalid arguments for ${tool.name}: ${issues.join('; ')}`, true);
      }
      try {
        // `ctx.progress` is set when the client sent a progress token (`_meta.progressToken`).
        const report = ctx.progress;
        const progress = (done: number, total?: number): void => {
          const value = total === undefined ? { progress: done } : { progress: done, total };
          report?.(value).catch(() => {});
        };
        return textResult(await tool.run(parsed.output, ctx.signal, progress));
      } catch (error) {
        log(`tool ${tool.name} failed: ${String(error)}`);
        return textResult(
          `${tool.name} failed: ${(error as Error)?.message ?? String(error)}`,
          true,
        );
      }
    },
    { params: CallParams },
  );
  return server;
}
