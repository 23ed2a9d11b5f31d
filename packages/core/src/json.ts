/**
 * A JSON reader and writer for what `JSON.parse` and `JSON.stringify` cannot do on Node 20:
 * integers beyond 2^53 read as `BigInt` with every digit, `BigInt` written as a plain JSON number,
 * and duplicate member names seen instead of silently dropped. One pass over the text, cost
 * linear in its length; used only when a codec or a response check asks for it.
 *
 * @module
 */

/**
 * The most digits an integer read with `bigint: true` is converted to a `BigInt` from; a longer
 * integer is kept as its text (a string, every digit). Converting decimal text to a `BigInt` costs
 * time quadratic in its digits (about 120 ms for a million digits on Node 20, where a `Number`
 * reads them in 1 ms), so without a bound a few requests of one huge number each could hold a
 * server's CPU for seconds. 4,300 is Python's bound for the same conversion (since
 * CVE-2020-10735): far above any integer an application computes with (2^4096 has 1,234
 * digits), and its conversion takes about 50 µs, so that a 1 MiB message of such numbers costs
 * milliseconds.
 *
 * @default 4300
 * @example
 * ```ts
 * typeof parseJson('9'.repeat(MAX_BIGINT_DIGITS + 1), { bigint: true }); // 'string'
 * ```
 */
export const MAX_BIGINT_DIGITS = 4_300;

/** Options of {@link parseJson}. */
export interface ParseJsonOptions {
  /**
   * Read integers that a JavaScript number cannot hold exactly as `BigInt` (up to
   * `maxBigIntDigits` digits; a longer one as its text, a string).
   *
   * @default false
   */
  readonly bigint?: boolean;
  /**
   * With `bigint`: the most digits (the sign not counted) an integer is converted to a `BigInt`
   * from. A longer integer is kept as its exact text, a string such as `"-1234…"`: nothing is
   * lost, and nothing quadratic is done on untrusted input. Checked in constant time per number.
   *
   * @default MAX_BIGINT_DIGITS (4300)
   */
  readonly maxBigIntDigits?: number;
  /** Mark objects that repeat a member name (see {@link duplicateMemberOf}). @default false */
  readonly duplicates?: boolean;
}

const DUPLICATE: unique symbol = Symbol('duplicate member');

/**
 * The first member name an object read by {@link parseJson} (with `duplicates: true`) repeated.
 *
 * @param value - a value read by {@link parseJson}
 * @returns the repeated name, or `undefined`
 * @example
 * ```ts
 * duplicateMemberOf(parseJson('{"id":1,"id":2}', { duplicates: true })); // 'id'
 * ```
 */
export function duplicateMemberOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null
    ? (value as { [DUPLICATE]?: string })[DUPLICATE]
    : undefined;
}

class Reader {
  pos = 0;
  readonly text: string;
  readonly bigint: boolean;
  readonly duplicates: boolean;
  readonly maxBigIntDigits: number;
  constructor(text: string, bigint: boolean, duplicates: boolean, maxBigIntDigits: number) {
    this.text = text;
    this.bigint = bigint;
    this.duplicates = duplicates;
    this.maxBigIntDigits = maxBigIntDigits;
  }

  fail(): never {
    throw new SyntaxError(`Unexpected token in JSON at position ${this.pos}`);
  }

