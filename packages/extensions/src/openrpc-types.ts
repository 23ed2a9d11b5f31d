/**
 * The shapes of OpenRPC service discovery: the OpenRPC version, what is known of a method, the
 * objects of an OpenRPC 1.3.2 document, and the options of `createOpenRpcDocument` and `openrpc`.
 *
 * @module
 */
import type { ExternalDocs, MethodDocs, StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { JsonSchema, JsonSchemaConverter } from './json-schema.js';

/**
 * The OpenRPC version the documents declare.
 * @default "1.3.2"
 */
export const OPENRPC_VERSION: '1.3.2' = '1.3.2';

/** What OpenRPC needs to know about one method or notification. */
export interface MethodDescription {
  /** The full method name. */
  readonly name: string;
  /** A method (answered) or a notification. */
  readonly kind: 'method' | 'notification';
  /** Schema of the params. */
  readonly params: StandardSchemaV1 | undefined;
  /** Schema of the result (methods only). */
  readonly result?: StandardSchemaV1 | undefined;
  /** Parameter names in positional order, when known. */
  readonly paramNames: readonly string[] | undefined;
  /** Description. */
  readonly description: string | undefined;
  /**
   * The rest of the method's API description: written into its method object (a param's or the
   * result's `schema` there wins over the one derived from the Standard Schema).
   */
  readonly docs?: MethodDocs | undefined;
  /** `true` for `rpc.*` methods. */
  readonly system?: boolean;
}

/** The `info` object of an OpenRPC document. */
export interface OpenRpcInfo {
  /** The service's title. */
  readonly title: string;
  /** The API's version (not the OpenRPC version). */
  readonly version: string;
  /** A longer description (Markdown). */
  readonly description?: string;
  /** A URL of the terms of service. */
  readonly termsOfService?: string;
  /** Who to contact. */
  readonly contact?: {
    /** The person or organisation. */
    readonly name?: string;
    /** Their email address. */
    readonly email?: string;
    /** Their web page. */
    readonly url?: string;
  };
  /** The license of the API. */
  readonly license?: {
    /** The license's name, e.g. `"MIT"`. */
    readonly name?: string;
    /** Where its text is. */
    readonly url?: string;
  };
}

/** A `server` object of an OpenRPC document. */
export interface OpenRpcServer {
  /** The endpoint's URL. */
  readonly url: string;
  /** A name for it. */
  readonly name?: string;
  /** A longer description. */
  readonly description?: string;
  /** A short summary. */
  readonly summary?: string;
  /** Values substituted for `{name}` in the URL. */
  readonly variables?: { readonly [name: string]: OpenRpcServerVariable };
}

/** A server variable: a value substituted for `{name}` in a server's URL. */
export interface OpenRpcServerVariable {
  /** The value used when none is given. */
  readonly default: string;
  /** The values allowed. */
  readonly enum?: readonly string[];
  /** A description. */
  readonly description?: string;
}

/** The `components` object of an OpenRPC document. */
export interface OpenRpcComponents {
  /** Named JSON Schemas, referred to as `#/components/schemas/<name>`. */
  readonly schemas?: { readonly [name: string]: JsonSchema };
  /** The other kinds: `contentDescriptors`, `examples`, `links`, `errors`, `tags`, … */
  readonly [kind: string]: { readonly [name: string]: unknown } | undefined;
}

/** An OpenRPC content descriptor (a param or a result). */
export interface OpenRpcContentDescriptor {
  /** The param's name (`"result"` for results). */
  readonly name: string;
  /** Its JSON Schema (`{}`: anything). */
  readonly schema: JsonSchema;
  /** Whether the param must be given. */
  readonly required?: boolean;
  /** A description. */
  readonly description?: string;
  /** A short summary. */
  readonly summary?: string;
  /** Whether the param is deprecated. */
  readonly deprecated?: boolean;
}

/** A method object of an OpenRPC document. Notifications have no `result`. */
export interface OpenRpcMethod {
  /** The method's name. */
  readonly name: string;
  /** Its description. */
  readonly description?: string;
  /** How params may be sent. */
  readonly paramStructure: 'by-name' | 'by-position' | 'either';
  /** The params, in positional order. */
  readonly params: readonly OpenRpcContentDescriptor[];
  /** The result; absent for notifications. */
  readonly result?: OpenRpcContentDescriptor;
  /** `true` for notifications (no answer). */
  readonly 'x-notification'?: true;
  /** The whole params schema, when it is neither an object nor a tuple (a variadic array, say). */
  readonly 'x-params-schema'?: JsonSchema;
  /** A short summary. */
  readonly summary?: string;
  /** Tags for grouping. */
  readonly tags?: MethodDocs['tags'];
  /** Example pairings of params and result. */
  readonly examples?: MethodDocs['examples'];
  /** The application errors the method may answer. */
  readonly errors?: MethodDocs['errors'];
  /** Whether the method is deprecated. */
  readonly deprecated?: boolean;
  /** Where more documentation is. */
  readonly externalDocs?: MethodDocs['externalDocs'];
  /** Other members from the method's docs (`links`, `servers`, `x-…`). */
  readonly [member: string]: unknown;
}

/** An OpenRPC 1.3.2 document. */
export interface OpenRpcDocument {
  /** The OpenRPC version: `"1.3.2"`. */
  readonly openrpc: typeof OPENRPC_VERSION;
  /** About the service. */
  readonly info: OpenRpcInfo;
  /** Where it is reachable. */
  readonly servers?: readonly OpenRpcServer[];
  /** Every method and notification. */
  readonly methods: readonly OpenRpcMethod[];
  /** Named schemas (and the other reusable objects). */
  readonly components?: OpenRpcComponents;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
}

/** Options of {@link createOpenRpcDocument} and {@link openrpc}. */
export interface OpenRpcOptions {
  /** Title, version and the rest of the `info` object. */
  readonly info: OpenRpcInfo;
  /** Where the service is reachable. */
  readonly servers?: readonly OpenRpcServer[];
  /**
   * Turns schemas into JSON Schema.
   * @default defaultJsonSchemaConverter
   */
  readonly converter?: JsonSchemaConverter;
  /**
   * Whether `rpc.*` methods (`rpc.discover`, `rpc.stream.*`) are listed.
   * @default false
   */
  readonly includeSystem?: boolean;
  /**
   * Named schemas: where a param or result uses one of them (the same schema object), the document
   * says `{ "$ref": "#/components/schemas/<name>" }` and lists it once under `components/schemas`
   * (with the default converter: valibot schemas).
   */
  readonly schemas?: { readonly [name: string]: StandardSchemaV1 };
  /** Components published as they are (JSON Schemas the methods' docs refer to, errors, tags). */
  readonly components?: OpenRpcComponents;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
  /**
   * Amends the document before it is answered (add `x-…` members, drop a method): return the
   * document to publish.
   */
  readonly amend?: (document: OpenRpcDocument) => OpenRpcDocument | Promise<OpenRpcDocument>;
}
