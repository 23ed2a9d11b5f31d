// Types of server.mjs, which stays plain JavaScript so that a child process can run it.
import type { MethodDefinition, NotificationDefinition } from '@jsonrpc-kit/core';
import type { Server } from '@jsonrpc-kit/server';
import type { GenericSchema } from 'valibot';

/** The typed contract the matrix server implements under the `calc.` prefix. */
export declare const calculator: {
  readonly add: MethodDefinition<GenericSchema<[number, number]>, GenericSchema<number>>;
  readonly divide: MethodDefinition<
    GenericSchema<{ dividend: number; divisor: number }>,
    GenericSchema<number>
  >;
  readonly log: NotificationDefinition<GenericSchema<{ message: string }>>;
};

/** The application error code `fail` answers with. */
export declare const APP_ERROR_CODE: 4001;

/** The secret a crashing handler throws; it must never reach the wire. */
export declare const CRASH_SECRET: string;

/** What `recorded` answers. */
export interface Recorded {
  readonly notes: unknown[];
  readonly aborted: (string | number | null)[];
}

/**
 * Builds the matrix server: subtract (by position and name), sum, echo, get_data, sleep
 * (honours the signal), fail, crash, the `record` notification, `recorded`, `callback` (calls the
 * peer back) and the `calc.` contract.
 */
export declare function createMatrixServer(): Server;
