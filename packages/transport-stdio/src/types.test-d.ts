import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@jsonrpc-kit/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createContentLengthDecoder,
  createStdioTransport,
  createStreamTransport,
  type FrameDecoder,
  type FrameError,
  type Framing,
  type ProcessExit,
  type SpawnedTransport,
  spawnTransport,
} from './index.js';

describe('types', () => {
  it('transports are core Transports; the spawned one adds process and exit', () => {
    expectTypeOf(createStdioTransport).returns.toEqualTypeOf<Transport>();
    expectTypeOf(createStreamTransport).returns.toEqualTypeOf<Transport>();
    expectTypeOf(spawnTransport).returns.toEqualTypeOf<SpawnedTransport>();
    expectTypeOf<SpawnedTransport>().toExtend<Transport>();
    expectTypeOf<SpawnedTransport['process']>().toEqualTypeOf<ChildProcess>();
    expectTypeOf<SpawnedTransport['exit']>().toEqualTypeOf<Promise<ProcessExit>>();
    expectTypeOf<ProcessExit['signal']>().toEqualTypeOf<NodeJS.Signals | null>();
  });

  it('framing is one of three names', () => {
    expectTypeOf<Framing>().toEqualTypeOf<'content-length' | 'newline' | 'auto'>();
    // Type-checked only, never run.
    const _never = (): void => {
      // @ts-expect-error: not a framing
      createStdioTransport({ framing: 'lsp' });
      // @ts-expect-error: stderr takes a mode or a function
      spawnTransport('node', [], { stderr: 'stdout' });
    };
    expectTypeOf(_never).toBeFunction();
  });

  it('decoders take bytes, not strings, and report FrameErrors', () => {
    const decoder = createContentLengthDecoder({
      onMessage: (m) => expectTypeOf(m).toEqualTypeOf<string>(),
      onError: (e) => expectTypeOf(e).toEqualTypeOf<FrameError>(),
    });
    expectTypeOf(decoder).toEqualTypeOf<FrameDecoder>();
    const _never = (): void => {
      // @ts-expect-error: push takes bytes
      decoder.push('Content-Length: 2\r\n\r\n[]');
      // @ts-expect-error: onMessage is required
      createContentLengthDecoder({});
    };
    expectTypeOf(_never).toBeFunction();
  });
});
