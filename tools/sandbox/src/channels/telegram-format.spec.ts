import { EntityParseError, parseFormatted, parseHtml, parseMarkdown, parseMarkdownV2 } from './telegram-format';

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

  it('MarkdownV2: parses entities and escapes, and insists reserved characters are escaped', () => {
    const parsed = parseMarkdownV2('*Paid* 10\\.5 XLM [link](https://x.test/a\\)b) `a.b`');
    expect(parsed.text).toBe('Paid 10.5 XLM link a.b');
    expect(parsed.entities).toEqual([
      { type: 'bold', offset: 0, length: 4 },
      { type: 'text_link', offset: 14, length: 4, url: 'https://x.test/a)b' },
      { type: 'code', offset: 19, length: 3 },
    ]);
    expect(() => parseMarkdownV2('Total: 10.5')).toThrow(
      "Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    expect(() => parseMarkdownV2('a *bold')).toThrow("Can't find end of Bold entity at byte offset 2");
  });

  it('legacy Markdown: simple entities and unclosed-entity errors', () => {
    expect(parseMarkdown('*a* _b_ 1.5').text).toBe('a b 1.5');
    expect(() => parseMarkdown('x *a')).toThrow("Can't find end of the entity starting at byte offset 2");
  });

  it('passes text through without a parse mode and refuses unknown modes', () => {
    expect(parseFormatted('<b>raw</b>', undefined)).toEqual({ text: '<b>raw</b>', entities: [] });
    expect(() => parseFormatted('x', 'BBCode')).toThrow(RangeError);
  });
});
