/**
 * A small code printer: expressions as trees (calls, objects, arrays, raw text) laid out the way
 * the repository's formatter lays them out (100 columns, two-space indents, trailing commas,
 * single quotes), so generated modules read like written ones and print the same every time.
 *
 * @module
 */

/** A piece of code. */
export type Code =
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'call'; readonly callee: string; readonly args: readonly Code[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Code])[] }
  | { readonly kind: 'array'; readonly items: readonly Code[] }
  | { readonly kind: 'arrow'; readonly body: Code };

const WIDTH = 100;

/** Raw code. */
export const raw = (text: string): Code => ({ kind: 'raw', text });
/** A call, `callee(args)`. */
export const call = (callee: string, ...args: Code[]): Code => ({ kind: 'call', callee, args });
/** An object literal. */
export const object = (entries: readonly (readonly [string, Code])[]): Code => ({
  kind: 'object',
  entries,
});
/** An array literal. */
export const array = (items: readonly Code[]): Code => ({ kind: 'array', items });
/** An arrow function without parameters, `() => body`. */
export const arrow = (body: Code): Code => ({ kind: 'arrow', body });

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string literal in single quotes. */
export function quote(text: string): string {
  const json = JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${json}'`;
}

/** An object key: bare when it is an identifier, quoted otherwise. */
export function key(name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name);
}

/** A JSON value as code. */
export function json(value: unknown): Code {
  if (value === null || typeof value !== 'object') {
    return raw(typeof value === 'string' ? quote(value) : JSON.stringify(value ?? null));
  }
  if (Array.isArray(value)) return array(value.map(json));
  return object(Object.entries(value).map(([k, v]) => [k, json(v)] as const));
}

function flat(code: Code): string {
  switch (code.kind) {
    case 'raw':
      return code.text;
    case 'call':
      return `${code.callee}(${code.args.map(flat).join(', ')})`;
    case 'array':
      return `[${code.items.map(flat).join(', ')}]`;
    case 'object':
      return code.entries.length === 0
        ? '{}'
        : `{ ${code.entries.map(([k, v]) => `${key(k)}: ${flat(v)}`).join(', ')} }`;
    case 'arrow':
      return `() => ${flat(code.body)}`;
  }
}

/**
 * Prints code starting at a column: on one line when it fits, otherwise with one member per line.
 *
 * @param code - the code
 * @param indent - the current indentation, in spaces
 * @param column - where the code starts on its first line
 * @param tail - what follows it on its last line (a `,` or `;`), counted in the width
 * @returns the text
 */
export function print(code: Code, indent = 0, column: number = indent, tail = 0): string {
  const one = flat(code);
  if (column + one.length + tail <= WIDTH && !one.includes('\n')) return one;
  const pad = ' '.repeat(indent + 2);
  const end = ' '.repeat(indent);
  const lines = (items: readonly string[]): string => items.map((i) => `${pad}${i},\n`).join('');
  switch (code.kind) {
    case 'raw':
      return code.text;
    case 'call': {
      // A call with one object, array or call argument hugs it: `f({` … `})`.
      const only = code.args.length === 1 ? code.args[0]! : undefined;
      if (only !== undefined && only.kind !== 'raw') {
        const head = `${code.callee}(`;
        return `${head}${print(only, indent, column + head.length, tail + 1)})`;
      }
      return `${code.callee}(\n${lines(code.args.map((a) => print(a, indent + 2, indent + 2, 1)))}${end})`;
    }
    case 'array':
      return `[\n${lines(code.items.map((i) => print(i, indent + 2, indent + 2, 1)))}${end}]`;
    case 'object':
      return `{\n${lines(
        code.entries.map(([k, v]) => {
          const head = `${key(k)}: `;
          return head + print(v, indent + 2, indent + 2 + head.length, 1);
        }),
      )}${end}}`;
    case 'arrow':
      return `() => ${print(code.body, indent, column + 6, tail)}`;
  }
}
