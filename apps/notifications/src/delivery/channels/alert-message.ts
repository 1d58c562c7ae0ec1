import { type AlertTrigger, type RiskAlert, SEVERITY } from '@rp/contracts';
import type { AlertSource } from '../../alerts/alert';

/** What every channel renders: a title, labelled facts and what to do, in words a person reads at a glance. */
export interface AlertMessage {
  level: RiskAlert['riskLevel'];
  title: string;
  facts: { label: string; value: string }[];
  action: string;
  /** REPAY: the txb call that builds the transaction. */
  howTo?: string;
  footer: string;
}

const ACTION_TEXT: Record<RiskAlert['recommendedAction'], string> = {
  HOLD: 'HOLD: nothing to do, the position is healthy.',
  WATCH: 'WATCH: keep an eye on prices; add collateral if they keep moving against you.',
  REPAY: 'REPAY: repay part of the debt or add collateral to lift the health factor.',
  LIQUIDATE: 'LIQUIDATE: the position is close to liquidation; repay or close it now.',
};

/** What each trigger means to the holder, shown under "Why" (a webhook's own trigger is shown as it came). */
const TRIGGER_TEXT: Readonly<Record<string, string>> & Record<AlertTrigger, string> = {
  low_health_factor: 'the health factor is low',
  pool_on_ice: 'the pool is on ice: no new borrowing',
  pool_frozen: 'the pool is frozen: no new supply or borrowing',
  stablecoin_depeg: 'a stablecoin of the position is off $1 by more than your depeg bound',
  high_utilization: 'a reserve you borrow is nearly fully lent out: its rate climbs and lenders may not withdraw',
  stale_oracle: "the pool's oracle has not updated the price of an asset you hold within your maximum age",
  borrow_rate_jump: 'the borrow rate of an asset you owe jumped by half or more since the last check',
  liquidation_auction:
    'a liquidation auction against this position has started: within about 200 ledgers (17 minutes) a liquidator can take your collateral at a discount',
};

/** What a trigger asks of the holder besides the level's action, shown after it. */
const TRIGGER_ACTION: Readonly<Partial<Record<string, string>>> = {
  stale_oracle:
    'The value shown may be far from the market, and a late price can move it at once: keep extra margin and ' +
    'do not rely on the health factor until the oracle updates (the pool refuses actions on a price a day old).',
  borrow_rate_jump:
    'Your debt now grows faster: repay the borrowed asset, or compare its rate in other pools before it compounds.',
};

/** With an auction against the position, the only way out: get healthy and delete the auction in one submit. */
const AUCTION_ACTION =
  'RESCUE: repay (or add collateral) until the health factor is back above 1.0 and delete the auction (Blend request 9) in the same transaction, now; once a liquidator fills it, the collateral is gone.';

export const LEVEL_COLOR: Record<RiskAlert['riskLevel'], number> = {
  low: 0x2e7d32,
  medium: 0xf9a825,
  high: 0xef6c00,
  critical: 0xc62828,
};

/** `$1,234.50` (hand-rolled: `toLocaleString` costs more than the rest of a message). */
export function usd(value: number): string {
  const cents = Math.round(Math.abs(value) * 100);
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 ? '-' : ''}$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

function short(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

export function renderAlert(alert: RiskAlert, source: AlertSource): AlertMessage {
  const test = source === 'test';
  const title = test
    ? 'Test message: this channel receives your risk alerts'
    : alert.triggers.includes('liquidation_auction')
      ? `${SEVERITY[alert.riskLevel]} risk: a liquidation auction has started (health factor ${alert.healthFactor.toFixed(4)})`
      : `${SEVERITY[alert.riskLevel]} risk: health factor ${alert.healthFactor.toFixed(4)}`;
  const facts = test
    ? [{ label: 'Wallet', value: short(alert.address) }]
    : [
        { label: 'Level', value: `${alert.riskLevel} (${SEVERITY[alert.riskLevel]})` },
        { label: 'Health factor', value: alert.healthFactor.toFixed(4) },
        // The health factor speaks for itself; a pool's trigger says why a position raises more than it.
        ...(alert.triggers.some((t) => t !== 'low_health_factor')
          ? [{ label: 'Why', value: alert.triggers.map((t) => TRIGGER_TEXT[t] ?? t).join('; ') }]
          : []),
        { label: 'Collateral', value: usd(alert.collateralValueUsd) },
        { label: 'Debt', value: usd(alert.liabilityValueUsd) },
        { label: 'Wallet', value: short(alert.address) },
        { label: 'Pool', value: short(alert.poolAddress) },
      ];
  const auction = alert.triggers.includes('liquidation_auction');
  const howTo = auction
    ? `Build the rescue: POST /api/v1/txb/build {"action":"RESCUE","walletAddress":"${alert.address}","poolAddress":"${alert.poolAddress}"}, sign it, then POST /api/v1/txb/submit.`
    : alert.recommendedAction === 'REPAY' || alert.recommendedAction === 'LIQUIDATE'
      ? `Build the repay transaction: POST /api/v1/txb/build {"action":"REPAY","walletAddress":"${alert.address}","poolAddress":"${alert.poolAddress}","tokenId":"<debt token>"}, sign it, then POST /api/v1/txb/submit.`
      : undefined;
  return {
    level: alert.riskLevel,
    title,
    facts,
    action: test ? 'No action needed: this is a test.' : auction ? AUCTION_ACTION : actionText(alert),
    howTo: test ? undefined : howTo,
    footer: `Alert ${alert.alertId} · evaluated ${alert.evaluatedAt}`,
  };
}

/** The level's action, then what each of the alert's triggers asks besides it. */
function actionText(alert: RiskAlert): string {
  const asked = alert.triggers.flatMap((trigger) => TRIGGER_ACTION[trigger] ?? []);
  return [ACTION_TEXT[alert.recommendedAction], ...asked].join(' ');
}

/** Plain text (email text part, Slack fallback, logs of the stand-ins). */
export function plainText(message: AlertMessage): string {
  return [
    message.title,
    '',
    ...message.facts.map((f) => `${f.label}: ${f.value}`),
    '',
    message.action,
    ...(message.howTo ? [message.howTo] : []),
    '',
    message.footer,
  ].join('\n');
}
