/**
 * OpenTelemetry test doubles: a tracer that records its spans, and an AsyncLocalStorage context
 * manager so that "the active span" means something in tests.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import * as api from '@opentelemetry/api';
import { afterAll, beforeAll } from 'vitest';
import type { SpanLike, TracerLike } from '../src/tracing.js';

/** A span as the recording tracer keeps it. */
export interface Recorded {
  name: string;
  kind: number | undefined;
  attributes: Record<string, unknown>;
  parent: api.SpanContext | undefined;
  status?: { code: number; message?: string };
  exceptions: unknown[];
  ended: boolean;
  spanContext(): api.SpanContext;
}

/** A tracer that records its spans; a root span gets a fresh random trace id. */
export function recordingTracer(): TracerLike & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  return {
    spans,
    startSpan(name, options, context) {
      const parent = context === undefined ? undefined : api.trace.getSpanContext(context);
      const own: api.SpanContext = {
        traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
        spanId: randomBytes(8).toString('hex'),
        traceFlags: 1,
      };
      if (parent?.traceState !== undefined) own.traceState = parent.traceState;
      const span: Recorded & SpanLike = {
        name,
        kind: options?.kind,
        attributes: { ...options?.attributes },
        parent,
        exceptions: [],
        ended: false,
        spanContext: () => own,
        setAttribute(key, value) {
          span.attributes[key] = value;
          return span;
        },
        setStatus(status) {
          span.status = status;
          return span;
        },
        recordException(exception) {
          span.exceptions.push(exception);
        },
        end() {
          span.ended = true;
        },
      };
      spans.push(span);
      return span;
    },
  };
}

/** Installs an AsyncLocalStorage context manager for the tests of the calling file. */
export function useContextManager(): void {
  const storage = new AsyncLocalStorage<api.Context>();
  const manager: api.ContextManager = {
    active: () => storage.getStore() ?? api.ROOT_CONTEXT,
    with: (context, fn, thisArg, ...args) => storage.run(context, () => fn.call(thisArg, ...args)),
    bind: (_context, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
  beforeAll(() => {
    api.context.setGlobalContextManager(manager);
  });
  afterAll(() => {
    api.context.disable();
  });
}