  space(): void {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++this.pos);
  }

  value(depth: number): unknown {
    this.space();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.text.startsWith('true', this.pos)) return this.word(4, true);
    if (this.text.startsWith('false', this.pos)) return this.word(5, false);
    if (this.text.startsWith('null', this.pos)) return this.word(4, null);
    return this.fail();
  }

  word<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  string(): string {
    const text = this.text;
    const start = this.pos;
    let pos = start + 1;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (Number.isNaN(c) || c < 0x20) {
        this.pos = pos;
        this.fail();
      }
      if (c === 0x5c) {
        escaped = true;
        pos += 2;
      } else pos++;
    }
    this.pos = pos + 1;
    // Escapes are rare in names and short strings: let JSON.parse check and decode them.
    return escaped
      ? (JSON.parse(text.slice(start, pos + 1)) as string)
      : text.slice(start + 1, pos);
  }

  number(): number | bigint | string {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d) pos++;
    const digits = (): void => {
      const from = pos;
      let c = text.charCodeAt(pos);
      while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++pos);
      if (pos === from) {
        this.pos = pos;
        this.fail();
      }
    };
    if (text.charCodeAt(pos) === 0x30) pos++;
    else digits();
    let integer = true;
    if (text.charCodeAt(pos) === 0x2e) {
      integer = false;
      pos++;
      digits();
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      digits();
    }
    this.pos = pos;
    const source = text.slice(start, pos);
    const value = Number(source);
    if (!integer || !this.bigint || Number.isSafeInteger(value)) return value;
    // The digits were counted by the scan: a bound checked in O(1), before any conversion.
    const digitCount = pos - start - (text.charCodeAt(start) === 0x2d ? 1 : 0);
    return digitCount > this.maxBigIntDigits ? source : BigInt(source);
  }

  array(depth: number): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.space();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.space();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) {
        this.pos--;
        this.fail();
      }
    }
  }

  object(depth: number): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail();
      const key = this.string();
      this.space();
      if (this.text.charCodeAt(this.pos++) !== 0x3a) {
        this.pos--;
        this.fail();
      }
      const item = this.value(depth + 1);
      if (this.duplicates && Object.hasOwn(out, key) && !(DUPLICATE in out)) {
        Object.defineProperty(out, DUPLICATE, { value: key });
      }
      // As JSON.parse: an own "__proto__" member, never the prototype.
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) {
        this.pos--;
        this.fail();
      }
    }
  }
}

/**
 * Reads JSON text as `JSON.parse` does, and optionally keeps big integers exact (as `BigInt`, or
 * as their text beyond `maxBigIntDigits` digits) and marks objects with duplicate member names.
 * Linear in the text's length.
 *
 * @param text - JSON text
 * @param options - `bigint`, `maxBigIntDigits` and `duplicates`
 * @returns the value
 * @throws SyntaxError when the text is not JSON (exactly when `JSON.parse` throws)
 * @example
 * ```ts
 * parseJson('[9007199254740993, 1.5]', { bigint: true }); // [9007199254740993n, 1.5]
 * ```
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const reader = new Reader(
    text,
    options.bigint === true,
    options.duplicates === true,
    options.maxBigIntDigits ?? MAX_BIGINT_DIGITS,
  );
  const value = reader.value(0);
  reader.space();
  if (reader.pos !== text.length) reader.fail();
  return value;
}

function write(value: unknown, key: string, stack: unknown[]): string | undefined {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined; // undefined, functions, symbols
  }
  if (value === null) return 'null';
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return JSON.stringify(value);
  }
  if (value instanceof BigInt) return (value as bigint).toString();
  if (stack.includes(value)) throw new TypeError('Converting circular structure to JSON');
  stack.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += write(value[i], String(i), stack) ?? 'null';
    }
    out += ']';
  } else {
    out = '{';
    let first = true;
    for (const name of Object.keys(value)) {
      const item = write((value as Record<string, unknown>)[name], name, stack);
      if (item === undefined) continue;
      out += (first ? '' : ',') + JSON.stringify(name) + ':' + item;
      first = false;
    }
    out += '}';
  }
  stack.pop();
  return out;
}

/**
 * Writes JSON text as `JSON.stringify` does (`toJSON`, dropped `undefined` members, `null` for
 * holes), except that a `BigInt` is written as a plain JSON number with every digit.
 *
 * @param value - the value
 * @returns the JSON text, or `undefined` for a value JSON has no text for (`undefined`)
 * @throws TypeError on a circular structure
 * @example
 * ```ts
 * stringifyJson({ wei: 10n ** 30n }); // '{"wei":1000000000000000000000000000000}'
 * ```
 */
export function stringifyJson(value: unknown): string | undefined {
  return write(value, '', []);
}
