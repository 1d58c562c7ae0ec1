/**
 * The account of an API key: who owns what the key creates (notification configurations, proposals, history), and
 * the only thing account-scoped data is compared on (ADR 015). It is proven, never declared:
 *
 * - `wallet:<G-address>`: a bought key's, the wallet whose signed payment bought it; every key one wallet buys shares it.
 * - `partner:<name>`: a partner key's, named by the operator who issued it; a key issued without a name (and every
 *   partner key issued before accounts existed) is an account of its own, `partner:key-<keyId>`.
 * - `key:<keyId>`: a bought key whose payment record cannot be found, so nothing beyond the key itself is proven.
 *
 * The email a buyer types is a contact and the status lookup, never an account.
 */
export type AccountKind = 'wallet' | 'partner' | 'key';

/** What an operator may name a partner account: lower-case letters, digits, `.`, `_` and `-`, 1 to 64. */
export const PARTNER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const ACCOUNT_PATTERN = /^(?:wallet:G[A-Z2-7]{55}|partner:[a-z0-9][a-z0-9._-]{0,63}|key:[0-9a-f-]{36})$/;

export function walletAccount(address: string): string {
  return `wallet:${address}`;
}

export function partnerAccount(name: string): string {
  return `partner:${name}`;
}

/** The account of a partner key issued without a name: the key alone. */
export function unnamedPartnerAccount(keyId: string): string {
  return partnerAccount(`key-${keyId}`);
}

/** The account of a bought key whose payment cannot be found: the key alone. */
export function keyAccount(keyId: string): string {
  return `key:${keyId}`;
}

export function isAccount(value: unknown): value is string {
  return typeof value === 'string' && ACCOUNT_PATTERN.test(value);
}
