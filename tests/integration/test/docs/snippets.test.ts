import { describe, expect, it } from 'vitest';
import { extractSnippets } from './snippets.js';

const fence = '```';

describe('extractSnippets', () => {
  it('finds ts and js blocks with their fence line, and ignores other languages', () => {
    const text = [
      '# Title',
      `${fence}sh`,
      'npm install x',
      fence,
      `${fence}ts`,
      'const a = 1;',
      fence,
      `${fence}js`,
      'console.log(2);',
      fence,
    ].join('\n');
    expect(extractSnippets('R.md', text)).toEqual([
      { file: 'R.md', line: 5, lang: 'ts', code: 'const a = 1;', mode: 'run', reason: undefined },
      {
        file: 'R.md',
        line: 8,
        lang: 'js',
        code: 'console.log(2);',
        mode: 'run',
        reason: undefined,
      },
    ]);
  });

  it('applies a marker to the next block only, blank lines between allowed', () => {
    const text = [
      '<!-- doc-test: skip (needs Redis) -->',
      '',
      `${fence}ts`,
      'a;',
      fence,
      '<!-- doc-test: typecheck-only -->',
      `${fence}ts`,
      'b;',
      fence,
      `${fence}ts`,
      'c;',
      fence,
    ].join('\n');
    expect(extractSnippets('R.md', text).map((s) => [s.line, s.mode, s.reason])).toEqual([
      [3, 'skip', 'needs Redis'],
      [7, 'typecheck-only', undefined],
      [10, 'run', undefined],
    ]);
  });

  it('reads a needs marker as a block that runs where the program is installed', () => {
    const text = ['<!-- doc-test: needs redis-server -->', `${fence}ts`, 'a;', fence].join('\n');
    expect(extractSnippets('R.md', text)).toEqual([
      {
        file: 'R.md',
        line: 2,
        lang: 'ts',
        code: 'a;',
        mode: 'run',
        reason: undefined,
        needs: 'redis-server',
      },
    ]);
  });

  it('refuses a marker that is not right before a code block, and an unclosed fence', () => {
    expect(() => extractSnippets('R.md', '<!-- doc-test: skip (x) -->\nprose\n')).toThrow(
      'R.md:1: a doc-test marker must come right before a fence',
    );
    expect(() =>
      extractSnippets('R.md', `<!-- doc-test: skip -->\n${fence}sh\nls\n${fence}`),
    ).toThrow('R.md:1: a doc-test marker before a ```sh block');
    expect(() => extractSnippets('R.md', `${fence}ts\nconst a = 1;\n`)).toThrow(
      'R.md:1: unclosed code fence',
    );
  });
});
