import { RpcUrlListError, isRpcUrlList, parseRpcUrlList } from './rpc-url-list';
import { retryAfterMs } from './rpc-errors';

describe('RPC URL lists', () => {
  it('reads one URL or a comma-separated list, in order, spaces and blanks dropped', () => {
    expect(parseRpcUrlList('https://a.example/rpc')).toEqual(['https://a.example/rpc']);
    expect(parseRpcUrlList(' https://a.example/rpc , http://127.0.0.1:8000/,')).toEqual([
      'https://a.example/rpc',
      'http://127.0.0.1:8000/',
    ]);
  });

  it.each([
    ['', 'no URL given'],
    [' , ', 'no URL given'],
    ['https://a.example/rpc,not a url/key-123', 'entry 2 of 2 is not a URL'],
    ['ftp://user:key-123@a.example/', 'entry 1 of 1 is not an http:// or https:// URL'],
    ['https://a.example/key-123,https://a.example/key-123', 'entry 2 of 2 repeats an earlier one'],
  ])('refuses %j naming the entry by position, never echoing it', (setting, reason) => {
    const refusal = (() => {
      try {
        parseRpcUrlList(setting);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(RpcUrlListError);
    expect((refusal as Error).message).toContain(reason);
    expect((refusal as Error).message).not.toContain('key-123');
    expect(isRpcUrlList(setting)).toBe(false);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates, in ms from now', () => {
    expect(retryAfterMs({ 'retry-after': '7' })).toBe(7_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }, now)).toBe(60_000);
    expect(retryAfterMs({ get: (name: string) => (name === 'retry-after' ? '3' : undefined) })).toBe(3_000);
  });

  it('ignores a missing or unreadable header (the cooldown applies)', () => {
    expect(retryAfterMs({})).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
