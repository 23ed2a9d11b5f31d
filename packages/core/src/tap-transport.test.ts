import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair } from './memory-transport.js';
import { type TapDirection, tapTransport } from './tap-transport.js';

describe('tapTransport', () => {
  it('shows every message both ways and passes hooks through', async () => {
    const [a, b] = createMemoryTransportPair();
    const seen: [TapDirection, string][] = [];
    const tapped = tapTransport(a, (direction, message) => seen.push([direction, message]));
    const received: string[] = [];
    let closed = 0;
    await tapped.start({ onMessage: (m) => received.push(m), onClose: () => closed++ });
    await b.start({ onMessage: (m) => void b.send(`echo ${m}`), onClose: () => {} });
    await tapped.send('hello');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual([
      ['sent', 'hello'],
      ['received', 'echo hello'],
    ]);
    expect(received).toEqual(['echo hello']);
    await tapped.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(1);
  });
});
