import { MAX_REQUEST_TARGET_LENGTH, requestTargetProblem } from './request-target';

describe('the request targets every app accepts', () => {
  it.each([
    '/',
    '/health',
    '/api/v1/txb/',
    '/api/v1/keys/subscribe/status?email=a%40b.co',
    '/api/v1/keys/subscribe/status?email=..%2F..%2Fx&y=%zz',
    '/api/v1/rms/notifications/configs/0b7e9c1e-2f4a-4c1b-9d2e-1f3a5b7c9d0e',
    '/api/v1/keys/admin/keys/a%40b.co',
    '/api/v1/txb/proposals/a%20b',
    '/api/v1/txb/proposals/%2570',
  ])('routes %s as written', (target) => {
    expect(requestTargetProblem(target)).toBeUndefined();
  });

  it.each([
    ['http://host/api/v1/txb/proposals', 'origin-form'],
    ['*', 'origin-form'],
    ['host:80', 'origin-form'],
    ['//api/v1/txb', 'empty segment'],
    ['/api//v1', 'empty segment'],
    ['/api/v1/../v1/txb', '".."'],
    ['/api/v1/./txb', '".."'],
    ['/%61pi/v1/txb', '%61'],
    ['/api/v1/%2e%2e/txb', '%2e'],
    ['/api/v1/txb%2Fproposals', '%2F'],
    ['/api/v1/txb%5Cproposals', '%5C'],
    ['/api/v1/txb%00', '%00'],
    ['/api/v1/txb%7e', '%7e'],
    ['/api/v1/txb%zz', 'not a percent-escape'],
    ['/api/v1/txb%4', 'not a percent-escape'],
    ['/api\\v1', 'cannot hold'],
    ['/api/v1/txb#x', 'cannot hold'],
    ['/api/v1/tx\u00e9', 'cannot hold'],
    ['/api/v1/tx b', 'cannot hold'],
    [`/api/${'a'.repeat(MAX_REQUEST_TARGET_LENGTH)}`, 'longer than'],
  ])('refuses %s', (target, problem) => {
    expect(requestTargetProblem(target)).toContain(problem);
  });
});
