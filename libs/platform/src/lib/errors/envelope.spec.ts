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

  it('maps body-parser failures to 400 and 413', () => {
    const malformed = renderError(
      Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed' }),
      'r',
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
    const large = renderError(Object.assign(new Error('too large'), { type: 'entity.too.large', limit: 1024 }), 'r');
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      error: 'Request body is larger than the limit of 1024 bytes',
    });
  });

  it('keeps the status of errors meant for the client, like a body that fails to decompress', () => {
    const inflate = Object.assign(new Error('incorrect header check'), { status: 400, expose: true });
    expect(renderError(inflate, 'r')).toMatchObject({
      status: 400,
      unexpected: false,
      body: { code: 'BAD_REQUEST', error: 'Request could not be read: incorrect header check' },
    });
    const internal = Object.assign(new Error('db down'), { status: 500, expose: false });
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
