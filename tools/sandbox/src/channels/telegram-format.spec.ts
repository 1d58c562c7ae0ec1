import { EntityParseError, parseFormatted, parseHtml } from './telegram-format';

describe('Telegram formatting', () => {
  it('HTML: decodes entities, nests tags and keeps pre languages', () => {
    const parsed = parseHtml('<b>bold <i>both</i></b> 1 &lt; 2 &#33; <pre><code class="language-ts">x</code></pre>');
    expect(parsed.text).toBe('bold both 1 < 2 ! x');
    expect(parsed.entities).toEqual([
      { type: 'bold', offset: 0, length: 9 },
      { type: 'italic', offset: 5, length: 4 },
      { type: 'pre', offset: 18, length: 1, language: 'ts' },
    ]);
  });

  it('HTML: reports errors with byte offsets and tag names like the Bot API', () => {
    expect(() => parseHtml('é<x>')).toThrow(new EntityParseError('Unsupported start tag "x" at byte offset 2'));
    expect(() => parseHtml('<b>a</i>')).toThrow('Unmatched end tag at byte offset 4, expected "</b>", found "</i>"');
    expect(() => parseHtml('a</b>')).toThrow('Unexpected end tag at byte offset 1');
    expect(() => parseHtml('<span>a</span>')).toThrow('Tag "span" must have class "tg-spoiler" at byte offset 0');
    expect(() => parseHtml('<b')).toThrow('Unclosed start tag at byte offset 0');
  });

  it('passes text through without a parse mode and refuses unknown modes', () => {
    expect(parseFormatted('<b>raw</b>', undefined)).toEqual({ text: '<b>raw</b>', entities: [] });
    expect(() => parseFormatted('x', 'BBCode')).toThrow(RangeError);
    // The product sends HTML only: the Markdown modes are not played.
    expect(() => parseFormatted('*x*', 'MarkdownV2')).toThrow(RangeError);
  });
});
