import { escapeHtml } from './escape-html';

describe('escapeHtml', () => {
  it('escapes the characters that end text or a double-quoted attribute, and nothing else', () => {
    expect(escapeHtml('<b>&"x"</b>')).toBe('&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;');
    expect(escapeHtml("it's 1.05 — ok")).toBe("it's 1.05 — ok");
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('shows numbers as text and null or undefined as nothing', () => {
    expect(escapeHtml(1.05)).toBe('1.05');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
  });

  it('runs from its own source alone, as the sandbox page ships it to the browser', () => {
    const shipped = new Function(`${escapeHtml.toString()}; return escapeHtml;`)() as typeof escapeHtml;
    expect(shipped('<a href="x">&</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  });
});
