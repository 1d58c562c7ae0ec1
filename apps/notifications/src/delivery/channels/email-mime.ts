import { randomUUID } from 'node:crypto';

/** What one alert email is: the envelope's addresses, and the message's subject with its text and HTML parts. */
export interface EmailContent {
  /** `EMAIL_FROM` (an address) or the default `Risk alerts <alerts@localhost>`. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

const CRLF = '\r\n';
/** RFC 2047: an encoded word is at most 75 characters; `=?UTF-8?B?` and `?=` take 12 of them. */
const WORD_BYTES = 45;

/**
 * The whole message as SMTP's DATA carries it: RFC 5322 headers (Date, Message-ID, MIME-Version) and a
 * multipart/alternative body with a UTF-8 text part and an HTML part, each base64 in 76-character lines. Built in one
 * string, so the SMTP client writes it at once instead of streaming it through a MIME composer (nodemailer's
 * composer cost about as much CPU per message as the SMTP conversation itself).
 */
export function mimeMessage(content: EmailContent, now = new Date()): string {
  // randomUUID draws from a cached pool of entropy; randomBytes asks the system each time.
  const boundary = `--_rp_${randomUUID()}`;
  const domain = /@([^>\s]+)>?\s*$/.exec(content.from)?.[1] ?? 'localhost';
  return [
    `From: ${oneLine(content.from)}`,
    `To: ${oneLine(content.to)}`,
    `Subject: ${headerText(content.subject)}`,
    `Date: ${now.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    ...part('text/plain', content.text),
    `--${boundary}`,
    ...part('text/html', content.html),
    `--${boundary}--`,
    '',
  ].join(CRLF);
}

/** The bare address of `Name <address>` or `address` (the SMTP envelope's). */
export function addressOf(mailbox: string): string {
  return (/<([^>]*)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}

function part(type: string, body: string): string[] {
  return [
    `Content-Type: ${type}; charset=utf-8`,
    'Content-Transfer-Encoding: base64',
    '',
    ...(Buffer.from(body, 'utf8').toString('base64').match(/.{1,76}/g) ?? []),
  ];
}

/** A header value on one line: line breaks (header injection) become spaces. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/**
 * Printable ASCII as it is; anything else as RFC 2047 encoded words (base64 UTF-8, never splitting a character),
 * folded one word per line.
 */
export function headerText(value: string): string {
  const line = oneLine(value);
  if (/^[\x20-\x7e]*$/.test(line) && line.length <= 900) return line;
  const words: string[] = [];
  let chunk = '';
  for (const char of line) {
    if (Buffer.byteLength(chunk + char, 'utf8') > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word, 'utf8').toString('base64')}?=`).join(`${CRLF} `);
}
