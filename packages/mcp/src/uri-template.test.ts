import { describe, expect, it } from 'vitest';
import { parseUriTemplate } from './uri-template.js';

describe('parseUriTemplate', () => {
  it('matches and expands simple variables', () => {
    const t = parseUriTemplate('test://template/{id}/data');
    expect(t.variables).toEqual(['id']);
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/1/2/data')).toBeUndefined();
    expect(t.match('test://template/a%2Fb/data')).toEqual({ id: 'a/b' });
    expect(t.expand({ id: 'a/b' })).toBe('test://template/a%2Fb/data');
  });

  it('reads reserved, path and query expressions', () => {
    const file = parseUriTemplate('file:///{+path}{?rev,mode}');
    expect(file.match('file:///src/a.ts?rev=3')).toEqual({ path: 'src/a.ts', rev: '3' });
    expect(file.match('file:///src/a.ts')).toEqual({ path: 'src/a.ts' });
    expect(file.expand({ path: 'src/a b.ts', rev: '3', mode: 'r' })).toBe(
      'file:///src/a%20b.ts?rev=3&mode=r',
    );
    const segments = parseUriTemplate('repo://x{/owner,name}');
    expect(segments.match('repo://x/me/kit')).toEqual({ owner: 'me', name: 'kit' });
    expect(segments.expand({ owner: 'me' })).toBe('repo://x/me');
  });

  it('refuses what it does not support', () => {
    expect(() => parseUriTemplate('x://{id')).toThrow(TypeError);
    expect(() => parseUriTemplate('x://{id*}')).toThrow(TypeError);
  });
});
