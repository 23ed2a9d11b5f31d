import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogLimit } from '../src/log-limit.js';
import { spawnStdio } from './raw-peers.js';

describe('createLogLimit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the first lines of an interval, then one summary when it ends', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const log = createLogLimit({ write: (line) => lines.push(line), burst: 3, interval: 1_000 });
    for (let i = 0; i < 1_000; i++) log.log(`bad frame ${i}`);
    expect(lines).toEqual(['bad frame 0\n', 'bad frame 1\n', 'bad frame 2\n']);
    vi.advanceTimersByTime(1_000);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('… 997 more lines suppressed\n');
    // A new interval starts with a new burst.
    log.log('later');
    expect(lines[4]).toBe('later\n');
    log.flush();
    expect(lines).toHaveLength(5);
  });
});

describe('conformance server over stdio', () => {
  it('does not write one stderr line per bad frame', async () => {
    const peer = spawnStdio('content-length');
    const stderrDone = new Promise((resolve) => peer.child.stderr!.once('close', resolve));
    try {
      // A bad header, then a good frame (a notification) to resynchronize on: one error each.
      const note = '{"jsonrpc":"2.0","method":"update"}';
      const bad = `Content-Length: nope\r\n\r\nContent-Length: ${note.length}\r\n\r\n${note}`;
      for (let i = 0; i < 200; i++) peer.write(bad);
      peer.send('{"jsonrpc":"2.0","method":"echo","params":["after"],"id":1}');
      expect(JSON.parse(await peer.next())).toEqual({ jsonrpc: '2.0', id: 1, result: ['after'] });
    } finally {
      await peer.close();
      await stderrDone;
    }
    const lines = peer
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(lines.at(-1)).toMatch(/more lines suppressed/);
  });
});
