/**
 * What an API description says about a contract's methods beyond their schemas: the OpenRPC
 * members a method's `docs` carry (content descriptors, tags, examples, declared errors, external
 * docs). The kit does not read them when it serves calls; `rpc.discover` publishes them.
 *
 * @module
 */

/**
 * An OpenRPC content descriptor's documentation (a param's or a result's): what a schema cannot
 * say. `schema`, when given, is the JSON Schema the description publishes instead of one derived
 * from the Standard Schema.
 */
export interface ContentDescriptorDocs {
  /** The param's or result's name. */
  readonly name: string;
  /** A short summary. */
  readonly summary?: string;
  /** A longer description. */
  readonly description?: string;
  /** Whether the param must be given. */
  readonly required?: boolean;
  /** Whether the param is deprecated. */
  readonly deprecated?: boolean;
  /** The JSON Schema to publish (it may `$ref` the document's `components/schemas`). */
  readonly schema?: { readonly [key: string]: unknown };
  /** Specification extensions (`x-…`). */
  readonly [extension: string]: unknown;
}

/** Where more documentation is (OpenRPC's External Documentation object). */
export interface ExternalDocs {
  /** Its URL. */
  readonly url: string;
  /** What is there. */
  readonly description?: string;
}

/** A tag for grouping methods (OpenRPC's Tag object). */
export interface MethodTag {
  /** The tag's name. */
  readonly name: string;
  /** Its summary, description, external docs, `x-…` members. */
  readonly [member: string]: unknown;
}

/** An example pairing of params and result (OpenRPC's Example Pairing object). */
export interface MethodExample {
  /** The example's name. */
  readonly name: string;
  /** Its `params` (`[{ name, value }]`), `result`, summary, description. */
  readonly [member: string]: unknown;
}

/** An application error a method may answer (OpenRPC's Error object). */
export interface MethodError {
  /** The error's code. */
  readonly code: number;
  /** Its message. */
  readonly message: string;
  /** Its data. */
  readonly data?: unknown;
}

/**
 * What an API description says about a method or notification beyond its schemas: the members of
 * an OpenRPC method object. The kit does not read it when it serves calls; `rpc.discover`
 * (`@jsonrpc-kit/extensions/openrpc`) publishes it.
 */
export interface MethodDocs {
  /** A short summary. */
  readonly summary?: string;
  /** Tags for grouping. */
  readonly tags?: readonly MethodTag[];
  /** How the description says params are sent (the kit accepts both when it knows the names). */
  readonly paramStructure?: 'by-name' | 'by-position' | 'either';
  /** The params' names, descriptions and published schemas, in positional order. */
  readonly params?: readonly ContentDescriptorDocs[];
  /** The result's name, description and published schema. */
  readonly result?: ContentDescriptorDocs;
  /** Example pairings of params and result. */
  readonly examples?: readonly MethodExample[];
  /** The application errors the method may answer. */
  readonly errors?: readonly MethodError[];
  /** Whether the method is deprecated. */
  readonly deprecated?: boolean;
  /** Where more documentation is. */
  readonly externalDocs?: ExternalDocs;
  /** Any other member of the method object (`links`, `servers`, `x-…`). */
  readonly [member: string]: unknown;
}

/**
 * A method's {@link MethodDocs} with its declared `errors` typed as given: their codes type
 * {@link isDeclaredError}'s narrowing.
 */
export type MethodDocsOf<E extends readonly MethodError[]> = MethodDocs & {
  /** The application errors the method may answer, as declared. */
  readonly errors?: E;
};
