/**
 * The notices meant for a session itself, as its profile writes them: a cancel notice aborts the
 * call of the other side that it names, and a request whose params carry a progress token gets a
 * reporter that sends progress notices.
 *
 * @module
 */
import { fromErrorObject } from './errors.js';
import type { IncomingCall, IncomingCalls } from './incoming.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcParams } from './messages.js';
import type { Profile, ProgressReporter } from './protocols.js';
import type { ErrorInfo } from './report.js';
import { toError } from './to-error.js';

/**
 * Applies the profile's cancel notice: the call it names, when it still runs here, is aborted
 * (and answered or not, as the profile says).
 *
 * @param notification - a notification with the profile's cancel method
 * @param profile - the session's profile (it has a cancellation)
 * @param table - the calls running here, if any
 * @param report - where a malformed notice goes
 */
export function applyCancelNotice(
  notification: JsonRpcNotification,
  profile: Profile<any>,
  table: IncomingCalls<IncomingCall> | undefined,
  report: (error: Error, info: ErrorInfo) => void,
): void {
  if (table === undefined || table.size === 0) return;
  const cancellation = profile.cancellation!;
  let id: JsonRpcId | undefined;
  try {
    id = cancellation.fromParams(notification.params);
  } catch (error) {
    report(toError(error), {
      kind: 'invalid-message',
      level: 'warn',
      method: notification.method,
    });
    return;
  }
  if (id === undefined) return;
  const reason = cancellation.reasonOf?.(notification.params);
  const cancelled = fromErrorObject(
    reason === undefined
      ? { code: cancellation.code, message: 'Request cancelled' }
      : { code: cancellation.code, message: `Request cancelled: ${reason}`, data: { reason } },
    { id },
  );
  table.cancel(id, cancelled, cancellation.answer !== false);
}

/**
 * The progress reporter of an incoming request, when its params carry the profile's token.
 *
 * @param profile - the session's profile, if any
 * @param params - the request's params
 * @param open - whether the call still runs (reports after the answer are dropped)
 * @param session - sends the notices while it is open
 * @returns the reporter, or `undefined`
 */
export function progressReporter(
  profile: Profile<any> | undefined,
  params: unknown,
  open: () => boolean,
  session: {
    readonly isClosed: boolean;
    notify(method: string, params: JsonRpcParams): Promise<void>;
  },
): ProgressReporter<any> | undefined {
  const progress = profile?.progress;
  if (progress === undefined || params === undefined || params === null) return undefined;
  const token = progress.tokenOf(params);
  if (token === undefined) return undefined;
  return (value: unknown) =>
    open() && !session.isClosed
      ? session.notify(progress.method, progress.toParams(token, value))
      : Promise.resolve();
}
