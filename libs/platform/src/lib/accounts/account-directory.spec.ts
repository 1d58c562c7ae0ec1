import type { AccountOwners } from '@rp/contracts';
import { HttpClient, UpstreamError } from '../http/http-client';
import { verifyInternalRequest } from '../internal-auth/internal-signature';
import { ACCOUNT_OWNERS_PATH, AccountDirectory, AccountDirectoryUnavailableError } from './account-directory';
import { provenOwners, runMigration } from './legacy-owners';

const TOKEN = 'internal-token-0123456789';
const WALLET_A = 'wallet:GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const WALLET_B = 'wallet:GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX';
const KEY = '2f1a5d53-4da5-4da0-b0f3-3626cc7c1e98';

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An HttpClient whose answers the test writes (this is a unit test of what the directory checks). */
function client(answer: (asked: { keyIds: string[]; emails: string[] }) => unknown, status = 200) {
  const sent: Sent[] = [];
  const http = {
    async fetch(url: string, request: RequestInit & { timeoutMs?: number }) {
      const body = String(request.body);
      sent.push({ url, headers: request.headers as Record<string, string>, body });
      return new Response(JSON.stringify(answer(JSON.parse(body))), { status });
    },
  } as unknown as HttpClient;
  return { http, sent };
}

const directory = (http: HttpClient) =>
  new AccountDirectory({ subscriptionUrl: 'http://subscription:3001/', token: TOKEN, http });

const honest = ({ keyIds, emails }: { keyIds: string[]; emails: string[] }): AccountOwners => ({
  keys: keyIds.map((keyId) => ({ keyId, account: WALLET_A })),
  emails: emails.map((email) => ({ email, accounts: [WALLET_A] })),
});

describe('the account directory', () => {
  it('asks the subscription service with a signed call and returns its answer', async () => {
    const { http, sent } = client(honest);
    const answer = await directory(http).owners([KEY], ['a@example.com']);
    expect(answer).toEqual({
      keys: [{ keyId: KEY, account: WALLET_A }],
      emails: [{ email: 'a@example.com', accounts: [WALLET_A] }],
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe(`http://subscription:3001${ACCOUNT_OWNERS_PATH}`);
    const verified = verifyInternalRequest(TOKEN, {
      method: 'POST',
      path: ACCOUNT_OWNERS_PATH,
      headers: sent[0].headers,
      body: sent[0].body,
    });
    expect(verified).toMatchObject({ ok: true });
    expect(verified).not.toHaveProperty('identity');
  });

  it('asks in batches of 200', async () => {
    const { http, sent } = client(honest);
    const emails = Array.from({ length: 450 }, (_, i) => `u${i}@example.com`);
    const answer = await directory(http).owners([], emails);
    expect(sent.map((call) => (JSON.parse(call.body) as { emails: string[] }).emails.length)).toEqual([200, 200, 50]);
    expect(answer.emails).toHaveLength(450);
  });

  it.each([
    ['a key it was not asked about', () => ({ keys: [{ keyId: 'someone-else', account: WALLET_A }], emails: [] })],
    ['an email for an account', () => ({ keys: [{ keyId: KEY, account: 'email:a@example.com' }], emails: [] })],
    ['no owners at all', () => ({ ok: true })],
    ['accounts that are not accounts', () => ({ keys: [], emails: [{ email: 'a@example.com', accounts: ['x'] }] })],
  ])('does not believe an answer with %s', async (_case, answer) => {
    const { http } = client(answer);
    await expect(directory(http).owners([KEY], ['a@example.com'])).rejects.toBeInstanceOf(
      AccountDirectoryUnavailableError,
    );
  });

  it('is unavailable when the service does not answer or refuses', async () => {
    const down = {
      fetch: async () => {
        throw new UpstreamError('unreachable', 'http://subscription:3001');
      },
    } as unknown as HttpClient;
    await expect(directory(down).owners([KEY], [])).rejects.toBeInstanceOf(AccountDirectoryUnavailableError);
    const { http } = client(() => ({ success: false, code: 'INTERNAL_AUTH_REQUIRED' }), 403);
    await expect(directory(http).owners([KEY], [])).rejects.toBeInstanceOf(AccountDirectoryUnavailableError);
  });
});

describe('what legacy owners prove', () => {
  it('is the key’s account, or the one account of every key with an email; never a guess', () => {
    const proven = provenOwners({
      keys: [
        { keyId: 'k1', account: WALLET_A },
        { keyId: 'k2', account: null },
      ],
      emails: [
        { email: 'one@example.com', accounts: [WALLET_A] },
        { email: 'shared@example.com', accounts: [WALLET_A, WALLET_B] },
        { email: 'nobody@example.com', accounts: [] },
      ],
    });
    expect([...proven.keys]).toEqual([['k1', WALLET_A]]);
    expect([...proven.emails]).toEqual([['one@example.com', WALLET_A]]);
  });
});

describe('a background migration', () => {
  it('runs again after failures until it is done', async () => {
    let runs = 0;
    const migration = runMigration('TestMigration', async () => {
      runs += 1;
      if (runs < 3) throw new AccountDirectoryUnavailableError('not yet');
    });
    await migration.done;
    expect(runs).toBe(3);
    await migration.stop();
  });

  it('stops waiting when the app stops', async () => {
    let runs = 0;
    const migration = runMigration('TestMigration', async () => {
      runs += 1;
      throw new AccountDirectoryUnavailableError('never');
    });
    await migration.stop();
    await migration.done;
    expect(runs).toBe(1);
  });
});
