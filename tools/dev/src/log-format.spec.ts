import { stripVTControlCharacters } from 'node:util';
import { createLogFormatter, formatLogLine } from './log-format';

describe('formatLogLine', () => {
  it('shows an access line as method, url, status and duration', () => {
    const line = JSON.stringify({
      level: 'warn',
      time: '2026-11-22T10:12:05.123Z',
      req: { id: 'r1', method: 'GET', url: '/api/v1/nope' },
      res: { statusCode: 404 },
      responseTime: 3,
      msg: 'request completed',
    });
    expect(formatLogLine(line)).toBe('[10:12:05] WARN: GET /api/v1/nope -> 404 (3 ms)');
  });

  it('shows a message with its context and an error with its stack', () => {
    expect(
      formatLogLine(
        JSON.stringify({ level: 'info', time: '2026-11-22T10:00:00Z', msg: 'ready', context: 'Bootstrap' }),
      ),
    ).toBe('[10:00:00] INFO: ready [Bootstrap]');
    expect(
      formatLogLine(
        JSON.stringify({
          level: 'error',
          time: '2026-11-22T10:00:00Z',
          msg: 'boom',
          err: { stack: 'Error: x\n    at y' },
        }),
      ),
    ).toBe('[10:00:00] ERROR: boom\nError: x\n    at y');
  });

  it('leaves lines that are not JSON as they are', () => {
    expect(formatLogLine('subscription: invalid configuration: PORT must be an integer')).toBe(
      'subscription: invalid configuration: PORT must be an integer',
    );
    expect(formatLogLine('{not json')).toBe('{not json');
  });

  it('leaves out the fields a person does not need (pid, hostname, request ids)', () => {
    const line = JSON.stringify({
      level: 'info',
      time: '2026-11-22T10:00:00Z',
      pid: 42,
      hostname: 'h',
      reqId: 'r9',
      msg: 'hi',
    });
    expect(formatLogLine(line)).toBe('[10:00:00] INFO: hi');
  });

  it('colours the level only when asked (the launcher asks on a terminal)', () => {
    const line = JSON.stringify({ level: 'error', time: '2026-11-22T10:00:00Z', msg: 'boom' });
    const coloured = createLogFormatter({ colorize: true })(line);
    expect(coloured).toContain('\u001b[31mERROR\u001b[39m');
    expect(stripVTControlCharacters(coloured)).toBe('[10:00:00] ERROR: boom');
    expect(createLogFormatter({ colorize: false })(line)).not.toContain('\u001b');
  });
});
