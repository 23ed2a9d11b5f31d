/**
 * The tools: each one a name, a description, a valibot schema for its arguments (which becomes
 * its JSON Schema `inputSchema`), and a function.
 *
 * @module
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';

/** An object schema for a tool's arguments. */
export type ArgumentsSchema = v.ObjectSchema<
  v.ObjectEntries,
  v.ErrorMessage<v.ObjectIssue> | undefined
>;

/** One tool. */
export interface Tool<S extends ArgumentsSchema = ArgumentsSchema> {
  /** The tool's name, as `tools/call` names it. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The schema of its arguments. */
  readonly input: S;
  /**
   * Runs the tool.
   *
   * @param args - the validated arguments
   * @param signal - aborted when the call is cancelled
   * @param progress - reports progress to a client that asked for it (a `progressToken`)
   * @returns the text answered
   */
  run(
    args: v.InferOutput<S>,
    signal: AbortSignal,
    progress: (progress: number, total?: number) => void,
  ): string | Promise<string>;
}

/**
 * Defines a tool, typing `run` by the schema.
 *
 * @param tool - the tool
 * @returns the same tool
 * @example
 * ```ts
 * const upper = defineTool({
 *   name: 'upper',
 *   description: 'Upper-cases text.',
 *   input: v.object({ text: v.string() }),
 *   run: ({ text }) => text.toUpperCase(),
 * });
 * ```
 */
export function defineTool<S extends ArgumentsSchema>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}

/** The JSON Schema of a tool's arguments, as `tools/list` shows it. */
export type InputSchema = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

/**
 * The JSON Schema of a tool's arguments, from its valibot schema.
 *
 * @param tool - the tool
 * @returns an object schema
 */
export function inputSchemaOf(tool: Tool): InputSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(tool.input) as Record<string, unknown>;
  return { ...schema, type: 'object' };
}

/** `add({ a, b })`: the sum, as text. */
export const addTool: Tool = defineTool({
  name: 'add',
  description: 'Adds two numbers and answers the sum as text.',
  input: v.object({
    a: v.pipe(v.number(), v.description('The first number')),
    b: v.pipe(v.number(), v.description('The second number')),
  }),
  run: ({ a, b }) => String(a + b),
});

/** `echo({ text })`: the same text. */
export const echoTool: Tool = defineTool({
  name: 'echo',
  description: 'Answers the text it is given.',
  input: v.object({ text: v.pipe(v.string(), v.description('The text to echo')) }),
  run: ({ text }) => text,
});

/** `countdown({ steps, delayMs })`: waits `steps` times, reporting progress; honours cancellation. */
export const countdownTool: Tool = defineTool({
  name: 'countdown',
  description: 'Counts down, reporting progress at each step; stops when cancelled.',
  input: v.object({
    steps: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(1000),
      v.description('How many steps'),
    ),
    delayMs: v.optional(
      v.pipe(v.number(), v.minValue(0), v.maxValue(10_000), v.description('Milliseconds per step')),
      100,
    ),
  }),
  run: async ({ steps, delayMs }, signal, progress) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const timer = setTimeout(resolve, delayMs);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
      progress(i, steps);
    }
    return `counted down ${steps}`;
  },
});

/** Every tool of the example. */
export const TOOLS: readonly Tool[] = [addTool, echoTool, countdownTool];
