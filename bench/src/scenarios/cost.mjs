/**
 * Scenario 7: cost per byte as one input grows from 1 KB to the 1 MiB limit, in one process. A
 * flat ns/byte column means the cost is linear in the input; a column that grows with the size
 * means some step rescans the input per item.
 *
 * Inputs (each at 1 KB, 16 KB, 256 KB and just under 1 MiB):
 * - `exact-ids`: a batch of requests whose ids need their exact source text (`N.5`), answered by
 *   `server.handle()` with no batch-length limit, so every member is classified and answered.
 * - `single`: one request whose params carry one long string, through `server.handle()`.
 * - `over-limit`: a request just over the limit (the size given), refused with its own id after a
 *   scan of its top level (`scanEnvelope` through `server.handle()` with a limit of 512 bytes).
 * - `cl-frames`, `nl-frames`: the size given as tiny Content-Length or newline frames (`[1]`),
 *   pushed through the stdio decoder in 64 KiB chunks.
 */
import { add, kit, METHOD } from '../common.mjs';

const SIZES = { '1KB': 1024, '16KB': 16 * 1024, '256KB': 256 * 1024, '1MB': 1024 * 1024 - 64 };
export const COST_SHAPES = ['exact-ids', 'single', 'over-limit', 'cl-frames', 'nl-frames'];
/** Every measured case: `<shape>/<size>`. */
export const COST_CASES = COST_SHAPES.flatMap((shape) =>
  Object.keys(SIZES).map((size) => `${shape}/${size}`),
);

function exactIdBatch(bytes) {
  const members = [];
  let length = 2;
  for (let i = 0; ; i++) {
    const member = `{"jsonrpc":"2.0","method":"${METHOD}","params":{"a":1,"b":2},"id":${i}.5}`;
    if (length + member.length + 1 > bytes && members.length > 0) break;
    members.push(member);
    length += member.length + 1;
  }
  return `[${members.join(',')}]`;
}

function single(bytes) {
  const head = `{"jsonrpc":"2.0","id":1,"method":"${METHOD}","params":{"a":1,"b":2,"pad":"`;
  const tail = '"}}';
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}

function frames(bytes, framing) {
  const one = framing === 'newline' ? '[1]\n' : 'Content-Length: 3\r\n\r\n[1]';
  const count = Math.max(1, Math.floor(bytes / one.length));
  const all = Buffer.from(one.repeat(count));
  const chunks = [];
  for (let i = 0; i < all.length; i += 64 * 1024) chunks.push(all.subarray(i, i + 64 * 1024));
  return { chunks, bytes: all.length, count };
}

/** Runs `once` until `ms` have passed (at least twice); returns ns per call. */
export async function timePerCall(once, ms) {
  await once();
  let calls = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  do {
    await once();
    calls++;
  } while (calls < 2 || process.hrtime.bigint() < deadline);
  return Number(process.hrtime.bigint() - start) / calls;
}

/**
 * Measures one case of a row of per-item costs, named `<what>/<bound label>`: `makers[what]`
 * fills its table or queue to the bound and returns a round of `perRound` items (with a
 * `close()` when something must be let go of after the timing).
 *
 * @returns nanoseconds per item, and the bound under `extraKey`
 */
export async function timePerItem({ makers, bounds, perRound, extraKey }, name, config) {
  const [what, label] = name.split('/');
  const bound = bounds[label];
  if (bound === undefined || makers[what] === undefined) throw new Error(`unknown case ${name}`);
  const round = await makers[what](bound);
  const ns = await timePerCall(round, config.measureMs);
  await round.close?.();
  return { value: ns / perRound, extra: { [extraKey]: bound } };
}

/** Measures one case; the value is nanoseconds per input byte. */
export async function run(name, config) {
  const [shape, size] = name.split('/');
  const target = SIZES[size];
  if (target === undefined || !COST_SHAPES.includes(shape)) throw new Error(`unknown case ${name}`);

  if (shape === 'cl-frames' || shape === 'nl-frames') {
    const framing = shape === 'nl-frames' ? 'newline' : 'content-length';
    const { createFrameDecoder } = await kit('@jsonrpc-kit/transport-stdio', 'createFrameDecoder');
    const { chunks, bytes, count } = frames(target, framing);
    let seen = 0;
    const decoder = createFrameDecoder(framing, { onMessage: () => seen++ });
    for (const chunk of chunks) decoder.push(chunk);
    if (seen !== count) throw new Error(`decoded ${seen} of ${count} frames`);
    const ns = await timePerCall(() => {
      for (const chunk of chunks) decoder.push(chunk);
    }, config.measureMs);
    return { value: ns / bytes, extra: { bytes } };
  }

  const { createServer } = await kit('@jsonrpc-kit/server', 'createServer');
  const limit = shape === 'over-limit' ? 512 : 1024 * 1024;
  const server = createServer({ maxBatchSize: 1e9, maxMessageBytes: limit });
  server.method(METHOD, add);
  const text =
    shape === 'exact-ids'
      ? exactIdBatch(target)
      : shape === 'single'
        ? single(target)
        : `${single(target).slice(0, -1)},"id":"late"}`.replace('"id":1,', '');
  const bytes = Buffer.byteLength(text);
  // Check the answer once before timing.
  const answer = JSON.parse(await server.handle(text));
  const ok =
    shape === 'exact-ids'
      ? Array.isArray(answer) && answer.every((a) => a.result === 3)
      : shape === 'single'
        ? answer.result === 3
        : answer.id === 'late' && answer.error?.code === -32004;
  if (!ok) throw new Error(`wrong answer: ${JSON.stringify(answer).slice(0, 200)}`);
  const ns = await timePerCall(() => server.handle(text), config.measureMs);
  return { value: ns / bytes, extra: { bytes } };
}
