/**
 * The shapes of MCP's messages that a server writes: content blocks, resource contents, prompt
 * messages, tool annotations and the capabilities a client declares. They follow the MCP schema of
 * 2025-11-25 (a superset of 2025-06-18's); members a server may add beyond these pass through.
 *
 * @module
 */

/** Who a piece of content is meant for, and how much it matters (MCP `Annotations`). */
export interface ContentAnnotations {
  /** Who the content is for: `"user"`, `"assistant"` or both. */
  readonly audience?: ReadonlyArray<'user' | 'assistant'>;
  /** From 0 (optional) to 1 (required). */
  readonly priority?: number;
  /** When the content last changed, an ISO 8601 time. */
  readonly lastModified?: string;
}

/** Text content. */
export interface TextContent {
  /** The kind of block: `"text"`. */
  readonly type: 'text';
  /** The text. */
  readonly text: string;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** An image, base64-encoded. */
export interface ImageContent {
  /** The kind of block: `"image"`. */
  readonly type: 'image';
  /** The image bytes, base64. */
  readonly data: string;
  /** Its MIME type (`image/png`). */
  readonly mimeType: string;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Audio, base64-encoded. */
export interface AudioContent {
  /** The kind of block: `"audio"`. */
  readonly type: 'audio';
  /** The audio bytes, base64. */
  readonly data: string;
  /** Its MIME type (`audio/wav`). */
  readonly mimeType: string;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource's contents as text. */
export interface TextResourceContents {
  /** The resource's URI. */
  readonly uri: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** The text. */
  readonly text: string;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource's contents as bytes, base64-encoded. */
export interface BlobResourceContents {
  /** The resource's URI. */
  readonly uri: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** The bytes, base64. */
  readonly blob: string;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource's contents, text or bytes. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource embedded in a tool result or a prompt message. */
export interface EmbeddedResource {
  /** The kind of block: `"resource"`. */
  readonly type: 'resource';
  /** The contents. */
  readonly resource: ResourceContents;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A link to a resource the client may read (`resources/read`). */
export interface ResourceLink {
  /** The kind of block: `"resource_link"`. */
  readonly type: 'resource_link';
  /** The resource's URI. */
  readonly uri: string;
  /** Its name. */
  readonly name: string;
  /** A title for people. */
  readonly title?: string;
  /** What it is. */
  readonly description?: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** Its size in bytes. */
  readonly size?: number;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A block of a tool result or of a prompt message. */
export type Content = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** A tool's answer, as `tools/call` returns it. */
export interface CallToolResult<S = Readonly<Record<string, unknown>>> {
  /** What the model reads. */
  readonly content: readonly Content[];
  /** The result as data, conforming to the tool's output schema. */
  readonly structuredContent?: S;
  /** `true` when the tool failed: the model reads why in `content`. */
  readonly isError?: boolean;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Hints about a tool's behaviour (MCP `ToolAnnotations`); clients must not trust them blindly. */
export interface ToolAnnotations {
  /** A title for people. */
  readonly title?: string;
  /** The tool changes nothing. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy or overwrite (meaningful when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling it twice with the same arguments does nothing more. */
  readonly idempotentHint?: boolean;
  /** The tool reaches an open world (the web, say). */
  readonly openWorldHint?: boolean;
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who says it. */
  readonly role: 'user' | 'assistant';
  /** What is said. */
  readonly content: Content;
}

/** A prompt, as `prompts/get` returns it. */
export interface GetPromptResult {
  /** What the prompt is for. */
  readonly description?: string;
  /** The messages. */
  readonly messages: readonly PromptMessage[];
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource as `resources/list` shows it. */
export interface ResourceInfo {
  /** Its URI. */
  readonly uri: string;
  /** Its name. */
  readonly name: string;
  /** A title for people. */
  readonly title?: string;
  /** What it is. */
  readonly description?: string;
  /** Its MIME type. */
  readonly mimeType?: string;
  /** Its size in bytes. */
  readonly size?: number;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** The eight logging levels of MCP (syslog's), least severe first. */
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/** What a client declared it can do, in `initialize`. */
export interface ClientCapabilities {
  /** It answers `roots/list` (and tells when its roots change). */
  readonly roots?: {
    /** It tells when its roots change (`notifications/roots/list_changed`). */
    readonly listChanged?: boolean;
  };
  /** It answers `sampling/createMessage`. */
  readonly sampling?: Readonly<Record<string, unknown>>;
  /** It answers `elicitation/create`. */
  readonly elicitation?: Readonly<Record<string, unknown>>;
  /** Experimental capabilities. */
  readonly experimental?: Readonly<Record<string, unknown>>;
  /** Anything else it declared. */
  readonly [key: string]: unknown;
}

/** The client's name and version, from `initialize`. */
export interface Implementation {
  /** Its name. */
  readonly name: string;
  /** Its version. */
  readonly version: string;
  /** A title for people. */
  readonly title?: string;
  /** Anything else it sent. */
  readonly [key: string]: unknown;
}

/** `sampling/createMessage` params: what the server asks the client's model. */
export interface CreateMessageParams {
  /** The conversation. */
  readonly messages: ReadonlyArray<{
    /** Who says it. */
    readonly role: 'user' | 'assistant';
    /** What is said. */
    readonly content: Content | readonly Content[];
  }>;
  /** The most tokens to generate. */
  readonly maxTokens: number;
  /** A system prompt. */
  readonly systemPrompt?: string;
  /** Anything else MCP allows (`modelPreferences`, `temperature`, `stopSequences`, …). */
  readonly [key: string]: unknown;
}

/** `sampling/createMessage` result: the model's answer. */
export interface CreateMessageResult {
  /** Always `"assistant"`. */
  readonly role: 'user' | 'assistant';
  /** What the model said. */
  readonly content: Content | readonly Content[];
  /** The model that answered. */
  readonly model: string;
  /** Why it stopped. */
  readonly stopReason?: string;
  /** Anything else the client sent. */
  readonly [key: string]: unknown;
}

/** `elicitation/create` params: what the server asks the user. */
export interface ElicitParams {
  /** The question. */
  readonly message: string;
  /** A flat object JSON Schema of the answer (strings, numbers, booleans, enums). */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** Anything else MCP allows (`mode: "url"`, `url`, `elicitationId`). */
  readonly [key: string]: unknown;
}

/** `elicitation/create` result. */
export interface ElicitResult {
  /** What the user did. */
  readonly action: 'accept' | 'decline' | 'cancel';
  /** The answer, when accepted. */
  readonly content?: Readonly<Record<string, unknown>>;
  /** Anything else the client sent. */
  readonly [key: string]: unknown;
}

/** One root the client exposes (`roots/list`). */
export interface Root {
  /** A `file://` URI. */
  readonly uri: string;
  /** A name for it. */
  readonly name?: string;
}
