import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createStdioTransport, createStreamTransport, spawnTransport } from './index.js';

/** Options as a JavaScript caller passes them: names the types do not have. */
const loose = (options: Record<string, unknown>): never => options as never;

describe('unknown option names', () => {
  it('every factory refuses an unknown name before it opens anything', () => {
    const stream = new PassThrough();
    expect(() =>
      createStreamTransport(stream, stream, loose({ framing: 'newline', frame: 1 })),
    ).toThrow(new TypeError('createStreamTransport: unknown option "frame"'));
    expect(() => createStdioTransport(loose({ stdin: stream, stdout: stream, stderr: 1 }))).toThrow(
      new TypeError('createStdioTransport: unknown option "stderr"'),
    );
    // Refused before a child is spawned: the command does not exist, and no error says so.
    expect(() => spawnTransport('no-such-command', [], loose({ timeout: 5 }))).toThrow(
      new TypeError('spawnTransport: unknown option "timeout"'),
    );
  });

  it('names the size option of the other transports and of the server', () => {
    const stream = new PassThrough();
    expect(() => createStreamTransport(stream, stream, loose({ maxPayload: 1024 }))).toThrow(
      new TypeError(
        'createStreamTransport: unknown option "maxPayload" (renamed: use maxMessageBytes)',
      ),
    );
    expect(() =>
      spawnTransport('no-such-command', [], loose({ respawn: { initialDelay: 5 } })),
    ).toThrow(new TypeError('respawn: unknown option "initialDelay"'));
  });
});
