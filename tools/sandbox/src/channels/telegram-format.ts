// Telegram's formatting modes, parsed the way the Bot API does (tdlib's parse_html / parse_markdown*), so that
// product code gets the same "can't parse entities" answers and the log gets the text a user would read.

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
    case 'markdownv2':
      return parseMarkdownV2(text);
    case 'markdown':
      return parseMarkdown(text);
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

const RESERVED_V2 = '_*[]()~`>#+-=|{}.!';
/** Entity names as tdlib spells them in "Can't find end of ... entity". */
const V2_NAMES: Record<string, string> = Object.fromEntries(
  'bold:Bold italic:Italic underline:Underline strikethrough:Strikethrough spoiler:Spoiler code:Code pre:Pre text_link:TextUrl'
    .split(' ')
    .map((pair) => pair.split(':')),
);

interface OpenV2 {
  type: string;
  start: number;
  sourceIndex: number;
  language?: string;
}

export function parseMarkdownV2(source: string): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  const stack: OpenV2[] = [];
  let quoteStart = -1;
  let i = 0;
  const endsTop = (c: string, next: string, next2: string): boolean => {
    switch (stack.at(-1)?.type) {
      case 'bold':
        return c === '*';
      case 'italic':
        return c === '_' && next !== '_';
      case 'underline':
        return c === '_' && next === '_';
      case 'strikethrough':
        return c === '~';
      case 'spoiler':
        return c === '|' && next === '|';
      case 'code':
        return c === '`';
      case 'pre':
        return c === '`' && next === '`' && next2 === '`';
      case 'text_link':
        return c === ']';
      default:
        return false;
    }
  };
  while (i < source.length) {
    const c = source[i];
    const code = source.charCodeAt(i + 1);
    if (c === '\\' && code > 0 && code <= 126) {
      out += source[i + 1];
      i += 2;
      continue;
    }
    if (i === 0 || source[i - 1] === '\n') {
      if (quoteStart >= 0 && c !== '>') {
        entities.push({ type: 'blockquote', offset: quoteStart, length: out.length - quoteStart });
        quoteStart = -1;
      }
      if (c === '>' && stack.length === 0) {
        if (quoteStart < 0) quoteStart = out.length;
        i += 1;
        continue;
      }
    }
    const top = stack.at(-1);
    const inCode = top?.type === 'code' || top?.type === 'pre';
    if ((inCode && c !== '`') || (!inCode && !RESERVED_V2.includes(c))) {
      out += c;
      i += 1;
      continue;
    }
    const [next, next2] = [source[i + 1], source[i + 2]];
    if (top && endsTop(c, next, next2)) {
      stack.pop();
      const entity: MessageEntity = { type: top.type, offset: top.start, length: out.length - top.start };
      i += top.type === 'pre' ? 3 : top.type === 'underline' || top.type === 'spoiler' ? 2 : 1;
      if (top.type === 'pre' && top.language) entity.language = top.language;
      if (top.type === 'text_link') {
        const url = /^\(((?:\\.|[^)\\])*)\)/.exec(source.slice(i));
        if (!url) throw new EntityParseError(`Can't find end of a url at byte offset ${byteOffset(source, i)}`);
        entity.url = url[1].replace(/\\(.)/g, '$1');
        i += url[0].length;
      }
      if (entity.length > 0) entities.push(entity);
      continue;
    }
    const begin: OpenV2 = { type: '', start: out.length, sourceIndex: i };
    if (c === '*') begin.type = 'bold';
    else if (c === '_') begin.type = next === '_' ? 'underline' : 'italic';
    else if (c === '~') begin.type = 'strikethrough';
    else if (c === '|' && next === '|') begin.type = 'spoiler';
    else if (c === '[') begin.type = 'text_link';
    else if (c === '`') begin.type = next === '`' && next2 === '`' ? 'pre' : 'code';
    else throw new EntityParseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
    i += begin.type === 'pre' ? 3 : begin.type === 'underline' || begin.type === 'spoiler' ? 2 : 1;
    if (begin.type === 'pre') {
      const line = /^([^\n`\s]*)\n/.exec(source.slice(i));
      if (line) {
        if (line[1]) begin.language = line[1];
        i += line[0].length;
      }
    }
    stack.push(begin);
  }
  const unclosed = stack.at(-1);
  if (unclosed) {
    const at = byteOffset(source, unclosed.sourceIndex);
    throw new EntityParseError(`Can't find end of ${V2_NAMES[unclosed.type]} entity at byte offset ${at}`);
  }
  if (quoteStart >= 0) entities.push({ type: 'blockquote', offset: quoteStart, length: out.length - quoteStart });
  return { text: out, entities: sortEntities(entities.filter((e) => e.length > 0)) };
}

/** Legacy "Markdown": *bold*, _italic_, `code`, ```pre```, [text](url); no nesting. */
export function parseMarkdown(source: string): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\' && '_*`['.includes(source[i + 1] ?? '')) {
      out += source[i + 1];
      i += 2;
      continue;
    }
    if (!'_*`['.includes(c)) {
      out += c;
      i += 1;
      continue;
    }
    const fail = (): never => {
      throw new EntityParseError(`Can't find end of the entity starting at byte offset ${byteOffset(source, i)}`);
    };
    if (c === '[') {
      const link = /^\[([^\]]*)\]\(([^)]*)\)/.exec(source.slice(i)) ?? fail();
      if (link[1]) entities.push({ type: 'text_link', offset: out.length, length: link[1].length, url: link[2] });
      out += link[1];
      i += link[0].length;
      continue;
    }
    const marker = c === '`' && source.startsWith('```', i) ? '```' : c;
    const end = source.indexOf(marker, i + marker.length);
    if (end < 0) fail();
    let inner = source.slice(i + marker.length, end);
    const entity: MessageEntity = { type: '', offset: out.length, length: 0 };
    entity.type = marker === '```' ? 'pre' : c === '`' ? 'code' : c === '*' ? 'bold' : 'italic';
    if (marker === '```') {
      const line = /^([^\n\s]*)\n/.exec(inner);
      if (line) {
        if (line[1]) entity.language = line[1];
        inner = inner.slice(line[0].length);
      }
    }
    entity.length = inner.length;
    if (inner.length > 0) entities.push(entity);
    out += inner;
    i = end + marker.length;
  }
  return { text: out, entities: sortEntities(entities) };
}

function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
}
