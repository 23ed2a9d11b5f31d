/**
 * URI templates (RFC 6570) for resource templates: expressions of level 1 (`{id}`) and level 2
 * (`{+path}`, `{#frag}`), plus the path and query forms of level 3 (`{/a}`, `{?a,b}`, `{&a}`)
 * with one or more variables each. Matching a URI against a template reads the variables back.
 *
 * @module
 */

/** A variable's value read from a URI. */
export type UriVariables = Readonly<Record<string, string>>;

/** A parsed URI template. */
export interface UriTemplate {
  /** The template as written. */
  readonly template: string;
  /** The names of its variables, in order. */
  readonly variables: readonly string[];
  /**
   * Reads the variables of a URI that fits the template.
   *
   * @param uri - a URI
   * @returns the variables, or `undefined` when the URI does not fit
   */
  match(uri: string): UriVariables | undefined;
  /**
   * Builds a URI from values of the variables (absent ones are left out, as RFC 6570 says).
   *
   * @param values - the variables' values
   * @returns the URI
   */
  expand(values: Readonly<Record<string, string | undefined>>): string;
}

type Operator = '' | '+' | '#' | '/' | '?' | '&';

interface Part {
  readonly literal?: string;
  readonly operator?: Operator;
  readonly names?: readonly string[];
}

const OPERATORS = new Set(['+', '#', '/', '?', '&']);
const NAME = /^[A-Za-z0-9_.%]+$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function encode(value: string, reserved: boolean): string {
  return reserved
    ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
    : encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open === -1) {
      parts.push({ literal: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ literal: template.slice(at, open) });
    const close = template.indexOf('}', open);
    if (close === -1) throw new TypeError(`Unclosed expression in URI template "${template}"`);
    let body = template.slice(open + 1, close);
    let operator: Operator = '';
    if (OPERATORS.has(body[0] ?? '')) {
      operator = body[0] as Operator;
      body = body.slice(1);
    }
    const names = body.split(',');
    for (const name of names) {
      if (!NAME.test(name)) {
        throw new TypeError(`Unsupported variable "${name}" in URI template "${template}"`);
      }
    }
    parts.push({ operator, names });
    at = close + 1;
  }
  return parts;
}

/**
 * Parses a URI template.
 *
 * @param template - an RFC 6570 template, `test://items/{id}` or `file:///{+path}{?rev}`
 * @returns the parsed template
 * @throws TypeError when the template has an unclosed expression or an unsupported variable
 *   (modifiers such as `{id*}` or `{id:3}`)
 * @example
 * ```ts
 * const t = parseUriTemplate('test://template/{id}/data');
 * t.match('test://template/123/data'); // { id: '123' }
 * t.expand({ id: '7' }); // 'test://template/7/data'
 * ```
 */
export function parseUriTemplate(template: string): UriTemplate {
  const parts = parse(template);
  const variables: string[] = [];
  let source = '^';
  for (const part of parts) {
    if (part.literal !== undefined) {
      source += escapeRegExp(part.literal);
      continue;
    }
    const names = part.names ?? [];
    variables.push(...names);
    switch (part.operator) {
      case '':
        source += names.map(() => '([^/?#&,]*)').join(',');
        break;
      case '+':
        source += names.map(() => '(.*?)').join(',');
        break;
      case '#':
        source += `(?:#${names.map(() => '(.*?)').join(',')})?`;
        break;
      case '/':
        source += names.map(() => '(?:/([^/?#]*))?').join('');
        break;
      case '?':
      case '&': {
        const lead = part.operator === '?' ? '\\?' : '&';
        const pairs = names.map((name) => `(?:[?&]${escapeRegExp(name)}=([^&#]*))?`).join('');
        source += `(?:(?=${lead})${pairs})?`;
        break;
      }
    }
  }
  const pattern = new RegExp(`${source}$`);
  return {
    template,
    variables,
    match(uri) {
      const found = pattern.exec(uri);
      if (found === null) return undefined;
      const values: Record<string, string> = {};
      variables.forEach((name, index) => {
        const value = found[index + 1];
        if (value !== undefined) values[name] = decode(value);
      });
      return values;
    },
    expand(values) {
      let out = '';
      for (const part of parts) {
        if (part.literal !== undefined) {
          out += part.literal;
          continue;
        }
        const present = (part.names ?? []).filter((name) => values[name] !== undefined);
        if (present.length === 0) continue;
        const reserved = part.operator === '+' || part.operator === '#';
        const encoded = present.map((name) => encode(values[name] as string, reserved));
        switch (part.operator) {
          case '':
          case '+':
            out += encoded.join(',');
            break;
          case '#':
            out += `#${encoded.join(',')}`;
            break;
          case '/':
            out += encoded.map((value) => `/${value}`).join('');
            break;
          case '?':
          case '&':
            out += present
              .map((name, i) => `${i === 0 ? part.operator : '&'}${name}=${encoded[i]}`)
              .join('');
            break;
        }
      }
      return out;
    },
  };
}
