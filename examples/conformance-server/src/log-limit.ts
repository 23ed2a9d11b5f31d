/**
 * A rate limit for log lines: a misbehaving peer that sends a million bad frames must not write a
 * million lines.
 *
 * @module
 */

/** Options of {@link createLogLimit}. */
export interface LogLimitOptions {
  /** Where lines go (one call per line, newline included). */
  readonly write: (line: string) => void;
  /**
   * Lines written per interval; the rest are counted and summarized once when the interval ends.
   *
   * @default 10
   */
  readonly burst?: number;
  /**
   * The length of an interval, in milliseconds.
   *
   * @default 10000
   */
  readonly interval?: number;
}

/** A rate-limited log. */
export interface LogLimit {
  /**
   * Logs one line (without its newline), or counts it when this interval's burst is spent.
   *
   * @param line - the text
   */
  log(line: string): void;
  /** Writes the summary of what was suppressed so far, if anything, and stops the timer. */
  flush(): void;
}

/** Lines written per interval before the rest are suppressed. @default 10 */
export const DEFAULT_LOG_BURST: number = 10;
/** The interval of the log limit, in milliseconds. @default 10000 */
export const DEFAULT_LOG_INTERVAL: number = 10_000;

/**
 * Creates a log that writes the first `burst` lines of each interval and then one summary line
 * (`… N more lines suppressed`) when the interval ends. The timer is unref'd, so it never keeps
 * the process alive.
 *
 * @param options - where to write, burst and interval
 * @returns the log
 * @example
 * ```ts
 * const log = createLogLimit({ write: (line) => process.stderr.write(line) });
 * log.log('conformance-server: bad frame');
 * ```
 */
export function createLogLimit(options: LogLimitOptions): LogLimit {
  const { write } = options;
  const burst = options.burst ?? DEFAULT_LOG_BURST;
  const interval = options.interval ?? DEFAULT_LOG_INTERVAL;
  let written = 0;
  let suppressed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (suppressed > 0) {
      write(`… ${suppressed} more line${suppressed === 1 ? '' : 's'} suppressed\n`);
    }
    written = 0;
    suppressed = 0;
  };

  return {
    log(line) {
      if (timer === undefined) {
        timer = setTimeout(flush, interval);
        timer.unref();
      }
      if (written < burst) {
        written++;
        write(`${line}\n`);
      } else {
        suppressed++;
      }
    },
    flush,
  };
}
