/**
 * The server the MCP conformance suite expects (the conformance repository's "everything
 * server"): its tools, resources and prompts, on `@jsonrpc-kit/mcp`.
 *
 * @module
 */
import { JsonRpcError } from '@jsonrpc-kit/core';
import { createMcpServer, type McpServer } from '@jsonrpc-kit/mcp';
import * as v from 'valibot';

/** A 1×1 PNG. */
export const IMAGE =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
export const AUDIO = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const image = { type: 'image', data: IMAGE, mimeType: 'image/png' } as const;
const text = (t: string) => ({ type: 'text', text: t }) as const;
const describe = (d: string) => v.pipe(v.string(), v.description(d));
type Ctx = Parameters<Parameters<McpServer['tool']>[2]>[1];

/** The JSON Schema 2020-12 input of `json_schema_2020_12_tool`, shown as it is. */
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

const DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const choices = (prefix: string, label: string) =>
  [1, 2, 3].map((i) => ({
    const: `${prefix}${i}`,
    title: `${['First', 'Second', 'Third'][i - 1]} ${label}`,
  }));
const ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Select one option',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: choices('value', 'Option'),
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: { anyOf: choices('value', 'Choice') },
    },
  },
  required: [],
};

/**
 * Creates the everything server.
 *
 * @returns the server; `stop()` ends its timers (the dynamic tool, the watched resource)
 */
