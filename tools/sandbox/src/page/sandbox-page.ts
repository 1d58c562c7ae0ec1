import type { SandboxDump } from '../control/sandbox-dump';

/**
 * The page at the sandbox root for a person running `npm start`: ledgers, accounts and balances, prices,
 * positions with their health, transactions and every message the channel stand-ins received. It reloads itself
 * every five seconds; the same data is JSON at `/control/state`.
 */
export function renderPage(dump: SandboxDump): string {
  const units = (value: string | null, decimals = 7) => (value === null ? '-' : formatUnits(value, decimals));
  const sections = [
    section(
      `Ledger ${dump.ledger.sequence}`,
      `<p>closed ${time(dump.ledger.closeTime)} · ${dump.ledger.pending} transaction(s) waiting · network: Test SDF Network ; September 2015</p>`,
    ),
    section(
      'Accounts',
      table(
        ['account', 'address', 'XLM (native)', ...tokenSymbols(dump)],
        dump.accounts.map((a) => [
          a.label +
            (a.demoMnemonic ? `<br><small>demo only, mnemonic: <code>${esc(a.demoMnemonic)}</code></small>` : ''),
          code(a.address),
          units(a.nativeStroops),
          ...tokenSymbols(dump).map((symbol) => units(a.tokens[symbol] ?? '0')),
        ]),
      ),
    ),
    section(
      'Oracle prices',
      table(
        ['asset', 'contract', 'price (USD)', 'updated'],
        dump.prices.map((p) => [esc(p.symbol), code(p.asset), units(p.price), time(p.timestamp)]),
      ),
    ),
    section(
      'Pools',
      table(
        ['pool', 'contract', 'oracle', 'reserves'],
        dump.pools.map((p) => [esc(p.name), code(p.contractId), code(p.oracle), String(p.reserves.length)]),
      ),
    ),
    section(
      'Positions',
      table(
        ['pool', 'account', 'collateral (bTokens)', 'debt (dTokens)', 'health factor', 'risk'],
        dump.positions.map((p) => [
          esc(p.poolName),
          `${esc(p.label)}<br>${code(p.account)}`,
          amounts(p.collateral),
          amounts(p.liabilities),
          p.healthFactor === null ? 'no debt' : units(p.healthFactor),
          `<span class="risk ${esc(p.riskLevel)}">${esc(p.riskLevel)}</span>`,
        ]),
      ),
    ),
    section(
      'Transactions',
      table(
        ['hash', 'status', 'ledger', 'source', 'fee (stroops)'],
        dump.transactions.map((t) => [
          code(t.hash.slice(0, 16) + '…'),
          esc(t.status) + (t.error ? ` <small>${esc(t.error)}</small>` : ''),
          String(t.ledger),
          code(t.source),
          t.feeCharged,
        ]),
      ),
    ),
    section(
      `Messages received (telegram ${dump.messages.counts.telegram}, webhooks ${dump.messages.counts.webhook}, email ${dump.messages.counts.email})`,
      table(
        ['when', 'channel', 'destination', 'status', 'text'],
        dump.messages.latest.map((m) => [
          time(m.receivedAt),
          esc(m.channel),
          code(m.destination),
          `${m.status} ${esc(m.outcome)}`,
          `<pre>${esc(m.text)}</pre>`,
        ]),
      ),
    ),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>Sandbox · ledger ${dump.ledger.sequence}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{font-size:12px}pre{margin:0;white-space:pre-wrap;max-width:40rem}.risk.low{color:#176f2c}.risk.medium{color:#8a6d00}
.risk.high{color:#b25000}.risk.critical{color:#b00020;font-weight:bold}small{color:#666}
</style></head><body>
<h1>Risk-protection sandbox</h1>
<p>Stand-ins on loopback: Soroban RPC at <code>/rpc</code>, Telegram Bot API at <code>/telegram</code>, webhooks under
<code>/hooks/</code>, SMTP on port 2525, control API under <code>/control</code> (state as JSON: <a href="/control/state">/control/state</a>).
Everything here is sandbox money.</p>
${sections.join('\n')}
</body></html>`;
}

function tokenSymbols(dump: SandboxDump): string[] {
  return [...new Set(dump.accounts.flatMap((account) => Object.keys(account.tokens)))];
}

function section(title: string, body: string): string {
  return `<h2>${esc(title)}</h2>\n${body}`;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '<p><small>none yet</small></p>';
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  return `<table><tr>${head}</tr>${rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('')}</table>`;
}

function amounts(values: Readonly<Record<string, string>>): string {
  const entries = Object.entries(values);
  return entries.length === 0
    ? '-'
    : entries.map(([symbol, value]) => `${formatUnits(value, 7)} ${esc(symbol)}`).join('<br>');
}

/** Base units to a decimal string, without floats. */
export function formatUnits(value: string, decimals: number): string {
  const negative = value.startsWith('-');
  const digits = (negative ? value.slice(1) : value).padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function time(value: string): string {
  const date = /^\d+$/.test(value) ? new Date(Number(value) * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? esc(value) : date.toISOString().replace('T', ' ').slice(0, 19);
}

function code(value: string): string {
  return `<code>${esc(value)}</code>`;
}

function esc(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
