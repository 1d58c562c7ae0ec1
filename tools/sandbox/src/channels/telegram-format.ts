// Telegram's HTML formatting, parsed the way the Bot API does (tdlib's parse_html), so that product code gets the
// same "can't parse entities" answers and the log gets the text a user would read. The product sends HTML only
// (notifications' telegram provider): any other parse mode (MarkdownV2, Markdown) is answered "unsupported parse_mode".

export interface MessageEntity {
  type: string;
  /** UTF-16 code units, as in the Bot API. */
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

/** The part after "Bad Request: can't parse entities: ". */
export class EntityParseError extends Error {}

export function parseFormatted(text: string, parseMode: string | undefined): FormattedText {
  switch ((parseMode ?? '').toLowerCase()) {
    case '':
      return { text, entities: [] };
    case 'html':
      return parseHtml(text);
    default:
      throw new RangeError(`unsupported parse_mode ${parseMode}`);
  }
}

const byteOffset = (source: string, index: number): number => Buffer.byteLength(source.slice(0, index));

/** Supported tag -> entity type, as "tag:type" pairs. */
const HTML_TAGS: Record<string, string> = Object.fromEntries(
  [
    'b:bold strong:bold i:italic em:italic u:underline ins:underline s:strikethrough strike:strikethrough',
    'del:strikethrough span:spoiler tg-spoiler:spoiler a:text_link code:code pre:pre blockquote:blockquote',
    'tg-emoji:custom_emoji',
  ]
    .join(' ')
    .split(' ')
    .map((pair) => pair.split(':')),
);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

interface Open {
  tag: string;
  start: number;
  attrs: Record<string, string>;
}

export function parseHtml(source: string): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '&') {
      const m = /^&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/i.exec(source.slice(i, i + 16));
      const decoded = m ? decodeEntity(m[1]) : undefined;
      // An unknown entity stays literal text, as in tdlib.
      out += decoded ?? '&';
      i += m && decoded !== undefined ? m[0].length : 1;
      continue;
    }
    if (c !== '<') {
      out += c;
      i += 1;
      continue;
    }
    const at = byteOffset(source, i);
    const rest = source.slice(i);
    if (rest[1] === '/') {
      const end = /^<\/([a-z0-9-]*)\s*>/i.exec(rest);
      if (!end) throw new EntityParseError(`Unclosed end tag at byte offset ${at}`);
      const open = stack.pop();
      if (!open) throw new EntityParseError(`Unexpected end tag at byte offset ${at}`);
      const name = end[1].toLowerCase();
      if (name !== open.tag) {
        throw new EntityParseError(
          `Unmatched end tag at byte offset ${at}, expected "</${open.tag}>", found "</${name}>"`,
        );
      }
      closeHtml(open, out.length, entities, stack);
      i += end[0].length;
      continue;
    }
    const name = (/^<([a-z0-9-]*)/i.exec(rest)?.[1] ?? '').toLowerCase();
    if (!Object.hasOwn(HTML_TAGS, name))
      throw new EntityParseError(`Unsupported start tag "${name}" at byte offset ${at}`);
    const start = /^<[a-z0-9-]+((?:\s+[a-z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*>/i.exec(rest);
    if (!start) throw new EntityParseError(`Unclosed start tag at byte offset ${at}`);
    const attrs: Record<string, string> = {};
    for (const a of start[1].matchAll(/([a-z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/gi)) {
      attrs[a[1].toLowerCase()] = a[2] ?? a[3] ?? a[4] ?? '';
    }
    if (name === 'span' && attrs['class'] !== 'tg-spoiler') {
      throw new EntityParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${at}`);
    }
    stack.push({ tag: name, start: out.length, attrs });
    i += start[0].length;
  }
  const unclosed = stack.at(-1);
  if (unclosed) throw new EntityParseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  return { text: out, entities: sortEntities(entities) };
}

function decodeEntity(name: string): string | undefined {
  if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()];
  const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

function closeHtml(open: Open, end: number, entities: MessageEntity[], stack: Open[]): void {
  const entity: MessageEntity = { type: HTML_TAGS[open.tag], offset: open.start, length: end - open.start };
  const parent = stack.at(-1);
  if (open.tag === 'a') {
    if (!open.attrs['href']) return;
    entity.url = open.attrs['href'];
  } else if (open.tag === 'code' && parent?.tag === 'pre' && parent.start === open.start) {
    // <pre><code class="language-x"> is one pre entity with a language, not two entities.
    const language = /^language-(.+)$/.exec(open.attrs['class'] ?? '')?.[1];
    if (language) {
      parent.attrs['language'] = language;
      return;
    }
  } else if (open.tag === 'pre' && open.attrs['language']) {
    entity.language = open.attrs['language'];
  } else if (open.tag === 'blockquote' && 'expandable' in open.attrs) {
    entity.type = 'expandable_blockquote';
  } else if (open.tag === 'tg-emoji') {
    entity.custom_emoji_id = open.attrs['emoji-id'];
  }
  if (entity.length > 0) entities.push(entity);
}

function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
}
