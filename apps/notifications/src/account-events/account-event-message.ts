import type { AccountEventType } from '@rp/contracts';
import type { AlertMessage } from '../delivery/channels/alert-message';
import { type AccountEventNotice, EVENT_LEVEL } from './account-event-notice';

const TITLE: Readonly<Record<AccountEventType, string>> = {
  close_sent: 'Your risk agent sent a close',
  close_confirmed: "Your risk agent's close is confirmed on the ledger",
  close_failed: "Your risk agent's close failed",
  refused: 'Your risk agent refused to sign',
  fee_balance_low: "Your risk agent's fee balance is low",
  subscription_lapsed: "Your risk agent's API key lapsed",
  subscription_renewed: "Your risk agent's API key was renewed",
  standby_took_over: 'A standby risk agent took over your wallet',
};

const ACTION: Readonly<Record<AccountEventType, string>> = {
  close_sent: 'Nothing to do: the agent follows the close to the ledger and tells you how it ends.',
  close_confirmed: 'Nothing to do: the position is closed (or brought back to its target).',
  close_failed: 'The position may still be at risk: check it, and the agent, now.',
  refused:
    'Nothing was signed. A refusal from the service or of a payment can mean the service is compromised: check it.',
  fee_balance_low: 'Top up the wallet with XLM so that closes can pay their fees.',
  subscription_lapsed:
    'The agent protects from the ledger alone meanwhile. Check that the wallet holds USDC for a new key.',
  subscription_renewed: 'Nothing to do.',
  standby_took_over: 'The agent that was acting stopped or died: check it.',
};

const short = (value: string) => (value.length > 12 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value);
const factor = (value: number | null | undefined) => (value === null ? 'none (no debt)' : (value ?? 0).toFixed(4));

/** What every channel renders for an account's event: its title, the facts given, what to do. */
export function renderAccountEvent(event: AccountEventNotice): AlertMessage {
  const facts: { label: string; value: string }[] = [{ label: 'Wallet', value: short(event.walletAddress) }];
  if (event.poolAddress) facts.push({ label: 'Pool', value: short(event.poolAddress) });
  if (event.healthFactorBefore !== undefined) {
    facts.push({ label: 'Health factor before', value: factor(event.healthFactorBefore) });
  }
  if (event.healthFactorAfter !== undefined) {
    facts.push({ label: 'Health factor after', value: factor(event.healthFactorAfter) });
  }
  if (event.txHash) facts.push({ label: 'Transaction', value: event.txHash });
  if (event.source) facts.push({ label: 'Refused from', value: event.source });
  if (event.reason) facts.push({ label: 'Reason', value: event.reason });
  if (event.nativeBalance) facts.push({ label: 'XLM balance', value: event.nativeBalance });
  if (event.expiresAt) facts.push({ label: 'Valid until', value: event.expiresAt });
  if (event.detail) facts.push({ label: 'Detail', value: event.detail });
  return {
    level: EVENT_LEVEL[event.type],
    title: TITLE[event.type],
    facts,
    action: ACTION[event.type],
    footer: `Agent event ${event.eventId} · ${event.occurredAt}`,
  };
}
