/**
 * Scenario 8b: cost per event of the store a Streamable HTTP endpoint keeps its stream events in
 * for `Last-Event-ID` resumption (transport-http's `createMemoryEventStore({ maxEvents })`, the
 * default), as the number it keeps grows from 100 to 10,000, in one process. The store is full
 * before the timing starts, so every `append()` also pushes out the oldest event. A flat ns/event
 * line means storing an event costs the same however many are kept; one that grows means each
 * addition walks the events kept.
 */
import { kit } from '../common.mjs';
import { timePerCall } from './cost.mjs';

/** The bounds measured: column label → `maxEvents`. */
const BOUNDS = { 100: 100, '1k': 1_000, '10k': 10_000 };
/** Every measured case: `event-store/<bound>`. */
export const EVENT_STORE_CASES = Object.keys(BOUNDS).map((bound) => `event-store/${bound}`);
/** Events stored per timed round. */
const ROUND = 100;
/** What each event carries: a progress notification. */
const MESSAGE = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}';

/** Measures one case; the value is nanoseconds per event stored. */
export async function run(name, config) {
  const maxEvents = BOUNDS[name.split('/')[1]];
  if (maxEvents === undefined) throw new Error(`unknown case ${name}`);
  const { createMemoryEventStore } = await kit(
    '@jsonrpc-kit/transport-http',
    'createMemoryEventStore',
  );
  const store = createMemoryEventStore({ maxEvents });
  let last = '';
  const round = () => {
    for (let i = 0; i < ROUND; i++) last = store.append('stream', MESSAGE);
  };
  for (let i = 0; i < (2 * maxEvents) / ROUND; i++) round();
  // Full, and no fuller: the newest event is kept, the one `maxEvents` before it is not.
  const sequence = Number(last.slice(last.lastIndexOf('_') + 1));
  if ((await store.replayAfter(last, () => {})) !== 'stream') throw new Error('newest not kept');
  if ((await store.replayAfter(`stream_${sequence - maxEvents}`, () => {})) !== undefined)
    throw new Error(`more than ${maxEvents} events kept`);
  const ns = await timePerCall(round, config.measureMs);
  return { value: ns / ROUND, extra: { kept: maxEvents } };
}
