import { PaymentHeaderError, decodePaymentHeader, encodeX402Header } from './x402-messages';

const payload = {
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'stellar:testnet' },
  payload: { transaction: 'AAAA' },
};

function fieldOf(value: string): string {
  try {
    decodePaymentHeader(value);
  } catch (error) {
    if (error instanceof PaymentHeaderError) return error.field;
  }
  return 'accepted';
}

describe('payment header', () => {
  it('reads base64 JSON in the standard and the URL-safe alphabet', () => {
    const json = JSON.stringify(payload);
    expect(decodePaymentHeader(Buffer.from(json).toString('base64'))).toEqual(payload);
    expect(decodePaymentHeader(Buffer.from(json).toString('base64url'))).toEqual(payload);
    expect(decodePaymentHeader(encodeX402Header(payload as never))).toEqual(payload);
  });

  it.each([
    ['garbage that is not base64', '%%%not-base64%%%', 'X-PAYMENT-SIGNATURE'],
    ['base64 of text that is not JSON', Buffer.from('hello there').toString('base64'), 'X-PAYMENT-SIGNATURE'],
    ['a JSON array', Buffer.from('[1,2]').toString('base64'), 'X-PAYMENT-SIGNATURE'],
    ['a payload without version', Buffer.from('{"accepted":{}}').toString('base64'), 'X-PAYMENT-SIGNATURE.x402Version'],
    [
      'a payload without transaction',
      Buffer.from(JSON.stringify({ ...payload, payload: {} })).toString('base64'),
      'X-PAYMENT-SIGNATURE.payload.transaction',
    ],
  ])('names the part that is wrong: %s', (_name, value, field) => {
    expect(fieldOf(value)).toBe(field);
  });
});
