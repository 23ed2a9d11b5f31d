import { PassThrough, Writable } from 'node:stream';
import { ConnectionClosedError } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { recorder } from '../test/helpers.js';
import { encodeContentLength } from './content-length.js';
import { createStdioTransport } from './stdio-transport.js';

/** A stdout that records each write, optionally slow to accept. */
function sink(options: { highWaterMark?: number; delayMs?: number } = {}) {
  const writes: string[] = [];
  let ended = false;
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      writes.push(chunk.toString('utf8'));
      if (options.delayMs === undefined) done();
      else setTimeout(done, options.delayMs);
    },
    final(done) {
      ended = true;
      done();
    },
  });
  return { stream, writes, text: () => writes.join(''), ended: () => ended };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('createStdioTransport', () => {
  it("answers in the framing the client used ('auto'): newline", async () => {
    const stdin = new PassThrough();
    const out = sink();
    const t = createStdioTransport({ stdin, stdout: out.stream });
    const rec = recorder();
    await t.start(rec);
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"a"}\n');
    expect(await rec.next()).toBe('{"jsonrpc":"2.0","id":1,"method":"a"}');
    await t.send('{"jsonrpc":"2.0","id":1,"result":"é"}');
    expect(out.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"é"}\n');
    await t.close();
  });

  it("answers in the framing the client used ('auto'): Content-Length", async () => {
    const stdin = new PassThrough();
    const out = sink();
    const t = createStdioTransport({ stdin, stdout: out.stream });
    const rec = recorder();
    await t.start(rec);
    stdin.write(encodeContentLength('{"jsonrpc":"2.0","id":1,"method":"a"}'));
    await rec.next();
    await t.send('{"result":"é"}');
    expect(out.text()).toBe('Content-Length: 15\r\n\r\n{"result":"é"}');
    await t.close();
  });

  it("holds sends made before 'auto' has detected the framing", async () => {
    const stdin = new PassThrough();
    const out = sink();
    const t = createStdioTransport({ stdin, stdout: out.stream });
    await t.start(recorder());
    let sent = false;
    const early = t.send('{"method":"early"}').then(() => {
      sent = true;
    });
    await tick();
    await tick();
    expect(sent).toBe(false);
    expect(out.writes).toEqual([]);
    stdin.write('[]\n');
    await early;
    expect(out.text()).toBe('{"method":"early"}\n');
    await t.close();
  });

  it("rejects sends still waiting for 'auto' detection when it closes", async () => {
    const out = sink();
    const t = createStdioTransport({ stdin: new PassThrough(), stdout: out.stream });
    await t.start(recorder());
    const early = t.send('{"method":"early"}');
    await t.close();
    await expect(early).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(out.writes).toEqual([]);
  });

  it('writes every message of one event-loop turn as one write, in order', async () => {
    const out = sink();
    const t = createStdioTransport({
      framing: 'content-length',
      stdin: new PassThrough(),
      stdout: out.stream,
    });
    await t.start(recorder());
    const sends = [];
    for (let i = 0; i < 50; i++) sends.push(t.send(`[${i}]`));
    await Promise.all(sends);
    expect(out.writes.length).toBe(1);
    expect(out.writes[0]).toBe(
      Array.from({ length: 50 }, (_, i) => `[${i}]`)
        .map((m) => `Content-Length: ${m.length}\r\n\r\n${m}`)
        .join(''),
    );
    await t.close();
  });

  it('writes a message sent alone before the loop turns; after a write of several, waits for the turn', async () => {
    const out = sink();
    const t = createStdioTransport({
      framing: 'newline',
      stdin: new PassThrough(),
      stdout: out.stream,
    });
    await t.start(recorder());
    /** How many writes happened when an immediate scheduled before `send` ran. */
    const writesAtTurn = async (send: () => unknown): Promise<number> => {
      let seen = -1;
      setImmediate(() => {
        seen = out.writes.length;
      });
      send();
      await new Promise((resolve) => setImmediate(resolve));
      return seen;
    };
    // One call at a time: out at the end of the sender's tick, before the loop's turn ends.
    expect(await writesAtTurn(() => t.send('[1]'))).toBe(1);
    // Several in one write: the next waits for the turn, to take in what else the turn sends.
    await Promise.all([t.send('[2]'), t.send('[3]')]);
    expect(out.writes.length).toBe(2);
    expect(await writesAtTurn(() => t.send('[4]'))).toBe(2);
    expect(out.writes.length).toBe(3);
    // That write held one message: the next goes out at once again.
    expect(await writesAtTurn(() => t.send('[5]'))).toBe(4);
    expect(out.text()).toBe('[1]\n[2]\n[3]\n[4]\n[5]\n');
    await t.close();
  });

  it('writes a big message apart from its framing, not joined into a copy of it', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', method: 'big', params: ['é'.repeat(70_000)] });
    for (const framing of ['newline', 'content-length'] as const) {
      const out = sink({ highWaterMark: 1024 * 1024 });
      const t = createStdioTransport({ framing, stdin: new PassThrough(), stdout: out.stream });
      await t.start(recorder());
      await t.send(big);
      await t.send('[1]');
      expect(out.writes).toEqual(
        framing === 'newline'
          ? [big, '\n', '[1]\n']
          : [
              `Content-Length: ${Buffer.byteLength(big)}\r\n\r\n`,
              big,
              'Content-Length: 3\r\n\r\n[1]',
            ],
      );
      await t.close();
    }
  });

  it('waits for drain: a slow reader paces the writer and order is kept', async () => {
    const out = sink({ highWaterMark: 1024, delayMs: 5 });
    const t = createStdioTransport({
      framing: 'newline',
      stdin: new PassThrough(),
      stdout: out.stream,
    });
    await t.start(recorder());
    const big = JSON.stringify('x'.repeat(4000));
    let maxBuffered = 0;
    for (let i = 0; i < 20; i++) {
      await t.send(`[${i},${big}]`);
      maxBuffered = Math.max(maxBuffered, out.stream.writableLength);
      // After send() resolved, the stream is below its high-water mark again.
      expect(out.stream.writableNeedDrain).toBe(false);
    }
    expect(maxBuffered).toBeLessThan(1024);
    // Unawaited sends while full go out later, in order.
    const sends = [];
    for (let i = 20; i < 40; i++) sends.push(t.send(`[${i},${big}]`));
    await Promise.all(sends);
    await new Promise<void>((r) => out.stream.write('', () => r()));
    const got = out
      .text()
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as number[])[0]);
    expect(got).toEqual(Array.from({ length: 40 }, (_, i) => i));
    await t.close();
  });

  it('send() stays pending while stdout is full, and resolves after drain', async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => {
      release = r;
    });
    const stream = new Writable({
      highWaterMark: 10,
      write(_chunk, _enc, done) {
        blocked.then(() => done());
      },
    });
    const t = createStdioTransport({
      framing: 'newline',
      stdin: new PassThrough(),
      stdout: stream,
    });
    await t.start(recorder());
    let first = false;
    const p = t.send('{"a":"0123456789"}').then(() => {
      first = true;
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(first).toBe(false);
    release();
    await p;
    expect(first).toBe(true);
    await t.close();
  });

  it('delivers what arrived before start()', async () => {
    const stdin = new PassThrough();
    stdin.write('[1]\n[2]\n');
    const t = createStdioTransport({ framing: 'newline', stdin, stdout: sink().stream });
    await tick();
    const rec = recorder();
    await t.start(rec);
    await rec.next((m) => m === '[2]');
    expect(rec.messages).toEqual(['[1]', '[2]']);
    await t.close();
  });

  it('stdin ending closes the transport once, without an error', async () => {
    const stdin = new PassThrough();
    const t = createStdioTransport({ framing: 'newline', stdin, stdout: sink().stream });
    const rec = recorder();
    await t.start(rec);
    stdin.end('[1]\n[2]');
    expect(await rec.closed()).toBeUndefined();
    // The last line without newline still counted.
    expect(rec.messages).toEqual(['[1]', '[2]']);
    await t.close();
    expect(rec.closes).toEqual([undefined]);
    await expect(t.send('[]')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('close() flushes queued sends, stops reading, and leaves stdout open', async () => {
    const stdin = new PassThrough();
    const out = sink();
    const t = createStdioTransport({ framing: 'newline', stdin, stdout: out.stream });
    const rec = recorder();
    await t.start(rec);
    const queued = t.send('[1]');
    await t.close();
    await queued;
    expect(out.text()).toBe('[1]\n');
    expect(rec.closes).toEqual([undefined]);
    expect(out.ended()).toBe(false);
    expect(out.stream.writable).toBe(true);
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.listenerCount('data')).toBe(0);
    stdin.write('[2]\n');
    await tick();
    expect(rec.messages).toEqual([]);
    await t.close();
    expect(rec.closes.length).toBe(1);
    await expect(t.send('[3]')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('closing with a reason passes it to onClose', async () => {
    const t = createStdioTransport({
      framing: 'newline',
      stdin: new PassThrough(),
      stdout: sink().stream,
    });
    const rec = recorder();
    await t.start(rec);
    const reason = new Error('shutting down');
    await t.close(reason);
    expect(rec.closes).toEqual([reason]);
  });

  it('reports bad frames through onError and keeps going', async () => {
    const stdin = new PassThrough();
    const t = createStdioTransport({
      framing: 'content-length',
      stdin,
      stdout: sink().stream,
      maxMessageBytes: 8,
    });
    const rec = recorder();
    await t.start(rec);
    stdin.write('Content-Length: 100\r\n\r\n' + 'x'.repeat(100) + 'garbage\r\n\r\n');
    stdin.write(encodeContentLength('[1]'));
    expect(await rec.next()).toBe('[1]');
    expect(rec.errors.map((e) => (e as { reason?: string }).reason)).toEqual([
      'message-too-large',
      'invalid-header',
    ]);
    await t.close();
  });

  it('a handler that throws is reported, and the next messages still arrive', async () => {
    const stdin = new PassThrough();
    const t = createStdioTransport({ framing: 'newline', stdin, stdout: sink().stream });
    const rec = recorder();
    const seen: string[] = [];
    await t.start({
      ...rec,
      onMessage(m) {
        seen.push(m);
        if (m === '[1]') throw new Error('boom');
      },
    });
    stdin.write('[1]\n[2]\n');
    for (let i = 0; i < 50 && seen.length < 2; i++) await tick();
    expect(seen).toEqual(['[1]', '[2]']);
    expect(rec.errors.map((e) => e.message)).toEqual(['boom']);
    await t.close();
  });

  it('a failing stdout closes the transport with a TransportError; pending sends reject', async () => {
    const stream = new Writable({
      write(_chunk, _enc, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const t = createStdioTransport({
      framing: 'newline',
      stdin: new PassThrough(),
      stdout: stream,
    });
    const rec = recorder();
    await t.start(rec);
    await t.send('[1]').catch(() => undefined);
    const error = await rec.closed();
    expect(error).toMatchObject({ code: 'TRANSPORT_ERROR' });
    expect(error?.message).toContain('EPIPE');
    await expect(t.send('[2]')).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});
