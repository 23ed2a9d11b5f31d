import { describe, expect, it } from 'vitest';
import { parseWwwAuthenticate } from './www-authenticate.js';

describe('parseWwwAuthenticate', () => {
  it('reads a bearer challenge with quoted and bare parameters', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer realm="mcp", error=insufficient_scope, scope="read write", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'mcp',
          error: 'insufficient_scope',
          scope: 'read write',
          resource_metadata: 'https://a.example/.well-known/oauth-protected-resource/mcp',
        },
      },
    ]);
  });

  it('reads several challenges, escapes and token68', () => {
    expect(
      parseWwwAuthenticate(
        'Basic abc=, Bearer error_description="say \\"hi\\"", DPoP algs="ES256"',
      ),
    ).toEqual([
      { scheme: 'basic', params: { token68: 'abc=' } },
      { scheme: 'bearer', params: { error_description: 'say "hi"' } },
      { scheme: 'dpop', params: { algs: 'ES256' } },
    ]);
  });

  it('gives nothing for an absent or empty header', () => {
    expect(parseWwwAuthenticate(null)).toEqual([]);
    expect(parseWwwAuthenticate('')).toEqual([]);
    expect(parseWwwAuthenticate('Bearer')).toEqual([{ scheme: 'bearer', params: {} }]);
  });
});
