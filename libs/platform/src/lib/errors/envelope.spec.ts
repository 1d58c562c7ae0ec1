import { BadRequestException, ForbiddenException, NotFoundException } from '@nestjs/common';
import { ApiError } from './api-error';
import { renderError } from './envelope';

describe('renderError', () => {
  it('renders an ApiError with its code, details, extra body fields and headers', () => {
    const rendered = renderError(
      new ApiError(429, 'RATE_LIMITED', 'Too many requests', { headers: { 'Retry-After': '1' }, body: { limit: 60 } }),
      'req-1',
    );
    expect(rendered).toEqual({
      status: 429,
      headers: { 'Retry-After': '1' },
      unexpected: false,
      body: {
        success: false,
        status: 429,
        code: 'RATE_LIMITED',
        error: 'Too many requests',
        limit: 60,
        requestId: 'req-1',
      },
    });
  });

  it('maps failures to read the body to 400, 413 and 415', () => {
    const malformed = renderError(Object.assign(new Error('Unexpected token'), { code: 'RP_MALFORMED_JSON' }), 'r');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
    const large = renderError(
      Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, limit: 1024 }),
      'r',
    );
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      error: 'Request body is larger than the limit of 1024 bytes',
    });
    const media = renderError(
      Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }),
      'r',
    );
    expect(media).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('keeps the 4xx of errors raised while reading, like a body that fails to decompress', () => {
    const inflate = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', statusCode: 400 });
    expect(renderError(inflate, 'r')).toMatchObject({
      status: 400,
      unexpected: false,
      body: { code: 'BAD_REQUEST', error: 'Request could not be read: incorrect header check' },
    });
    const internal = Object.assign(new Error('db down'), { statusCode: 500 });
    expect(renderError(internal, 'r').status).toBe(500);
  });

  it("turns Nest's unknown-route error into a 404 naming the route", () => {
    const rendered = renderError(new NotFoundException('Cannot GET /nope'), 'r');
    expect(rendered.body).toMatchObject({ status: 404, code: 'NOT_FOUND', error: 'No route for GET /nope' });
  });

  it('keeps the status and message of other HTTP exceptions', () => {
    expect(renderError(new ForbiddenException('wrong admin key'), 'r').body).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      error: 'wrong admin key',
    });
    expect(renderError(new BadRequestException(['a is bad', 'b is bad']), 'r').body.error).toBe('a is bad; b is bad');
  });

  it('hides the internals of an unexpected error', () => {
    const rendered = renderError(new TypeError("Cannot read properties of undefined (reading 'secret')"), 'r');
    expect(rendered.unexpected).toBe(true);
    expect(rendered.body).toEqual({
      success: false,
      status: 500,
      code: 'INTERNAL_ERROR',
      error: 'Internal server error',
      requestId: 'r',
    });
  });
});
