/**
 * The shapes of what an MCP server answers, as a client reads them: tools, resources, templates,
 * prompts, completions and the `initialize` result. Members a server adds beyond these pass
 * through.
 *
 * @module
 */
import type {
  ContentAnnotations,
  Implementation,
  ResourceContents,
  ResourceInfo,
  ToolAnnotations,
} from './types.js';

/** A JSON Schema object as a server sent it: kept as given (keywords, `$ref`, `$defs`). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/** A tool as `tools/list` gives it. */
export interface ToolInfo {
  /** The tool's name, used in `tools/call`. */
  readonly name: string;
  /** A human-readable name. */
  readonly title?: string;
  /** What the tool does. */
  readonly description?: string;
  /** The JSON Schema of its arguments. */
  readonly inputSchema: JsonSchemaObject;
  /** The JSON Schema of its `structuredContent`, when it gives one. */
  readonly outputSchema?: JsonSchemaObject;
  /** Hints about its behaviour. */
  readonly annotations?: ToolAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /** Members a server adds. */
  readonly [key: string]: unknown;
}

/** A resource template as `resources/templates/list` gives it. */
export interface ResourceTemplateInfo {
  /** The RFC 6570 URI template. */
  readonly uriTemplate: string;
  /** Its name. */
  readonly name: string;
  /** A human-readable name. */
  readonly title?: string;
  /** What it gives. */
  readonly description?: string;
  /** The MIME type of what it gives. */
  readonly mimeType?: string;
  /** Audience and priority. */
  readonly annotations?: ContentAnnotations;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A prompt as `prompts/list` gives it. */
export interface PromptInfo {
  /** Its name, used in `prompts/get`. */
  readonly name: string;
  /** A human-readable name. */
  readonly title?: string;
  /** What it is for. */
  readonly description?: string;
  /** The arguments it takes. */
  readonly arguments?: ReadonlyArray<{
    /** The argument's name. */
    readonly name: string;
    /** What it is. */
    readonly description?: string;
    /** Whether it must be given. */
    readonly required?: boolean;
  }>;
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One page of a list, with the cursor of the next page when there is one. */
export interface Page {
  /** The cursor to ask for the next page with; absent on the last page. */
  readonly nextCursor?: string;
}

/** A page of `tools/list`. */
export interface ListToolsResult extends Page {
  /** The tools of this page. */
  readonly tools: readonly ToolInfo[];
}

/** A page of `resources/list`. */
export interface ListResourcesResult extends Page {
  /** The resources of this page. */
  readonly resources: readonly ResourceInfo[];
}

/** A page of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends Page {
  /** The templates of this page. */
  readonly resourceTemplates: readonly ResourceTemplateInfo[];
}

/** A page of `prompts/list`. */
export interface ListPromptsResult extends Page {
  /** The prompts of this page. */
  readonly prompts: readonly PromptInfo[];
}

/** What `resources/read` gives. */
export interface ReadResourceResult {
  /** The contents (a template may give several). */
  readonly contents: readonly ResourceContents[];
  /** Metadata beyond MCP's. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** What `completion/complete` completes: a prompt's argument or a template's variable. */
export type CompletionReference =
  | {
      /** A prompt. */
      readonly type: 'ref/prompt';
      /** The prompt's name. */
      readonly name: string;
    }
  | {
      /** A resource template. */
      readonly type: 'ref/resource';
      /** The template. */
      readonly uri: string;
    };

/** What `completion/complete` gives. */
export interface CompleteResult {
  /** The completion. */
  readonly completion: {
    /** The values, at most 100. */
    readonly values: readonly string[];
    /** How many there are in all, when known. */
    readonly total?: number;
    /** Whether there are more than given. */
    readonly hasMore?: boolean;
  };
}

/** What the server declared in its `initialize` answer. */
export interface ServerCapabilities {
  /** It has tools. */
  readonly tools?: {
    /** It tells when they change. */
    readonly listChanged?: boolean;
  };
  /** It has resources. */
  readonly resources?: {
    /** It tells when the list changes. */
    readonly listChanged?: boolean;
    /** One may subscribe to a resource's updates. */
    readonly subscribe?: boolean;
  };
  /** It has prompts. */
  readonly prompts?: {
    /** It tells when they change. */
    readonly listChanged?: boolean;
  };
  /** It answers `completion/complete`. */
  readonly completions?: Readonly<Record<string, unknown>>;
  /** It sends log messages (`logging/setLevel`). */
  readonly logging?: Readonly<Record<string, unknown>>;
  /** Capabilities beyond MCP's. */
  readonly experimental?: Readonly<Record<string, unknown>>;
  /** Members a server adds. */
  readonly [key: string]: unknown;
}

/** The server's `initialize` answer. */
export interface InitializeResult {
  /** The protocol version the server chose. */
  readonly protocolVersion: string;
  /** What the server offers. */
  readonly capabilities: ServerCapabilities;
  /** The server's name and version. */
  readonly serverInfo: Implementation;
  /** How to use the server, for a model. */
  readonly instructions?: string;
}

/** A log message the server sent (`notifications/message`). */
export interface LogMessage {
  /** Its severity. */
  readonly level: string;
  /** Who logged it. */
  readonly logger?: string;
  /** What was logged (any JSON). */
  readonly data: unknown;
}
