import { presentedApiKey } from './api-key';

const KEY = 'rp_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const OTHER = 'rp_live_ZyXwVuTsRqPoNmLkJiHgFeDcBa987654';

describe('the API key a request presents', () => {
  it('is read from Authorization: Bearer, whatever the case of the scheme', () => {
    expect(presentedApiKey({ authorization: `Bearer ${KEY}` })).toEqual({ kind: 'key', apiKey: KEY });
    expect(presentedApiKey({ authorization: `bearer  ${KEY} ` })).toEqual({ kind: 'key', apiKey: KEY });
  });

  it('is read from X-API-Key', () => {
    expect(presentedApiKey({ 'x-api-key': ` ${KEY}` })).toEqual({ kind: 'key', apiKey: KEY });
  });

  it('prefers the bearer token when both are sent', () => {
    expect(presentedApiKey({ authorization: `Bearer ${KEY}`, 'x-api-key': OTHER })).toEqual({
      kind: 'key',
      apiKey: KEY,
    });
  });

  it.each([{}, { authorization: 'Bearer ' }, { authorization: `Basic ${KEY}` }, { 'x-api-key': '  ' }])(
    'is missing for %j',
    (headers) => {
      expect(presentedApiKey(headers)).toEqual({ kind: 'missing' });
    },
  );

  it.each([
    { authorization: 'Bearer rp_test_short' },
    { 'x-api-key': 'sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345' },
    { 'x-api-key': `${KEY}x` },
    { authorization: `Bearer ${KEY} extra` },
  ])('is malformed for %j', (headers) => {
    expect(presentedApiKey(headers)).toEqual({ kind: 'malformed' });
  });
});
