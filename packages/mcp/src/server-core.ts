/**
 * What the parts of an MCP server share: the registered tools, resources, templates and prompts,
 * the helpers that read params and shape results, and {@link McpServerCore}, the state
 * `createMcpServer` hands each group of methods it registers.
 *
 * @module
 */

import { InvalidParamsError } from '@jsonrpc-kit/core';
import { formatIssues, type StandardSchemaIssue } from '@jsonrpc-kit/core/engine';
import type { HandlerContext, Server } from '@jsonrpc-kit/server';
import type { McpClientStore } from './client-store.js';
import type { CallContext, ClientState } from './context.js';
import type {
  PromptArgs,
  PromptDefinition,
  PromptHandler,
  PromptReturn,
  ResourceDefinition,
  ResourceHandler,
  ResourceReturn,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  ToolDefinition,
  ToolHandler,
  ToolInput,
} from './definitions.js';
import { defined, isRecord } from './records.js';
import type { McpServerOptions } from './server-api.js';
import type { TaskManager, TaskStarter } from './tasks/tasks.js';
import type { CallToolResult, GetPromptResult } from './types.js';
import type { UriTemplate } from './uri-template.js';

export interface ToolEntry {
  readonly name: string;
  readonly definition: ToolDefinition<ToolInput | undefined, ToolInput | undefined>;
  readonly handler: ToolHandler<unknown, unknown>;
  listed?: Promise<Record<string, unknown>>;
}

export interface ResourceEntry {
  readonly name: string;
  readonly uri: string;
  readonly definition: ResourceDefinition;
  readonly handler: ResourceHandler;
}

export interface TemplateEntry {
  readonly name: string;
  readonly template: UriTemplate;
  readonly definition: ResourceTemplateDefinition;
  readonly handler: ResourceTemplateHandler;
}

export interface PromptEntry {
  readonly name: string;
  readonly definition: PromptDefinition<PromptArgs | undefined>;
  readonly handler: PromptHandler<unknown>;
  listed?: Promise<Record<string, unknown>>;
}

export type ListKind = 'tools' | 'resources' | 'prompts';

/** What a tool's name may be. */
export const TOOL_NAME: RegExp = /^[A-Za-z0-9_.-]{1,128}$/;

export function paramsOf(params: unknown): Record<string, unknown> {
  if (params === undefined) return {};
  if (!isRecord(params)) throw new InvalidParamsError('Params must be an object');
  return params;
}

export function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw new InvalidParamsError(`"${name}" must be a string`);
  return value;
}

export function encodeCursor(offset: number): string {
  return btoa(`o:${offset}`);
}

export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string') {
    try {
      const match = /^o:(\d+)$/.exec(atob(cursor));
      if (match) return Number(match[1]);
    } catch {
      // an invalid cursor, answered below
    }
  }
  throw new InvalidParamsError('Invalid cursor', { cursor });
}

export function issuesText(issues: ReadonlyArray<StandardSchemaIssue>): string {
  return formatIssues(issues)
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function readResult(
  value: ResourceReturn,
  uri: string,
  mimeType: string | undefined,
): Record<string, unknown> {
  if (typeof value === 'string') {
    return { contents: [defined({ uri, mimeType, text: value })] };
  }
  if (value instanceof Uint8Array) {
    return { contents: [defined({ uri, mimeType, blob: bytesToBase64(value) })] };
  }
  return value as unknown as Record<string, unknown>;
}

export function promptResult(
  value: PromptReturn,
  description: string | undefined,
): GetPromptResult {
  if (typeof value === 'string') {
    return defined({
      description,
      messages: [{ role: 'user', content: { type: 'text', text: value } }],
    }) as GetPromptResult;
  }
  if (Array.isArray(value)) {
    return defined({
      description,
      messages: value as GetPromptResult['messages'],
    }) as GetPromptResult;
  }
  const result = value as GetPromptResult;
  return result.description === undefined && description !== undefined
    ? { ...result, description }
    : result;
}

/** What `createMcpServer` hands each group of methods it registers. */
export interface McpServerCore {
  /** The server's options. */
  readonly options: McpServerOptions;
  /** The kit server underneath. */
  readonly server: Server;
  /** The revisions with `initialize`. */
  readonly versions: readonly string[];
  /** The stateless revisions. */
  readonly statelessVersions: readonly string[];
  /** Where each client's state is kept for a cluster, if anywhere. */
  readonly clients: McpClientStore | undefined;
  /** `serverInfo`. */
  readonly serverInfo: Record<string, unknown>;
  /** The tools by name. */
  readonly tools: Map<string, ToolEntry>;
  /** The resources by URI. */
  readonly resources: Map<string, ResourceEntry>;
  /** The resource templates by template. */
  readonly templates: Map<string, TemplateEntry>;
  /** The prompts by name. */
  readonly prompts: Map<string, PromptEntry>;
  /** One page of a list, from a cursor. */
  page<T>(items: readonly T[], cursor: unknown): { items: T[]; nextCursor?: string };
  /** A list result with its `nextCursor`, if any. */
  listed(result: Record<string, unknown>, next: string | undefined): Record<string, unknown>;
  /** The client of a call: its connection's (2025), or the request's `_meta` (2026). */
  clientOf(ctx: HandlerContext, raw: unknown): ClientState;
  /** The server's capabilities, from what is registered now. */
  capabilitiesNow(): Record<string, unknown>;
  /** Registers an MCP method (see `createMcpServer`). */
  method(name: string, handler: (raw: unknown, ctx: HandlerContext) => unknown): void;
  /** Runs a handler that may ask the client for input (see `createMcpServer`). */
  withInput(
    raw: unknown,
    ctx: HandlerContext,
    binding: string,
    run: (context: CallContext) => Promise<unknown>,
    task?: TaskStarter,
  ): Promise<unknown>;
  /** The tasks of the Tasks extension. */
  readonly taskManager: TaskManager;
}
