// Micro-benchmark: parse → serialize of a single request and of a 100-request batch, against
// bare JSON.parse/JSON.stringify. Run after `pnpm build`: node packages/core/bench/parse-serialize.bench.mjs
import { parse, serializeBatch, serializeSuccess } from '@jsonrpc-kit/core';

const single = '{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}';
const batch = `[${Array.from({ length: 100 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"subtract","params":[42,${i}]}`).join(',')}]`;

function raw(text) {
  const value = JSON.parse(text);
  if (Array.isArray(value)) {
    return JSON.stringify(
      value.map((m) => ({ jsonrpc: '2.0', id: m.id, result: m.params[0] - m.params[1] })),
    );
  }
  return JSON.stringify({
    jsonrpc: '2.0',
    id: value.id,
    result: value.params[0] - value.params[1],
  });
}

function kit(text) {
  const parsed = parse(text);
  if (parsed.kind === 'batch') {
    const out = [];
    for (const m of parsed.messages) {
      if (m.kind === 'request')
        out.push(
          serializeSuccess(m.message.id, m.message.params[0] - m.message.params[1], m.rawId),
        );
    }
    return serializeBatch(out);
  }
  if (parsed.kind === 'request') {
    const m = parsed.message;
    return serializeSuccess(m.id, m.params[0] - m.params[1], parsed.rawId);
  }
  return undefined;
}

function measure(fn, text, ms) {
  let n = 0;
  let sink = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) sink += fn(text).length;
    n += 100;
  }
  if (sink === 0) throw new Error('unreachable');
  return n / (ms / 1000);
}

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const [name, text] of [
  ['single request', single],
  ['100-request batch', batch],
]) {
  measure(raw, text, 300);
  measure(kit, text, 300);
  const r = [];
  const k = [];
  for (let rep = 0; rep < 7; rep++) {
    if (rep % 2) {
      r.push(measure(raw, text, 200));
      k.push(measure(kit, text, 200));
    } else {
      k.push(measure(kit, text, 200));
      r.push(measure(raw, text, 200));
    }
  }
  const mr = median(r);
  const mk = median(k);
  console.log(
    `${name.padEnd(20)} raw ${Math.round(mr).toLocaleString('en')} ops/s   kit ${Math.round(mk).toLocaleString('en')} ops/s   ratio ${(mk / mr).toFixed(2)}x`,
  );
}
