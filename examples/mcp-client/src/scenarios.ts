/**
 * What the client does in each scenario of the conformance suite.
 *
 * @module
 */
import {
  createMcpClient,
  createMcpFetch,
  createOAuthClient,
  type McpAuthProvider,
  type McpClient,
  type McpClientOptions,
  type OAuthClientOptions,
  requestIdJag,
} from '@jsonrpc-kit/mcp/client';
import { createStreamableHttpTransport } from '@jsonrpc-kit/transport-http';

/** The Client ID Metadata Document URL the suite expects a client to use. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Never listened on: the authorization server's redirect is read from its `Location`. */
const REDIRECT_URI = 'http://127.0.0.1:3333/callback';

/**
 * The authorization step without a browser: the suite's authorization server redirects at once,
 * so the redirect it answers is the callback.
 */
async function followAuthorization(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null)
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return new URL(location, url).href;
}

/** What an `auth/*` scenario's context may give. */
interface AuthContext {
  readonly client_id?: string;
  readonly client_secret?: string;
  /** `auth/client-credentials-jwt`: the client's private key (PKCS #8 PEM) and its algorithm. */
  readonly private_key_pem?: string;
  readonly signing_algorithm?: string;
  /** `auth/wif-jwt-bearer`: the workload identity token. */
  readonly valid_jwt?: string;
  /** `auth/enterprise-managed-authorization`: the identity provider and the user's ID token. */
  readonly idp_client_id?: string;
  readonly idp_id_token?: string;
  readonly idp_issuer?: string;
  readonly idp_token_endpoint?: string;
}

/** Imports a PKCS #8 PEM private key for signing JWT assertions (ES256 or RS256). */
async function importPrivateKey(pem: string, alg: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const algorithm =
    alg === 'RS256'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: alg === 'ES384' ? 'P-384' : 'P-256' };
  return crypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
}

/** The grant and client authentication an extension scenario asks for. */
async function grantFor(
  scenario: string,
  context: AuthContext,
): Promise<Partial<OAuthClientOptions>> {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return { grant: { type: 'client_credentials' } };
    case 'auth/client-credentials-jwt':
      return {
        grant: { type: 'client_credentials' },
        clientPrivateKey: await importPrivateKey(
          context.private_key_pem ?? '',
          context.signing_algorithm ?? 'ES256',
        ),
      };
    case 'auth/wif-jwt-bearer':
      return { grant: { type: 'jwt_bearer', assertion: () => context.valid_jwt ?? '' } };
    case 'auth/enterprise-managed-authorization':
      return {
        grant: {
          type: 'jwt_bearer',
          assertion: ({ issuer, resource, scope }) =>
            requestIdJag({
              tokenEndpoint: context.idp_token_endpoint ?? '',
              ...(context.idp_issuer === undefined ? {} : { issuer: context.idp_issuer }),
              clientId: context.idp_client_id ?? '',
              idToken: context.idp_id_token ?? '',
              audience: issuer,
              resource,
              ...(scope === undefined ? {} : { scope }),
            }),
        },
      };
    default:
      return {};
  }
}

/** The OAuth client of an `auth/*` scenario (its context may give a pre-registered client). */
async function authFor(scenario: string, env: ScenarioEnv): Promise<McpAuthProvider | undefined> {
  if (!scenario.startsWith('auth/')) return undefined;
  const context = JSON.parse(env.MCP_CONFORMANCE_CONTEXT ?? '{}') as AuthContext;
  return createOAuthClient({
    redirectUri: REDIRECT_URI,
    authorize: followAuthorization,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: 'jsonrpc-kit conformance client' },
    // DPoP-bound tokens wherever the authorization server issues them (`auth/dpop*`).
    dpop: true,
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
    ...(await grantFor(scenario, context)),
  });
}

/** The environment a scenario reads (`MCP_CONFORMANCE_CONTEXT`, `MCP_CONFORMANCE_PROTOCOL_VERSION`). */
export type ScenarioEnv = Readonly<Record<string, string | undefined>>;

