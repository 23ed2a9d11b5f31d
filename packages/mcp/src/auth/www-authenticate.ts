/**
 * Reads `WWW-Authenticate` challenges (RFC 9110 §11.6.1): the scheme and its auth-params.
 *
 * @module
 */

/** One challenge of a `WWW-Authenticate` header. */
export interface AuthChallenge {
  /** The scheme, lower-cased (`bearer`, `dpop`). */
  readonly scheme: string;
  /** Its parameters by lower-cased name (`resource_metadata`, `scope`, `error`). */
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/**
 * Parses a `WWW-Authenticate` header value into its challenges.
 *
 * @param header - the header's value
 * @returns the challenges, in order (none for an empty or unreadable value)
 * @example
 * ```ts
 * parseWwwAuthenticate('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="read"');
 * // [{ scheme: 'bearer', params: { resource_metadata: 'https://…', scope: 'read' } }]
 * ```
 */
export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  const out: AuthChallenge[] = [];
  if (header === null || header === undefined) return out;
  let rest = header.trim();
  let current: { scheme: string; params: Record<string, string> } | undefined;
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, '');
    const token = TOKEN.exec(rest)?.[0];
    if (token === undefined) break;
    const after = rest.slice(token.length).replace(/^\s*/, '');
    if (after.startsWith('=') && current !== undefined && !/^=+\s*(,|$)/.test(after)) {
      // An auth-param: name = token / quoted-string.
      let value = after.slice(1).replace(/^\s*/, '');
      let text: string;
      if (value.startsWith('"')) {
        let i = 1;
        text = '';
        while (i < value.length && value[i] !== '"') {
          if (value[i] === '\\' && i + 1 < value.length) i++;
          text += value[i];
          i++;
        }
        value = value.slice(i + 1);
      } else {
        text = /^[^\s,]*/.exec(value)?.[0] ?? '';
        value = value.slice(text.length);
      }
      current.params[token.toLowerCase()] = text;
      rest = value;
      continue;
    }
    // A new challenge (a token68 after it is kept as `token68`).
    current = { scheme: token.toLowerCase(), params: {} };
    out.push(current);
    rest = after;
    const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(rest)?.[0];
    if (token68 !== undefined && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=\s*[^\s,=]/.test(rest)) {
      current.params.token68 = token68;
      rest = rest.slice(token68.length);
    }
  }
  return out;
}