export function createEverythingServer(): McpServer & { stop(): void } {
  const mcp = createMcpServer({ name: 'jsonrpc-kit-mcp-everything', version: '1.0.0' });

  mcp.tool(
    'test_simple_text',
    { description: 'Tests simple text content response' },
    () => 'This is a simple text response for testing.',
  );
  mcp.tool('test_image_content', { description: 'Tests image content response' }, () => [image]);
  mcp.tool('test_audio_content', { description: 'Tests audio content response' }, () => [
    { type: 'audio', data: AUDIO, mimeType: 'audio/wav' },
  ]);
  const embedded = (uri: string, mimeType: string, body: string) =>
    ({ type: 'resource', resource: { uri, mimeType, text: body } }) as const;
  mcp.tool(
    'test_embedded_resource',
    { description: 'Tests embedded resource content response' },
    () => [
      embedded('test://embedded-resource', 'text/plain', 'This is an embedded resource content.'),
    ],
  );
  mcp.tool(
    'test_multiple_content_types',
    { description: 'Tests response with multiple content types (text, image, resource)' },
    () => [
      text('Multiple content types test:'),
      image,
      embedded(
        'test://mixed-content-resource',
        'application/json',
        JSON.stringify({ test: 'data', value: 123 }),
      ),
    ],
  );
  mcp.tool(
    'test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution' },
    async (_args, ctx) => {
      await ctx.log('info', 'Tool execution started');
      await sleep(50);
      await ctx.log('info', 'Tool processing data');
      await sleep(50);
      await ctx.log('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    },
  );
  mcp.tool(
    'test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications' },
    async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        await ctx.progress(step, 100, `Completed step ${step} of 100`);
        if (step < 100) await sleep(50);
      }
      return String(ctx.meta?.progressToken ?? 0);
    },
  );
  mcp.tool('test_error_handling', { description: 'Tests error response handling' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  mcp.tool(
    'test_reconnection',
    { description: 'Tests SSE stream disconnection and client reconnection (SEP-1699)' },
    async () => {
      await sleep(100);
      return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
    },
  );
  mcp.tool(
    'test_sampling',
    {
      description: 'Tests server-initiated sampling (LLM completion request)',
      input: v.object({ prompt: describe('The prompt to send to the LLM') }),
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: text(prompt) }],
        maxTokens: 100,
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return `LLM response: ${content?.type === 'text' ? content.text : 'No response'}`;
    },
  );
  const elicit =
    (message: string, requestedSchema: Record<string, unknown>, label: string) =>
    async (_args: unknown, ctx: Parameters<Parameters<McpServer['tool']>[2]>[1]) => {
      const result = await ctx.elicit({ message, requestedSchema });
      return `${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    };
  mcp.tool(
    'test_elicitation',
    {
      description: 'Tests server-initiated elicitation (user input request)',
      input: v.object({ message: describe('The message to show the user') }),
    },
    ({ message }, ctx) =>
      elicit(
        message,
        {
          type: 'object',
          properties: { response: { type: 'string', description: "User's response" } },
          required: ['response'],
        },
        'User response',
      )({}, ctx),
  );
  mcp.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Tests elicitation with default values per SEP-1034' },
    elicit(
      'Please review and update the form fields with defaults',
      DEFAULTS_SCHEMA,
      'Elicitation completed',
    ),
  );
  mcp.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Tests elicitation with enum schema improvements per SEP-1330' },
    elicit('Please select options from the enum fields', ENUMS_SCHEMA, 'Elicitation completed'),
  );
  mcp.tool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
      input: SCHEMA_2020_12,
    },
    (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  );

  mcp.tool(
    'test_missing_capability',
    { description: 'Asks the client to sample: refused when the request did not declare sampling' },
    async (_args, ctx) => {
      await ctx.sample({ messages: [{ role: 'user', content: text('hi') }], maxTokens: 10 });
      return 'sampled';
    },
  );
  mcp.tool(
    'test_custom_header',
    {
      description: 'Echoes a region sent in the Mcp-Param-Region header too (SEP-2243)',
      input: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    (args) => `region: ${String(args.region)}`,
  );

  mcp.tool(
    'test_logging_tool',
    { description: 'Logs three messages (none to a 2026 request without a logLevel)' },
    async (_args, ctx) => {
      for (const step of ['started', 'working', 'done']) await ctx.log('info', `Tool ${step}`);
      return 'logged';
    },
  );

  // What subscriptions/listen (2026-07-28) carries: each call adds a tool (or prompt), or removes
  // the one it added, so the lists change and the listen streams that asked are told.
  let removeTool: (() => void) | undefined;
  mcp.tool(
    'test_trigger_tool_change',
    { description: 'Adds or removes a tool: the tool list changes' },
    () => {
      if (removeTool === undefined) {
        removeTool = mcp.tool(
          'test_toggled_tool',
          { description: 'Added by test_trigger_tool_change' },
          () => 'toggled',
        );
        return 'tool added';
      }
      removeTool();
      removeTool = undefined;
      return 'tool removed';
    },
  );
  let removePrompt: (() => void) | undefined;
  mcp.tool(
    'test_trigger_prompt_change',
    { description: 'Adds or removes a prompt: the prompt list changes' },
    () => {
      if (removePrompt === undefined) {
        removePrompt = mcp.prompt(
          'test_toggled_prompt',
          { description: 'Added by test_trigger_prompt_change' },
          () => 'toggled',
        );
        return 'prompt added';
      }
      removePrompt();
      removePrompt = undefined;
      return 'prompt removed';
    },
  );

  // Multi Round-Trip Requests (2026-07-28): under 2026 each question ends the round with an
  // input_required result; under 2025 they are requests to the client.
  const name = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  const askName = (ctx: Ctx, key = 'user_name', message = 'What is your name?') =>
    ctx.elicit({ message, requestedSchema: name }, { key });
  const ok = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
  const sampled = (result: { content: unknown }) => {
    const content = (Array.isArray(result.content) ? result.content[0] : result.content) as
      | { type?: string; text?: string }
      | undefined;
    return content?.type === 'text' ? content.text : '';
  };
  // The Tasks extension (io.modelcontextprotocol/tasks): the tools its scenarios name. A tool
  // with taskSupport becomes a task when its handler calls ctx.startTask().
  const pause = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      signal.throwIfAborted();
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  mcp.tool(
    'greet',
    { description: 'Greets, synchronously', input: v.object({ name: v.string() }) },
    ({ name }) => `Hello, ${name}!`,
  );
  mcp.tool(
    'slow_compute',
    {
      description: 'Sleeps `seconds` then answers; a task unless `seconds` is 0',
      input: v.object({ seconds: v.number(), label: v.optional(v.string()) }),
      taskSupport: 'optional',
    },
    async ({ seconds, label }, ctx) => {
      if (seconds > 0) await ctx.startTask();
      await pause(seconds * 1000, ctx.signal);
      return `${label ?? 'slow_compute'}: done after ${seconds}s`;
    },
  );
  mcp.tool(
    'failing_job',
    { description: 'A task whose tool fails after a second', taskSupport: 'required' },
    async (_args, ctx) => {
      await ctx.startTask();
      await pause(1000, ctx.signal);
      throw new Error('failing_job failed, as it always does');
    },
  );
  mcp.tool(
    'protocol_error_job',
    { description: 'A task that ends in a protocol error', taskSupport: 'optional' },
    async (_args, ctx) => {
      await ctx.startTask();
      await pause(200, ctx.signal);
      throw new JsonRpcError(-32603, 'protocol_error_job: internal error');
    },
  );
  const confirm = {
    type: 'object',
    properties: { confirm: { type: 'boolean' } },
    required: ['confirm'],
  };
  mcp.tool(
    'confirm_delete',
    {
      description: 'A task that asks for a confirmation before deleting a file',
      input: v.object({ filename: v.string() }),
      taskSupport: 'optional',
    },
    async ({ filename }, ctx) => {
      await ctx.startTask();
      const answer = await ctx.elicit({
        message: `Delete ${filename}?`,
        requestedSchema: confirm,
      });
      const yes = answer.action === 'accept' && answer.content?.confirm === true;
      return yes ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );
  mcp.tool(
    'multi_input',
    { description: 'A task that asks two questions at once', taskSupport: 'optional' },
    async (_args, ctx) => {
      await ctx.startTask();
      const [first, second] = await Promise.all([
        ctx.elicit({ message: 'First name?', requestedSchema: name }, { key: 'first' }),
        ctx.elicit({ message: 'Second name?', requestedSchema: name }, { key: 'second' }),
      ]);
      return `Got ${String(first.content?.name)} and ${String(second.content?.name)}`;
    },
  );
  mcp.tool(
    'test_tool_with_task',
    { description: 'Asks for a name (MRTR), then runs as a task', taskSupport: 'required' },
    async (_args, ctx) => {
      const who = await askName(ctx);
      await ctx.startTask();
      await pause(100, ctx.signal);
      return `Hello, ${String(who.content?.name)}, from a task`;
    },
  );

  mcp.tool(
    'test_input_required_result_elicitation',
    { description: 'Asks for a name (MRTR)' },
    async (_args, ctx) => `Hello, ${(await askName(ctx)).content?.name}!`,
  );
  mcp.tool(
    'test_streaming_elicitation',
    { description: 'Asks for a name: never a request on the response stream under 2026' },
    async (_args, ctx) => `Hello, ${(await askName(ctx)).content?.name}!`,
  );
  mcp.tool(
    'test_input_required_result_sampling',
    { description: 'Asks the model (MRTR)' },
    async (_args, ctx) => {
      const result = await ctx.sample(
        {
          messages: [{ role: 'user', content: text('What is the capital of France?') }],
          maxTokens: 100,
        },
        { key: 'capital_question' },
      );
      return `The model says: ${sampled(result)}`;
    },
  );
  mcp.tool(
    'test_input_required_result_list_roots',
    { description: 'Asks for the roots (MRTR)' },
    async (_args, ctx) => {
      const { roots } = await ctx.listRoots({ key: 'client_roots' });
      return `Roots: ${roots.map((root) => root.uri).join(', ')}`;
    },
  );
  const confirmTool = (tool: string) =>
    mcp.tool(
      tool,
      { description: 'Asks for a confirmation; its state is sealed' },
      async (_a, ctx) => {
        const answer = await ctx.elicit(
          { message: 'Please confirm', requestedSchema: ok },
          { key: 'confirm' },
        );
        return `state-ok: confirmed=${String(answer.content?.ok)}`;
      },
    );
  confirmTool('test_input_required_result_request_state');
  confirmTool('test_input_required_result_tampered_state');
  mcp.tool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks three questions at once (MRTR)' },
    async (_args, ctx) => {
      const [who, greeting, { roots }] = await Promise.all([
        askName(ctx),
        ctx.sample(
          { messages: [{ role: 'user', content: text('Generate a greeting') }], maxTokens: 50 },
          { key: 'greeting' },
        ),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return `${sampled(greeting)} ${who.content?.name} (${roots.length} roots)`;
    },
  );
  mcp.tool(
    'test_input_required_result_multi_round',
    { description: 'Asks two questions, one round each (MRTR)' },
    async (_args, ctx) => {
      const who = await askName(ctx, 'step1', 'Step 1: What is your name?');
      const color = await ctx.elicit(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: {
            type: 'object',
            properties: { color: { type: 'string' } },
            required: ['color'],
          },
        },
        { key: 'step2' },
      );
      return `${who.content?.name} likes ${color.content?.color}`;
    },
  );
  mcp.tool(
    'test_input_required_result_capabilities',
    { description: 'Asks only what the request declared it can answer (MRTR)' },
    async (_args, ctx) => {
      const { capabilities } = ctx.client;
      const asked: Promise<unknown>[] = [];
      if (capabilities.sampling) {
        asked.push(
          ctx.sample({ messages: [{ role: 'user', content: text('Hi') }], maxTokens: 10 }),
        );
      }
      if (capabilities.elicitation) asked.push(askName(ctx));
      if (capabilities.roots) asked.push(ctx.listRoots());
      await Promise.all(asked);
      return `asked ${asked.length} questions`;
    },
  );
  mcp.prompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks for its context (MRTR)' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
        },
        { key: 'user_context' },
      );
      return `Use this context: ${String(answer.content?.context)}`;
    },
  );

  mcp.resource(
    'static-text',
    'test://static-text',
    {
      title: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
    },
    () => 'This is the content of the static text resource.',
  );
  mcp.resource(
    'static-binary',
    'test://static-binary',
    {
      title: 'Static Binary Resource',
      description: 'A static binary resource (image) for testing',
      mimeType: 'image/png',
    },
    () => Buffer.from(IMAGE, 'base64'),
  );
  mcp.resourceTemplate(
    'template',
    'test://template/{id}/data',
    {
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
    },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );
  let watched = 'Watched resource content';
  mcp.resource(
    'watched-resource',
    'test://watched-resource',
    {
      title: 'Watched Resource',
      description: 'A resource that auto-updates every 3 seconds',
      mimeType: 'text/plain',
    },
    () => watched,
  );

  mcp.prompt(
    'test_simple_prompt',
    { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
    () => 'This is a simple prompt for testing.',
  );
  mcp.prompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      args: v.object({
        arg1: describe('First test argument'),
        arg2: describe('Second test argument'),
      }),
      complete: { arg1: (value) => ['paris', 'park', 'party'].filter((c) => c.startsWith(value)) },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );
  mcp.prompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      args: v.object({ resourceUri: describe('URI of the resource to embed') }),
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: embedded(resourceUri, 'text/plain', 'Embedded resource content for testing.'),
      },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  );
  mcp.prompt(
    'test_prompt_with_image',
    { title: 'Prompt With Image', description: 'A prompt that includes image content' },
    () => [
      { role: 'user', content: image },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  );

  // What the suite's README asks: a tool, a resource and a prompt added after 2 s, and the
  // watched resource changing every 3 s.
  const added = setTimeout(() => {
    mcp.tool(
      'test_dynamic_tool',
      { description: 'A tool added at run time' },
      () => 'Dynamic tool executed',
    );
    mcp.resource(
      'dynamic-resource',
      'test://dynamic-resource',
      { mimeType: 'text/plain' },
      () => 'Dynamic resource content',
    );
    mcp.prompt(
      'test_dynamic_prompt',
      { description: 'A prompt added at run time' },
      () => 'A dynamic prompt',
    );
  }, 2_000);
  const updates = setInterval(() => {
    watched = `Watched resource content, updated at ${new Date().toISOString()}`;
    mcp.resourceUpdated('test://watched-resource');
  }, 3_000);
  added.unref();
  updates.unref();
  return Object.assign(mcp, {
    stop() {
      clearTimeout(added);
      clearInterval(updates);
    },
  });
}
