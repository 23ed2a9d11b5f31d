import { describe, expect, it } from 'vitest';
import { parseCli } from './cli-args.js';

describe('parseCli', () => {
  it('reads each kind of target', () => {
    expect(parseCli(['--http', 'http://127.0.0.1:1/rpc'])).toMatchObject({
      mode: 'run',
      target: { http: 'http://127.0.0.1:1/rpc' },
      json: false,
    });
    expect(parseCli(['--ws', 'wss://example.test/ws', '--json'])).toMatchObject({
      target: { ws: 'wss://example.test/ws' },
      json: true,
    });
    expect(parseCli(['--stdio', 'node server.js', '--framing', 'newline'])).toMatchObject({
      target: { stdio: 'node server.js', framing: 'newline' },
    });
    expect(parseCli(['--help'])).toEqual({ mode: 'help' });
  });

  it('turns flags into configuration', () => {
    const request = parseCli([
      '--http',
      'http://127.0.0.1:1/',
      '--method',
      'subtract=minus',
      '--method',
      'crash=-',
      '--max-body-bytes',
      'none',
      '--max-batch-size',
      '50',
      '--cancel',
      'notifications/cancelled',
      '--timeout',
      '2000',
      '--max-answer-bytes',
      '65536',
      '--only',
      'spec.',
      '--config',
      'c.json',
    ]);
    expect(request).toEqual({
      mode: 'run',
      target: { http: 'http://127.0.0.1:1/' },
      configFile: 'c.json',
      overrides: {
        methods: { subtract: 'minus', crash: null },
        maxBodyBytes: null,
        maxBatchSize: 50,
        cancellation: ['notifications/cancelled'],
        timeoutMs: 2000,
        maxAnswerBytes: 65536,
      },
      only: ['spec.'],
      json: false,
      strict: false,
    });
    expect(parseCli(['--ws', 'ws://h/', '--strict'])).toMatchObject({ strict: true });
    expect(parseCli(['--ws', 'ws://h/', '--cancel', 'none'])).toMatchObject({
      overrides: { cancellation: [] },
    });
  });

  it.each([
    [[], /exactly one of --http, --ws and --stdio/],
    [['--http', 'http://a/', '--ws', 'ws://a/'], /exactly one/],
    [['--http', 'ftp://a/'], /--http needs an http\(s\):\/\/ URL/],
    [['--ws', 'http://a/'], /--ws needs a ws\(s\):\/\/ URL/],
    [['--stdio', 'cmd'], /--stdio needs --framing content-length\|newline/],
    [['--stdio', 'cmd', '--framing', 'auto'], /--framing/],
    [['--http', 'http://a/', '--framing', 'newline'], /--framing goes with --stdio/],
    [['--http', 'http://a/', '--method', 'subtract'], /ROLE=NAME/],
    [['--http', 'http://a/', '--max-body-bytes', '0'], /positive integer or none/],
    [['--http', 'http://a/', '--timeout', '0'], /--timeout/],
    [
      ['--http', 'http://a/', '--max-answer-bytes', 'none'],
      /--max-answer-bytes must be a positive/,
    ],
    [['--http', 'http://a/', '--bogus'], /Unknown option/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCli(argv)).toThrow(message);
  });
});
