/**
 * `checkOptionNames()`: refuses option names a factory does not know, so that a misspelt or
 * renamed option fails loudly in JavaScript instead of being ignored.
 *
 * @module
 */

/**
 * Every option name of an options type, each mapped to `true`: typed this way, a list that
 * forgets an option of `T` (or names one `T` does not have) does not compile.
 */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Checks an options object's own names against the names a factory knows: one pass over its
 * keys, once per factory call. A name that was renamed is refused with a message naming what
 * replaced it; any other unknown name is refused as unknown (as `ws` and undici do).
 *
 * @param where - the factory, for the message (`"createServer"`)
 * @param options - the options given (`undefined` and non-objects are left alone)
 * @param known - the names the factory knows
 * @param renamed - old names to what the caller should use now, as a phrase
 *   (`{ timeout: 'handlerTimeout' }`)
 * @throws TypeError for the first unknown name
 * @example
 * ```ts
 * checkOptionNames('createThing', { size: 1 }, { size: true }); // fine
 * checkOptionNames('createThing', { length: 1 }, { size: true }, { length: 'size' });
 * // TypeError: createThing: unknown option "length" (renamed: use size)
 * ```
 */
export function checkOptionNames(
  where: string,
  options: unknown,
  known: Readonly<Record<string, true>>,
  renamed?: Readonly<Record<string, string>>,
): void {
  if (typeof options !== 'object' || options === null) return;
  for (const name in options) {
    if (!Object.hasOwn(options, name) || Object.hasOwn(known, name)) continue;
    const now = renamed !== undefined && Object.hasOwn(renamed, name) ? renamed[name] : undefined;
    throw new TypeError(
      now === undefined
        ? `${where}: unknown option "${name}"`
        : `${where}: unknown option "${name}" (renamed: use ${now})`,
    );
  }
}