async function connectTo(
  url: string,
  env: ScenarioEnv,
  options: Partial<McpClientOptions> = {},
): Promise<McpClient> {
  const version = env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  // The session's GET stream carries what the server sends outside a request's stream (the SDK
  // sends a tool's elicitation there when it does not relate it to the call).
  const stream = options.handlers !== undefined;
  // MCP's per-request headers (Mcp-Method, Mcp-Name, Mcp-Param-*, MCP-Protocol-Version).
  const auth = await authFor(env.MCP_CONFORMANCE_SCENARIO ?? '', env);
  const http = createMcpFetch(auth === undefined ? {} : { auth });
  return createMcpClient(createStreamableHttpTransport({ url, stream, fetch: http }), {
    http,
    name: 'jsonrpc-kit-conformance-client',
    version: '1.0.0',
    ...(version === undefined ? {} : { protocolVersion: version }),
    client: { callTimeout: 20_000 },
    ...options,
  });
}

/** Connects, lists the tools and runs `body`; closes the client whatever happens. */
async function session(
  url: string,
  env: ScenarioEnv,
  body: (mcp: McpClient) => Promise<void>,
  options: Partial<McpClientOptions> = {},
): Promise<void> {
  const mcp = await connectTo(url, env, options);
  try {
    await mcp.connect();
    await body(mcp);
  } finally {
    await mcp.close();
  }
}

/**
 * Runs one scenario against the server at `url`.
 *
 * @param scenario - the scenario's name
 * @param url - the server's URL
 * @param env - the environment (context and protocol version)
 * @returns resolves when the scenario's steps are done
 */
export async function runScenario(scenario: string, url: string, env: ScenarioEnv): Promise<void> {
  switch (scenario) {
    case 'tools_call':
      return session(url, env, async (mcp) => {
        await mcp.listAllTools();
        await mcp.callTool('add_numbers', { a: 5, b: 3 });
      });
    case 'elicitation-sep1034-client-defaults':
      return session(
        url,
        env,
        async (mcp) => {
          await mcp.listAllTools();
          await mcp.callTool('test_client_elicitation_defaults');
        },
        // Accept without filling anything in: the client applies the schema's defaults.
        { handlers: { elicitation: () => ({ action: 'accept', content: {} }) } },
      );
    case 'sse-retry':
      return session(url, env, async (mcp) => {
        await mcp.listAllTools();
        await mcp.callTool('test_reconnection');
      });
    case 'json-schema-2020-12-preservation':
      return session(url, env, async (mcp) => {
        const tools = await mcp.listAllTools();
        const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
        if (focal === undefined) throw new Error('json_schema_2020_12_tool was not listed');
        await mcp.callTool('json_schema_echo', { schema: focal.inputSchema });
      });
    case 'http-standard-headers':
      return session(url, env, async (mcp) => {
        for (const tool of await mcp.listAllTools()) await mcp.callTool(tool.name);
        for (const resource of await mcp.listAllResources()) await mcp.readResource(resource.uri);
        for (const prompt of await mcp.listAllPrompts()) await mcp.getPrompt(prompt.name);
      });
    case 'http-custom-headers':
      return session(url, env, async (mcp) => {
        await mcp.listAllTools();
        const context = JSON.parse(env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
          toolCalls?: { name: string; arguments: Record<string, unknown> }[];
        };
        for (const call of context.toolCalls ?? []) await mcp.callTool(call.name, call.arguments);
      });
    case 'http-invalid-tool-headers':
      return session(url, env, async (mcp) => {
        // The client leaves out the tools whose x-mcp-header is invalid: the rest are called.
        for (const tool of await mcp.listAllTools()) {
          await mcp.callTool(tool.name, { region: 'us-west1' });
        }
      });
    case 'sep-2322-client-request-state':
      return session(
        url,
        env,
        async (mcp) => {
          await mcp.listAllTools();
          for (const name of [
            'test_mrtr_echo_state',
            'test_mrtr_no_state',
            'test_mrtr_unrelated',
            'test_mrtr_no_result_type',
          ]) {
            await mcp.callTool(name);
          }
        },
        { handlers: { elicitation: () => ({ action: 'accept', content: { confirmed: true } }) } },
      );
    default:
      // `initialize`, the `auth/*` scenarios (authorized on the way) and any scenario that asks
      // for the handshake and a look at the tools: list them and call the first.
      return session(url, env, async (mcp) => {
        const tools = await mcp.listAllTools();
        if (scenario.startsWith('auth/') && tools[0] !== undefined)
          await mcp.callTool(tools[0].name);
      });
  }
}
