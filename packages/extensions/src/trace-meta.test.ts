import { serializeNotification, serializeRequest } from '@jsonrpc-kit/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { injectTraceContext } from './trace-meta.js';

const TP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const carrier = { traceparent: TP };
const META = `"_meta":{"traceparent":"${TP}"}`;

describe('injectTraceContext', () => {
  it('adds _meta to by-name params of requests and notifications', () => {
    expect(
      injectTraceContext('{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1}}', carrier),
    ).toBe(`{"jsonrpc":"2.0","id":1,"method":"add","params":{${META},"a":1}}`);
    expect(injectTraceContext('{"jsonrpc":"2.0","method":"log","params":{ }}', carrier)).toBe(
      `{"jsonrpc":"2.0","method":"log","params":{${META} }}`,
    );
  });

  it('adds tracestate and other carrier members, escaped', () => {
    const text = injectTraceContext('{"method":"m","params":{}}', {
      traceparent: TP,
      tracestate: 'a=1,b="2"',
    });
    expect(text).toBe(
      `{"method":"m","params":{"_meta":{"traceparent":"${TP}","tracestate":"a=1,b=\\"2\\""}}}`,
    );
    expect(JSON.parse(text).params._meta.tracestate).toBe('a=1,b="2"');
  });

  it('merges into an existing _meta object and leaves a caller-set traceparent alone', () => {
    expect(
      injectTraceContext('{"method":"m","params":{"x":1,"_meta":{"progressToken":7}}}', carrier),
    ).toBe(`{"method":"m","params":{"x":1,"_meta":{"traceparent":"${TP}","progressToken":7}}}`);
    expect(injectTraceContext('{"method":"m","params":{"_meta":{}}}', carrier)).toBe(
      `{"method":"m","params":{"_meta":{"traceparent":"${TP}"}}}`,
    );
    const own = '{"method":"m","params":{"_meta":{"traceparent":"00-mine"}}}';
    expect(injectTraceContext(own, carrier)).toBe(own);
  });

  it('leaves by-position params, no params, responses and a non-object _meta unchanged', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}',
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"result":{"params":{}}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}',
      '{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":null}}',
      '{"jsonrpc":"2.0","id":1,"params":{"a":1}}',
    ]) {
      expect(injectTraceContext(text, carrier)).toBe(text);
    }
  });

  it('returns the text unchanged for an empty carrier', () => {
    const text = '{"method":"m","params":{}}';
    expect(injectTraceContext(text, {})).toBe(text);
  });

  it('edits each member of a batch on its own', () => {
    const batch =
      '[{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}}, 5, ' +
      '{"jsonrpc":"2.0","id":2,"method":"b","params":[1]},' +
      '{"jsonrpc":"2.0","method":"c","params":{}} ]';
    expect(injectTraceContext(batch, carrier)).toBe(
      `[{"jsonrpc":"2.0","id":1,"method":"a","params":{${META},"x":1}}, 5, ` +
        '{"jsonrpc":"2.0","id":2,"method":"b","params":[1]},' +
        `{"jsonrpc":"2.0","method":"c","params":{${META}}} ]`,
    );
    expect(injectTraceContext('[]', carrier)).toBe('[]');
  });

  it('copies large integers and tricky strings byte for byte', () => {
    const text =
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"m","params":' +
      '{"n":123456789012345678901234567890,"s":"}\\"{\\\\","deep":{"_meta":1},"k\\"":[{"_meta":{}}]}}';
    const out = injectTraceContext(text, carrier);
    expect(out).toBe(text.replace('"params":{', `"params":{${META},`));
  });

  it('finds method and params in any member order, with blanks around them', () => {
    const text = '{ "params" : { "a" : 1 } , "method" : "m" , "id" : 1 , "jsonrpc" : "2.0" }';
    expect(injectTraceContext(text, carrier)).toBe(
      `{ "params" : {${META}, "a" : 1 } , "method" : "m" , "id" : 1 , "jsonrpc" : "2.0" }`,
    );
  });

  it('applies the method filter, decoding escaped method names', () => {
    const only = (method: string) => method === 'a/b';
    expect(injectTraceContext('{"method":"a\\/b","params":{}}', carrier, only)).toBe(
      `{"method":"a\\/b","params":{${META}}}`,
    );
    const skipped = '{"method":"$/cancelRequest","params":{"id":1}}';
    expect(injectTraceContext(skipped, carrier, only)).toBe(skipped);
    const notString = '{"method":1,"params":{}}';
    expect(injectTraceContext(notString, carrier, only)).toBe(notString);
  });

  it('leaves text unchanged where the scan finds it is not JSON', () => {
    for (const text of [
      '',
      'not json',
      '{"method":"m" "params":{}}',
      '{"method" 1,"params":{}}',
      '{"id":"unterminated,"method":"m","params":{}}',
      '[{"method":"m","params":{}},',
      '[{"method":"m","params":{}} {"method":"n","params":{}}]',
      '[{"method":"m","params":{"_meta":{"x" 1}}}]',
      '[',
      '"string"',
    ]) {
      expect(injectTraceContext(text, carrier)).toBe(text);
    }
  });

  it('never turns text that is not JSON into JSON', () => {
    // A lone message is read only up to its params: what lies beyond may be edited, and stays
    // malformed, so the other side answers it as it would have.
    for (const text of [
      '{"method":"m","params":{',
      '{"method":"m","params":{"a":"unterminated}}',
      '{"method":"m","params":{"a" 1}}',
      '{"method":"m","params":{"a":1,}}',
      '{"method":"m","params":{"a":1}',
      '{"method":"m","params":{"_meta":{"x" 1}}}',
      '[{"method":"m","params":{"a":1,}}]',
    ]) {
      expect(() => JSON.parse(injectTraceContext(text, carrier))).toThrow(SyntaxError);
    }
    const whole = serializeRequest(1, 'm', { a: [1, { b: '}' }], _meta: { c: null } });
    const batch = `[${whole},${whole}]`;
    for (const source of [whole, batch]) {
      for (let end = 0; end < source.length; end++) {
        const cut = source.slice(0, end);
        expect(() => JSON.parse(injectTraceContext(cut, carrier)), cut).toThrow(SyntaxError);
      }
    }
  });

  it('keeps the message equal to the original plus _meta (property)', () => {
    const key = fc.string().filter((k) => k !== '_meta' && k !== '__proto__');
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue()),
        fc.oneof(fc.constant(undefined), fc.integer(), fc.string()),
        (params, id) => {
          const text =
            id === undefined
              ? serializeNotification('m', params)
              : serializeRequest(id, 'm', params);
          const out = JSON.parse(injectTraceContext(text, carrier));
          expect(out.params).toEqual({
            _meta: { traceparent: TP },
            ...JSON.parse(JSON.stringify(params)),
          });
          expect(out.method).toBe('m');
          expect(out.id).toEqual(id);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('injectTraceContext: cost', () => {
  /** Characters `indexOf` scans on behalf of one call (up to its match, or to the end). */
  function scanned(text: string): number {
    const indexOf = String.prototype.indexOf;
    let total = 0;
    const spy = vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (
      this: string,
      search: string,
      from?: number,
    ) {
      const at = indexOf.call(this, search, from);
      if (this === text) total += (at < 0 ? text.length : at + search.length) - (from ?? 0);
      return at;
    });
    try {
      injectTraceContext(text, { traceparent: 'tp' });
    } finally {
      spy.mockRestore();
    }
    return total;
  }
  const batch = (n: number) =>
    `[${Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"m","params":{"a":${i}}}`).join(',')}]`;

  it('searches a batch without _meta once, not once per member', () => {
    const small = scanned(batch(500));
    const large = scanned(batch(1000));
    // Twice the members, about twice the work (ids grow a digit); a search per member is four times.
    expect(large).toBeLessThanOrEqual(2.2 * small);
    expect(JSON.parse(injectTraceContext(batch(2), { traceparent: 'tp' }))[1].params).toEqual({
      a: 1,
      _meta: { traceparent: 'tp' },
    });
  });
});
