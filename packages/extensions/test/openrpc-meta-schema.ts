/**
 * A compact subset of the OpenRPC 1.3.2 meta-schema (the document, info, server, method and
 * content descriptor objects), and a small JSON Schema validator for the keywords it uses. Test
 * support only: not exported by the package.
 *
 * @module
 */

type Schema = { readonly [key: string]: unknown } | boolean;

const extensions = { '^x-': {} };

/** The OpenRPC 1.3.2 meta-schema, reduced to the objects the generator writes. */
export const openRpcMetaSchema: Schema = {
  type: 'object',
  required: ['openrpc', 'info', 'methods'],
  additionalProperties: false,
  patternProperties: extensions,
  properties: {
    openrpc: { type: 'string', pattern: '^1\\.3\\.\\d+$' },
    info: { $ref: '#/definitions/info' },
    servers: { type: 'array', items: { $ref: '#/definitions/server' } },
    methods: { type: 'array', items: { $ref: '#/definitions/method' } },
    components: { type: 'object' },
    externalDocs: { type: 'object' },
  },
  definitions: {
    info: {
      type: 'object',
      required: ['title', 'version'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        title: { type: 'string' },
        description: { type: 'string' },
        termsOfService: { type: 'string' },
        version: { type: 'string' },
        contact: { type: 'object' },
        license: { type: 'object' },
      },
    },
    server: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        url: { type: 'string' },
        name: { type: 'string' },
        description: { type: 'string' },
        summary: { type: 'string' },
        variables: { type: 'object' },
      },
    },
    method: {
      type: 'object',
      // 1.3.x: `result` is optional; a method without one is a notification.
      required: ['name', 'params'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        name: { type: 'string', minLength: 1 },
        description: { type: 'string' },
        summary: { type: 'string' },
        tags: { type: 'array' },
        paramStructure: { type: 'string', enum: ['by-position', 'by-name', 'either'] },
        params: {
          type: 'array',
          items: {
            oneOf: [
              { $ref: '#/definitions/contentDescriptor' },
              { $ref: '#/definitions/reference' },
            ],
          },
        },
        result: {
          oneOf: [{ $ref: '#/definitions/contentDescriptor' }, { $ref: '#/definitions/reference' }],
        },
        errors: { type: 'array' },
        links: { type: 'array' },
        examples: { type: 'array' },
        deprecated: { type: 'boolean' },
        servers: { type: 'array', items: { $ref: '#/definitions/server' } },
        externalDocs: { type: 'object' },
      },
    },
    contentDescriptor: {
      type: 'object',
      required: ['name', 'schema'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        name: { type: 'string', minLength: 1 },
        description: { type: 'string' },
        summary: { type: 'string' },
        schema: { $ref: '#/definitions/jsonSchema' },
        required: { type: 'boolean' },
        deprecated: { type: 'boolean' },
      },
    },
    reference: {
      type: 'object',
      required: ['$ref'],
      additionalProperties: false,
      properties: { $ref: { type: 'string' } },
    },
    // A JSON Schema: an object or a boolean, whose common keywords have the right types.
    jsonSchema: {
      type: ['object', 'boolean'],
      properties: {
        type: { type: ['string', 'array'] },
        properties: { type: 'object', additionalProperties: { $ref: '#/definitions/jsonSchema' } },
        items: {
          oneOf: [
            { $ref: '#/definitions/jsonSchema' },
            { type: 'array', items: { $ref: '#/definitions/jsonSchema' } },
          ],
        },
        required: { type: 'array', items: { type: 'string' } },
        $schema: false,
      },
    },
  },
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/**
 * Validates a value against a JSON Schema using the keywords of {@link openRpcMetaSchema}.
 *
 * @param schema - the schema
 * @param value - the value
 * @param root - the schema `$ref`s resolve against
 * @param path - where `value` sits, for messages
 * @returns the problems found (empty when valid)
 */
export function validateJsonSchema(
  schema: Schema,
  value: unknown,
  root: Schema = schema,
  path = '$',
): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: not allowed`];
  const s = schema as Record<string, any>;
  if (typeof s.$ref === 'string') {
    const target = s.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key: string) => node?.[key], root);
    if (target === undefined) return [`${path}: unresolved ${s.$ref}`];
    return validateJsonSchema(target, value, root, path);
  }
  const errors: string[] = [];
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => matchesType(value, t))) {
      return [`${path}: expected ${types.join('|')}, got ${typeOf(value)}`];
    }
  }
  if (s.enum !== undefined && !s.enum.includes(value)) errors.push(`${path}: not in enum`);
  if (typeof value === 'string') {
    if (s.minLength !== undefined && value.length < s.minLength) errors.push(`${path}: too short`);
    if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) {
      errors.push(`${path}: does not match ${s.pattern}`);
    }
  }
  if (s.oneOf !== undefined) {
    const passing = (s.oneOf as Schema[]).filter(
      (option) => validateJsonSchema(option, value, root, path).length === 0,
    ).length;
    if (passing !== 1) errors.push(`${path}: matches ${passing} of oneOf`);
  }
  if (Array.isArray(value) && s.items !== undefined) {
    value.forEach((item, i) => {
      errors.push(...validateJsonSchema(s.items, item, root, `${path}[${i}]`));
    });
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of s.required ?? []) {
      if (!(key in object)) errors.push(`${path}: missing ${key}`);
    }
    for (const [key, member] of Object.entries(object)) {
      const where = `${path}.${key}`;
      if (s.properties && key in s.properties) {
        errors.push(...validateJsonSchema(s.properties[key], member, root, where));
        continue;
      }
      const pattern = Object.keys(s.patternProperties ?? {}).find((p) => new RegExp(p).test(key));
      if (pattern !== undefined) {
        errors.push(...validateJsonSchema(s.patternProperties[pattern], member, root, where));
      } else if (s.additionalProperties !== undefined) {
        errors.push(...validateJsonSchema(s.additionalProperties, member, root, where));
      }
    }
  }
  return errors;
}
