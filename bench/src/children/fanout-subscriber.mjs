/**
 * One process of the fan-out scenario: `listeners` subscribers of one topic. Prints `ready` once
 * subscribed, then `done` once every listener got `items` items.
 * Usage: node fanout-subscriber.mjs <raw|kit> <redis-url> <listeners> <items>
 */
const [impl, url, listenersText, itemsText] = process.argv.slice(2);
const listeners = Number(listenersText);
const expected = listeners * Number(itemsText);
let delivered = 0;
const onItem = (item) => {
  if (item.n >= 0) delivered++;
  if (delivered === expected) process.stdout.write('done\n');
};

if (impl === 'raw') {
  const { createClient } = await import('@redis/client');
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const local = Array.from({ length: listeners }, () => (item) => onItem(item));
  await client.subscribe('bench:fanout', (text) => {
    const item = JSON.parse(text);
    for (const listener of local) listener(item);
  });
} else {
  const { createRedisFanout } = await import('@jsonrpc-kit/redis');
  const fanout = await createRedisFanout({ url, channelPrefix: 'bench:' });
  for (let i = 0; i < listeners; i++) await fanout.subscribe('fanout', (item) => onItem(item));
}
process.stdout.write('ready\n');
