/**
 * Text for HTML (element content and double-quoted attribute values): `&`, `<`, `>` and `"` as entities. Used by the
 * notifications' Telegram HTML and e-mails and by the sandbox page, whose script in the browser runs this very
 * function (the page ships its source, `escapeHtml.toString()`): keep it self-contained, nothing from outside it.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;',
  );
}
