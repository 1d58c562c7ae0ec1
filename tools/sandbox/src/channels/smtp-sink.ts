import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { MessageLog } from './message-log';

export type SmtpStage = 'rcpt' | 'data';
export type SmtpFaultCode = 421 | 450 | 451 | 452 | 550 | 552 | 554;

export interface SmtpFault {
  stage: SmtpStage;
  /** 4xx: the client should retry later; 5xx: permanent. 421 also closes the connection, as the RFC says. */
  code: SmtpFaultCode;
  /** How many RCPT commands (stage 'rcpt') or messages (stage 'data') to refuse. */
  count?: number;
  message?: string;
}

export interface SmtpSinkOptions {
  log: MessageLog;
  /** Advertised with SIZE and enforced with 552; default 10 MB. */
  maxMessageBytes?: number;
  /** How long `stop()` lets open sessions finish before dropping them. */
  closeTimeoutMs?: number;
}

export interface EmailPayload {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html?: string;
  headers: Record<string, string>;
  envelope: { mailFrom: string; rcptTo: string[] };
}

const REPLIES: Record<SmtpFaultCode, string> = {
  421: 'Service not available, closing transmission channel',
  450: 'Requested mail action not taken: mailbox unavailable',
  451: 'Requested action aborted: local error in processing',
  452: 'Requested action not taken: insufficient system storage',
  550: 'Requested action not taken: mailbox unavailable',
  552: 'Requested mail action aborted: exceeded storage allocation',
  554: 'Transaction failed',
};
const KEPT_HEADERS = new Set([
  'date',
  'message-id',
  'from',
  'to',
  'cc',
  'reply-to',
  'subject',
  'in-reply-to',
  'references',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'mime-version',
  'content-type',
  'auto-submitted',
  'precedence',
]);

/**
 * What the sink reads of a message: its own text and HTML parts. mailparser also renders every text part as HTML
 * with its links found (`textAsHtml`), which the sink never reads: entity encoding and link finding on every email,
 * about 4 % of the delivery benchmark's own process.
 */
const PARSE_OPTIONS = { skipTextToHtml: true, skipTextLinks: true } as const;

/**
 * SMTP server stand-in on loopback: accepts every message (AUTH PLAIN/LOGIN optional, any credentials, no TLS)
 * and records it in the log parsed. Passwords are never read, let alone stored.
 */
export class SmtpSink {
  private readonly log: MessageLog;
  private readonly maxMessageBytes: number;
  private readonly closeTimeoutMs: number;
  private readonly faults = new Map<SmtpStage, { code: SmtpFaultCode; count: number; message: string }>();
  private server: SMTPServer | undefined;
  private boundPort: number | undefined;

  constructor(options: SmtpSinkOptions) {
    this.log = options.log;
    this.maxMessageBytes = options.maxMessageBytes ?? 10 * 1_048_576;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 1_000;
  }

  get port(): number | undefined {
    return this.boundPort;
  }

  /** Resolves with the bound port (pass 0 for an ephemeral one). */
  start(port = 2525, host = '127.0.0.1'): Promise<number> {
    if (this.server) return Promise.reject(new Error('SmtpSink already started'));
    const server = new SMTPServer({
      name: 'sandbox.smtp.local',
      banner: 'Sandbox SMTP sink',
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      authMethods: ['PLAIN', 'LOGIN'],
      disableReverseLookup: true,
      size: this.maxMessageBytes,
      closeTimeout: this.closeTimeoutMs,
      logger: false,
      // Only the user name is kept; the password is deliberately never touched.
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
      onRcptTo: (address, session, callback) => {
        const fault = this.take('rcpt');
        if (!fault) return callback();
        this.recordRejected(session, [address.address], fault.code);
        callback(smtpError(fault.code, fault.message));
      },
      onData: (stream, session, callback) => {
        this.receive(stream, session).then(
          (reply) => callback(reply.code === 250 ? null : smtpError(reply.code, reply.message)),
          () => callback(smtpError(451, REPLIES[451])),
        );
      },
    });
    // Client-side errors (resets, timeouts) must not crash the sandbox.
    server.on('error', () => undefined);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        this.server = server;
        this.boundPort = (server.server.address() as AddressInfo).port;
        resolve(this.boundPort);
      });
    });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.boundPort = undefined;
    return server ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve();
  }

  failNext(fault: SmtpFault): void {
    this.faults.set(fault.stage, {
      code: fault.code,
      count: fault.count ?? 1,
      message: fault.message ?? REPLIES[fault.code],
    });
  }

  reset(): void {
    this.faults.clear();
  }

  private take(stage: SmtpStage): { code: SmtpFaultCode; message: string } | undefined {
    const fault = this.faults.get(stage);
    if (!fault) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) this.faults.delete(stage);
    return fault;
  }

  /** Reads and records one message; returns the reply code for it. */
  private async receive(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
  ): Promise<{ code: number; message: string }> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= this.maxMessageBytes) chunks.push(chunk);
    }
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    if (stream.sizeExceeded) {
      this.recordRejected(session, recipients, 552);
      return { code: 552, message: `Message size exceeds fixed maximum message size ${this.maxMessageBytes}` };
    }
    const payload = toPayload(await simpleParser(Buffer.concat(chunks), PARSE_OPTIONS), session);
    const fault = this.take('data');
    const status = fault?.code ?? 250;
    this.log.record({
      channel: 'email',
      destination: recipients.join(', '),
      text: payload.text,
      payload,
      outcome: fault ? 'rejected' : 'delivered',
      status,
      source: userOf(session),
    });
    return { code: status, message: fault?.message ?? '' };
  }

  private recordRejected(session: SMTPServerSession, recipients: string[], code: number): void {
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const payload = { from: mailFrom, to: recipients, envelope: { mailFrom, rcptTo: recipients } };
    this.log.record({
      channel: 'email',
      destination: recipients.join(', '),
      text: '',
      payload,
      outcome: 'rejected',
      status: code,
      source: userOf(session),
    });
  }
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

function userOf(session: SMTPServerSession): string | undefined {
  const user: unknown = session.user;
  return typeof user === 'string' ? user : undefined;
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list
    .flatMap((group) => group.value.flatMap((a) => (a.group ?? [a]).map((m) => m.address ?? '')))
    .filter(Boolean);
}

function toPayload(mail: ParsedMail, session: SMTPServerSession): EmailPayload {
  const headers: Record<string, string> = {};
  for (const { key, line } of mail.headerLines) {
    if (!KEPT_HEADERS.has(key) && !key.startsWith('x-')) continue;
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  return {
    from: mail.from?.text ?? mailFrom,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    subject: mail.subject ?? '',
    text: (mail.text ?? '').trimEnd(),
    ...(typeof mail.html === 'string' ? { html: mail.html } : {}),
    headers,
    envelope: { mailFrom, rcptTo: session.envelope.rcptTo.map((r) => r.address) },
  };
}
