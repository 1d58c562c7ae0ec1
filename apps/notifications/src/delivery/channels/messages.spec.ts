import { plainText, renderAlert, usd } from './alert-message';
import { emailHtml } from './email.provider';
import { escapeHtml, type RiskAlert } from '@rp/contracts';
import { TELEGRAM_MAX_TEXT, telegramText } from './telegram.provider';
import { discordPayload, slackPayload } from './webhook.provider';

const alert: RiskAlert = {
  alertId: 'a-1',
  address: 'GD4HNC66RA4IHVLBA3ACQGLJXMW4S5S7PQN6U7OE2M4PLBMBBSMBHAVR',
  poolAddress: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
  riskLevel: 'high',
  healthFactor: 1.1834,
  triggers: ['low_health_factor'],
  collateralValueUsd: 15234.5,
  liabilityValueUsd: 12000,
  recommendedAction: 'REPAY',
  evaluatedAt: '2026-11-22T18:00:00.000Z',
};

describe('alert messages', () => {
  it('say level, health factor, collateral and debt in USD, pool, the action and how to repay', () => {
    const text = plainText(renderAlert(alert, 'monitor'));
    for (const part of [
      'HIGH risk: health factor 1.1834',
      'Collateral: $15,234.50',
      'Debt: $12,000.00',
      'Pool: CBIELT…DAMA',
      'REPAY:',
      '"action":"REPAY"',
      '/api/v1/txb/build',
    ]) {
      expect(text).toContain(part);
    }
  });

  it("say why a pool's trigger raised the position, and not for the health factor alone", () => {
    const frozen = plainText(renderAlert({ ...alert, triggers: ['low_health_factor', 'pool_frozen'] }, 'monitor'));
    expect(frozen).toContain('Why: the health factor is low; the pool is frozen: no new supply or borrowing');
    expect(plainText(renderAlert({ ...alert, triggers: ['pool_on_ice'] }, 'monitor'))).toContain(
      'Why: the pool is on ice: no new borrowing',
    );
    expect(plainText(renderAlert(alert, 'monitor'))).not.toContain('Why:');
  });

  it('say why a stale oracle raised the position and what to do about it', () => {
    const text = plainText(renderAlert({ ...alert, triggers: ['stale_oracle'] }, 'monitor'));
    expect(text).toContain(
      "Why: the pool's oracle has not updated the price of an asset you hold within your maximum age",
    );
    expect(text).toContain(
      'REPAY: repay part of the debt or add collateral to lift the health factor. The value shown',
    );
    expect(text).toContain('do not rely on the health factor until the oracle updates');
  });

  it('say why a borrow rate jump raised the position and what to do about it', () => {
    const jumped: RiskAlert = {
      ...alert,
      riskLevel: 'medium',
      recommendedAction: 'WATCH',
      triggers: ['borrow_rate_jump'],
    };
    const text = plainText(renderAlert(jumped, 'monitor'));
    expect(text).toContain('Why: the borrow rate of an asset you owe jumped by half or more since the last check');
    expect(text).toContain('WATCH: keep an eye on prices');
    expect(text).toContain('Your debt now grows faster: repay the borrowed asset');
    expect(plainText(renderAlert(alert, 'monitor'))).not.toContain('grows faster');
  });

  it('escapes Telegram HTML and stays within 4096 characters', () => {
    const nasty = { ...alert, alertId: '<b>&"x"</b>'.repeat(10) };
    const { text, parse_mode } = telegramText(renderAlert(nasty, 'webhook'));
    expect(parse_mode).toBe('HTML');
    expect(text).toContain('&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;');
    expect(text).not.toContain('<b>&');
    const huge = renderAlert(alert, 'webhook');
    huge.howTo = 'x'.repeat(10_000);
    expect(telegramText(huge).text.length).toBeLessThanOrEqual(TELEGRAM_MAX_TEXT);
    expect(escapeHtml('a<b')).toBe('a&lt;b');
  });

  it('builds Discord embeds, Slack blocks and an email with HTML and text parts', () => {
    const message = renderAlert(alert, 'monitor');
    const discord = discordPayload(message) as { embeds: { color: number; fields: unknown[] }[] };
    expect(discord.embeds[0]?.fields).toHaveLength(6);
    const slack = slackPayload(message) as { text: string; blocks: { type: string }[] };
    expect(slack.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(emailHtml(message)).toContain('<h2>HIGH risk: health factor 1.1834</h2>');
  });

  it('writes dollars with thousands separators and cents', () => {
    expect([usd(0), usd(5.999), usd(1234.5), usd(1_234_567.891), usd(-12.3)]).toEqual([
      '$0.00',
      '$6.00',
      '$1,234.50',
      '$1,234,567.89',
      '-$12.30',
    ]);
  });

  it('a test message says it is a test', () => {
    expect(plainText(renderAlert(alert, 'test'))).toContain('Test message');
  });
});
