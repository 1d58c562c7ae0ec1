import { randomUUID } from 'node:crypto';
import { ACCOUNT_OWNERS_BATCH, type AccountOwners, isAccount } from '@rp/contracts';
import { HttpClient, UpstreamError } from '../http/http-client';
import { signInternalRequest } from '../internal-auth/internal-signature';
import { REQUEST_ID_HEADER } from '../logging/request-context';

export const ACCOUNT_OWNERS_PATH = '/internal/accounts/owners';
const TIMEOUT_MS = 10_000;

/** The subscription service could not tell (unreachable, or an answer that is not one): try again later. */
export class AccountDirectoryUnavailableError extends Error {
  override readonly name = 'AccountDirectoryUnavailableError';
}

export interface AccountDirectoryOptions {
  /** Where the subscription service listens (`SUBSCRIPTION_URL`). */
  subscriptionUrl: string;
  /** `INTERNAL_TOKEN`: the call is signed like the gateway's own calls (no identity). */
  token?: string;
  http: HttpClient;
}

/**
 * Asks the subscription service, the one place that knows every key, which accounts own keys and emails
 * (`POST /internal/accounts/owners`): how a service gives records made before accounts existed the account of the
 * key that made them (ADR 015). It reads no other service's database, and checks what it is told.
 */
export class AccountDirectory {
  private readonly url: string;

  constructor(private readonly options: AccountDirectoryOptions) {
    this.url = `${options.subscriptionUrl.replace(/\/+$/, '')}${ACCOUNT_OWNERS_PATH}`;
  }

  /** The accounts of these keys and emails, asked in batches; `AccountDirectoryUnavailableError` on any failure. */
  async owners(keyIds: readonly string[], emails: readonly string[]): Promise<AccountOwners> {
    const answer: AccountOwners = { keys: [], emails: [] };
    for (let i = 0; i < Math.max(keyIds.length, emails.length); i += ACCOUNT_OWNERS_BATCH) {
      const part = await this.ask(
        [...keyIds.slice(i, i + ACCOUNT_OWNERS_BATCH)],
        [...emails.slice(i, i + ACCOUNT_OWNERS_BATCH)],
      );
      answer.keys.push(...part.keys);
      answer.emails.push(...part.emails);
    }
    return answer;
  }

  private async ask(keyIds: string[], emails: string[]): Promise<AccountOwners> {
    const body = JSON.stringify({ keyIds, emails });
    const requestId = randomUUID();
    const { token } = this.options;
    let response: Response;
    try {
      response = await this.options.http.fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [REQUEST_ID_HEADER]: requestId,
          ...(token ? signInternalRequest({ token, method: 'POST', path: ACCOUNT_OWNERS_PATH, requestId, body }) : {}),
        },
        body,
        timeoutMs: TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof UpstreamError) throw new AccountDirectoryUnavailableError(error.message);
      throw error;
    }
    const answer: unknown = await response.json().catch(() => undefined);
    if (!response.ok || !isAccountOwners(answer, keyIds, emails)) {
      throw new AccountDirectoryUnavailableError(`the subscription service answered ${response.status} without owners`);
    }
    return answer;
  }
}

/** An answer naming exactly what was asked, each account well formed. */
function isAccountOwners(value: unknown, keyIds: string[], emails: string[]): value is AccountOwners {
  if (typeof value !== 'object' || value === null) return false;
  const { keys, emails: found } = value as Partial<Record<keyof AccountOwners, unknown>>;
  if (!Array.isArray(keys) || !Array.isArray(found)) return false;
  const askedKeys = new Set(keyIds);
  const askedEmails = new Set(emails.map((email) => email.toLowerCase()));
  return (
    keys.every(
      (entry: { keyId?: unknown; account?: unknown }) =>
        askedKeys.has(entry?.keyId as string) && (entry.account === null || isAccount(entry.account)),
    ) &&
    found.every(
      (entry: { email?: unknown; accounts?: unknown }) =>
        askedEmails.has(entry?.email as string) &&
        Array.isArray(entry.accounts) &&
        entry.accounts.every((account: unknown) => isAccount(account)),
    )
  );
}
