/**
 * The server's params decoder: the codec's `decode`, with params the codec cannot take answered
 * -32602 (saying they did not decode, and what the codec expected) instead of reaching the
 * handler as values of the wrong types.
 *
 * @module
 */
import { type Codec, InvalidParamsError } from '@jsonrpc-kit/core';

/**
 * Makes the decoder of a server's params.
 *
 * @param codec - the server's codec, if any
 * @returns the decoder, or `undefined` when params are taken as they are
 */
export function paramsDecoder(codec: Codec | undefined): ((value: unknown) => unknown) | undefined {
  const decode = codec?.decode;
  const form = codec?.wireForm;
  if (decode === undefined && form === undefined) return undefined;
  const head = `Invalid params: the params did not decode with the server's codec${
    form === undefined ? '' : ` (expected ${form.description})`
  }`;
  return (value) => {
    // Absent params have nothing to decode.
    if (value === undefined) return value;
    if (form !== undefined && !form.matches(value)) {
      throw new InvalidParamsError(`${head}: is the client using the same codec?`);
    }
    if (decode === undefined) return value;
    try {
      return decode(value);
    } catch (error) {
      throw new InvalidParamsError(
        `${head}: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        { cause: error },
      );
    }
  };
}
