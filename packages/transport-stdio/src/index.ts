export type { ContentLengthDecoderOptions } from './content-length.js';
export { createContentLengthDecoder, encodeContentLength } from './content-length.js';
export type { DecoderOptions, FrameDecoder } from './decoder.js';
export { DEFAULT_MAX_HEADER_BYTES, DEFAULT_STDIO_MAX_MESSAGE_BYTES } from './decoder.js';
export type { FrameErrorReasonValue, ProcessExitErrorOptions } from './errors.js';
export { FrameError, FrameErrorReason, ProcessExitError } from './errors.js';
export type { FrameDecoderOptions, Framing, ResolvedFraming } from './framing.js';
export { createFrameDecoder } from './framing.js';
export type { NewlineDecoderOptions } from './newline.js';
export { createNewlineDecoder, encodeNewline } from './newline.js';
export type { ResolvedRespawnOptions, RespawnOptions } from './respawn.js';
export { DEFAULT_RESPAWN } from './respawn.js';
export type { SpawnTransportOptions, StderrOption } from './spawn-transport.js';
export { DEFAULT_KILL_TIMEOUT, spawnTransport } from './spawn-transport.js';
export type { ProcessExit, SpawnedTransport } from './spawned-transport.js';
export type { StdioTransportOptions } from './stdio-transport.js';
export { createStdioTransport, DEFAULT_STDIO_FRAMING } from './stdio-transport.js';
export type { FramedTransportOptions, StreamTransportOptions } from './stream-transport.js';
export {
  createStreamTransport,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_STREAM_FRAMING,
} from './stream-transport.js';
