/**
 * What a server registers: tools, resources, resource templates and prompts, and the handlers
 * that answer them.
 *
 * @module
 */
import type { InferInput, InferOutput, StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { McpContext } from './context.js';
import type { JsonSchema, ObjectJsonSchema } from './json-schema.js';
import type {
  Content,
  ContentAnnotations,
  GetPromptResult,
  PromptMessage,
  ResourceContents,
  ResourceInfo,
  ToolAnnotations,
} from './types.js';
import type { UriVariables } from './uri-template.js';

/** A tool's input: a Standard Schema of an object (validated, typed), or a JSON Schema (shown as it is, not validated). */
export type ToolInput = StandardSchemaV1 | ObjectJsonSchema;

/** The arguments a tool handler gets for an input schema. */
export type ArgumentsOf<I> = I extends StandardSchemaV1
  ? InferOutput<I>
  : Readonly<Record<string, unknown>>;

/** The `structuredContent` a tool returns for an output schema. */
export type StructuredOf<O> = O extends StandardSchemaV1
  ? InferInput<O>
  : Readonly<Record<string, unknown>>;

/** How a tool is shown in `tools/list`. */
export interface ToolDefinition<
  I extends ToolInput | undefined = undefined,
  O extends ToolInput | undefined = undefined,
> {
  /** A title for people. */
  readonly title?: string;
  /** What the tool does, for the model. */
  readonly description?: string;
  /** The arguments: a Standard Schema (valibot, zod, arktype) or a JSON Schema. None: no arguments. */
  readonly input?: I;
  /** The structured result: a Standard Schema or a JSON Schema; `structuredContent` is checked against a Standard Schema. */
  readonly output?: O;
  /** Hints about its behaviour. */
  readonly annotations?: ToolAnnotations;
  /**
   * Whether it can run as a task (the Tasks extension, `io.modelcontextprotocol/tasks`): the
   * handler turns the call into one with `ctx.startTask()`. `'optional'`: for a client without
   * the extension the call stays synchronous; `'required'`: such a client is refused (-32021).
   * Left out: never a task.
   */
  readonly taskSupport?: 'optional' | 'required';
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /**
   * The OAuth scopes a caller's token needs (not listed in `tools/list`). On a protected server
   * (`createProtectedResource({ mcp })` of `@jsonrpc-kit/mcp/resource-server`) a call without them
   * is answered 403 `insufficient_scope`; one that reaches the tool anyway with an authenticated
   * principal (`ctx.transport.auth` with `scopes`) lacking them is refused with -32003.
   */
  readonly scopes?: readonly string[];
}

/** What a tool handler returns, besides a `CallToolResult`. */
export interface ToolResult<S = Readonly<Record<string, unknown>>> {
  /** What the model reads; left out, the `structuredContent` as JSON text. */
  readonly content?: readonly Content[];
  /** The result as data (required when the tool has an output schema, unless `isError`). */
  readonly structuredContent?: S;
  /** `true` when the tool failed. */
  readonly isError?: boolean;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A tool handler's answer: text, content blocks, or a whole result. */
export type ToolReturn<S = Readonly<Record<string, unknown>>> =
  | string
  | readonly Content[]
  | ToolResult<S>;

/**
 * Runs a tool. A thrown error becomes a result with `isError: true` and the error's message
 * (the model can read it and try again), except a `JsonRpcError`, which is answered as it is.
 */
export type ToolHandler<A, S> = (
  args: A,
  ctx: McpContext,
) => ToolReturn<S> | Promise<ToolReturn<S>>;

/** How a resource is shown in `resources/list`. */
export interface ResourceDefinition {
  /** A title for people. */
  readonly title?: string;
  /** What it is. */
  readonly description?: string;
  /** Its MIME type (also that of a `string` or `Uint8Array` its handler returns). */
  readonly mimeType?: string;
  /** Its size in bytes. */
  readonly size?: number;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** What a resource handler returns: text, bytes, or the whole `resources/read` result. */
export type ResourceReturn =
  | string
  | Uint8Array
  | {
      /** The contents (several for a resource made of parts). */
      readonly contents: readonly ResourceContents[];
    };

/** Reads a static resource. */
export type ResourceHandler = (
  uri: string,
  ctx: McpContext,
) => ResourceReturn | Promise<ResourceReturn>;

/**
 * Completes an argument's value (`completion/complete`).
 *
 * @param value - what the user typed so far
 * @param context - the values of the other arguments already given
 * @returns the suggestions, best first (the first 100 are sent)
 */
export type Completer = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>> },
) => readonly string[] | Promise<readonly string[]>;

/** How a resource template is shown in `resources/templates/list`. */
export interface ResourceTemplateDefinition extends ResourceDefinition {
  /** Completions of its variables, by name. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Lists the concrete resources of the template in `resources/list`. */
  readonly list?: (ctx: McpContext) => readonly ResourceInfo[] | Promise<readonly ResourceInfo[]>;
}

/** Reads a resource of a template. */
export type ResourceTemplateHandler = (
  uri: string,
  variables: UriVariables,
  ctx: McpContext,
) => ResourceReturn | Promise<ResourceReturn>;

/** One argument of a prompt, as `prompts/list` shows it. */
export interface PromptArgument {
  /** Its name. */
  readonly name: string;
  /** A title for people. */
  readonly title?: string;
  /** What it is for. */
  readonly description?: string;
  /** Whether it must be given. */
  readonly required?: boolean;
}

/** The arguments of a prompt: a Standard Schema of an object of strings, or a list. */
export type PromptArgs = StandardSchemaV1 | readonly PromptArgument[];

/** The arguments a prompt handler gets. */
export type PromptArgumentsOf<A> = A extends StandardSchemaV1
  ? InferOutput<A>
  : Readonly<Record<string, string>>;

/** How a prompt is shown in `prompts/list`. */
export interface PromptDefinition<A extends PromptArgs | undefined = undefined> {
  /** A title for people. */
  readonly title?: string;
  /** What it is for. */
  readonly description?: string;
  /** Its arguments. */
  readonly args?: A;
  /** Completions of its arguments, by name. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** What a prompt handler returns: one user message of text, messages, or the whole result. */
export type PromptReturn = string | readonly PromptMessage[] | GetPromptResult;

/** Builds a prompt's messages. */
export type PromptHandler<A> = (args: A, ctx: McpContext) => PromptReturn | Promise<PromptReturn>;

/** A JSON Schema given for a tool (re-exported for users typing their own). */
export type { JsonSchema, ObjectJsonSchema };
