// What Discord's execute-webhook and Slack's incoming webhooks accept, and the text a reader would see.

type Json = Record<string, unknown>;

export interface Rejection {
  status: number;
  body: Json | string;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
const maxLength = (n: number): Json => ({
  _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${n} or fewer in length.` }],
});
const formError = (errors: Json): Rejection => ({
  status: 400,
  body: { message: 'Invalid Form Body', code: 50035, errors },
});

export const DISCORD_EMPTY: Rejection = { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };

/** Discord's documented limits: content 2000, 10 embeds, per-field limits and 6000 characters over all embeds. */
export function validateDiscord(payload: Json): Rejection | undefined {
  const content = str(payload['content']);
  if (content.length > 2000) return formError({ content: maxLength(2000) });
  if (str(payload['username']).length > 80) return formError({ username: maxLength(80) });
  const embeds = payload['embeds'];
  if (embeds !== undefined && embeds !== null) {
    if (!Array.isArray(embeds)) {
      return formError({ embeds: { _errors: [{ code: 'BASE_TYPE_ARRAY', message: 'Must be an array.' }] } });
    }
    if (embeds.length > 10) return formError({ embeds: maxLength(10) });
    let total = 0;
    for (const [index, embed] of embeds.entries()) {
      const problem = embedProblem(isObject(embed) ? embed : {});
      if (problem) return formError({ embeds: { [index]: problem } });
      total += embedTexts(isObject(embed) ? embed : {}).join('').length;
    }
    if (total > 6000) {
      return formError({
        embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED', message: 'Embed size exceeds maximum size of 6000' }] },
      });
    }
  }
  const hasEmbed = Array.isArray(embeds) && embeds.some((e) => isObject(e) && embedHasBody(e));
  const hasComponents = Array.isArray(payload['components']) && payload['components'].length > 0;
  if (content.trim() === '' && !hasEmbed && !hasComponents && !isObject(payload['poll'])) return DISCORD_EMPTY;
  return undefined;
}

function embedProblem(embed: Json): Json | undefined {
  const limits: [string, number][] = [
    ['title', 256],
    ['description', 4096],
  ];
  for (const [key, n] of limits) if (str(embed[key]).length > n) return { [key]: maxLength(n) };
  if (isObject(embed['footer']) && str(embed['footer']['text']).length > 2048)
    return { footer: { text: maxLength(2048) } };
  if (isObject(embed['author']) && str(embed['author']['name']).length > 256)
    return { author: { name: maxLength(256) } };
  const fields = Array.isArray(embed['fields']) ? embed['fields'] : [];
  if (fields.length > 25) return { fields: maxLength(25) };
  for (const [index, field] of fields.entries()) {
    const f = isObject(field) ? field : {};
    const required = { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] };
    if (str(f['name']) === '') return { fields: { [index]: { name: required } } };
    if (str(f['value']) === '') return { fields: { [index]: { value: required } } };
    if (str(f['name']).length > 256) return { fields: { [index]: { name: maxLength(256) } } };
    if (str(f['value']).length > 1024) return { fields: { [index]: { value: maxLength(1024) } } };
  }
  return undefined;
}

function embedTexts(embed: Json): string[] {
  const fields = Array.isArray(embed['fields']) ? embed['fields'].filter(isObject) : [];
  return [
    isObject(embed['author']) ? str(embed['author']['name']) : '',
    str(embed['title']),
    str(embed['description']),
    ...fields.flatMap((f) => [str(f['name']), str(f['value'])]),
    isObject(embed['footer']) ? str(embed['footer']['text']) : '',
  ].filter((t) => t !== '');
}

function embedHasBody(embed: Json): boolean {
  const media = ['image', 'thumbnail', 'video'].some((k) => isObject(embed[k]) && str(embed[k]['url']) !== '');
  return embedTexts(embed).length > 0 || media;
}

export function discordText(payload: Json): string {
  const embeds = Array.isArray(payload['embeds']) ? payload['embeds'].filter(isObject) : [];
  return [str(payload['content']), ...embeds.flatMap(embedTexts)].filter((t) => t !== '').join('\n');
}

/** Slack answers plain-text error codes: invalid_blocks for malformed blocks, no_text when nothing to show. */
export function validateSlack(payload: Json): Rejection | undefined {
  const blocks = payload['blocks'];
  if (blocks !== undefined && blocks !== null) {
    const valid =
      Array.isArray(blocks) && blocks.length <= 50 && blocks.every((b) => isObject(b) && typeof b['type'] === 'string');
    if (!valid) return { status: 400, body: 'invalid_blocks' };
  }
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  const hasAttachments = Array.isArray(payload['attachments']) && payload['attachments'].length > 0;
  if (str(payload['text']).trim() === '' && !hasBlocks && !hasAttachments) return { status: 400, body: 'no_text' };
  return undefined;
}

export function slackText(payload: Json): string {
  const parts = [str(payload['text'])];
  collectTexts(payload['blocks'], parts);
  if (Array.isArray(payload['attachments'])) {
    for (const attachment of payload['attachments'].filter(isObject)) {
      parts.push(str(attachment['pretext']), str(attachment['title']), str(attachment['text']));
      collectTexts(attachment['fields'], parts);
      collectTexts(attachment['blocks'], parts);
    }
  }
  return parts.filter((t) => t !== '').join('\n');
}

/** Block Kit nests text objects anywhere (sections, fields, context, rich_text); gather every `text` string. */
function collectTexts(node: unknown, into: string[]): void {
  if (Array.isArray(node)) {
    for (const child of node) collectTexts(child, into);
  } else if (isObject(node)) {
    // Reading order: the node's own text first, then nested fields and elements.
    if (typeof node['text'] === 'string') into.push(node['text']);
    else collectTexts(node['text'], into);
    if (typeof node['title'] === 'string' && typeof node['value'] === 'string') into.push(node['title'], node['value']);
    for (const [key, child] of Object.entries(node))
      if (key !== 'text' && typeof child === 'object') collectTexts(child, into);
  }
}
