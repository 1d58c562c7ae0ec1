import { escapeHtml } from '@rp/contracts';
import type { SandboxDump } from '../control/sandbox-dump';
import { auctionPanel } from './auction-panel';
import { congestionPanel } from './congestion-panel';
import { oracleFeedPanel } from './oracle-feed-panel';
import { healthChartPanel } from './health-chart';

/**
 * The page at the sandbox root for a person running `npm start`: ledgers, accounts and balances, prices,
 * positions with their health and a chart of it over time, transactions and every message the channel stand-ins
 * received; the same data is JSON at `/control/state`. It never reloads itself (the chart keeps its state): every
 * five seconds its script fetches the page again and swaps in each section that holds no script, form control or
 * `data-keep` element; those sections (the chart, panels with their own script) refresh themselves.
 */
export function renderPage(dump: SandboxDump): string {
  const units = (value: string | null, decimals = 7) => (value === null ? '-' : formatUnits(value, decimals));
  const sections = [
    section(
      `Ledger ${dump.ledger.sequence}`,
      `<p>closed ${time(dump.ledger.closeTime)} · ${dump.ledger.pending} transaction(s) waiting · network: Test SDF Network ; September 2015</p>`,
    ),
    section('Congestion', congestionPanel()),
    section('Liquidation auctions', auctionPanel()),
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
        ['asset', 'contract', 'price (USD)', 'updated', 'move it'],
        dump.prices.map((p) => [
          esc(p.symbol),
          code(p.asset),
          units(p.price),
          time(p.timestamp),
          PRICE_MOVES.map(
            (percent) =>
              `<button data-oracle="${esc(p.oracle)}" data-asset="${esc(p.asset)}" data-price="${esc(p.price)}" data-percent="${percent}">` +
              `${percent > 0 ? '+' : '−'}${Math.abs(percent)} %</button>`,
          ).join(' '),
        ]),
      ),
    ),
    section('Oracle feeds', oracleFeedPanel()),
    section(
      'Agent',
      '<div id="agent" data-keep><small>asking the demo agent…</small></div>',
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
    section('Health factor over time', healthChartPanel()),
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
<html lang="en"><head><meta charset="utf-8">
<title>Sandbox · ledger ${dump.ledger.sequence}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{font-size:12px}pre{margin:0;white-space:pre-wrap;max-width:40rem}.risk.low{color:#176f2c}.risk.medium{color:#8a6d00}
.risk.high{color:#b25000}.risk.critical{color:#b00020;font-weight:bold}small{color:#666}
figure.health-chart{margin:1rem 0}.health-markers{font-size:12px;color:#444}
</style></head><body>
<h1>Risk-protection sandbox</h1>
<p>Stand-ins on loopback: Soroban RPC at <code>/rpc</code>, Telegram Bot API at <code>/telegram</code>, webhooks under
<code>/hooks/</code>, SMTP on port 2525, control API under <code>/control</code> (state as JSON: <a href="/control/state">/control/state</a>).
Everything here is sandbox money.</p>
${sections.join('\n')}
<script>${PAGE_SCRIPT}</script>
</body></html>`;
}

/** Price moves the page offers (percent): push the endangered demo wallet to critical, or back. */
const PRICE_MOVES = [-3, -10, -20, 10] as const;

/**
 * The page's own script: the live refresh of its sections, price buttons (the control API sets the oracle price;
 * the change is on the ledger at the next close) and the demo agent's status, relayed by the sandbox at
 * `/agent/status`.
 */
const PAGE_SCRIPT = `
const KEPT = 'script, input, select, textarea, [data-keep]';
async function refreshSections() {
  const next = new DOMParser().parseFromString(await (await fetch('/')).text(), 'text/html');
  const fresh = next.querySelectorAll('section[data-section]');
  document.querySelectorAll('section[data-section]').forEach((current, index) => {
    if (fresh[index] && !current.querySelector(KEPT) && current.innerHTML !== fresh[index].innerHTML) {
      current.innerHTML = fresh[index].innerHTML;
    }
  });
  document.title = next.title;
}
async function movePrice(oracle, asset, price, percent) {
  const next = (BigInt(price) * BigInt(100 + percent)) / 100n;
  await fetch('/control/oracles/' + oracle + '/prices', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ asset, price: next.toString() }) });
  await refreshSections();
}
setInterval(() => { refreshSections().catch(() => {}); showAgent(); }, 5000);
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-percent]');
  if (button) movePrice(button.dataset.oracle, button.dataset.asset, button.dataset.price, Number(button.dataset.percent));
});
${escapeHtml.toString()}
function showAgent() { fetch('/agent/status').then((r) => r.json()).then((s) => {
  const box = document.getElementById('agent');
  if (!s.wallet) { box.innerHTML = '<small>' + escapeHtml(s.error || 'no agent') + '</small>'; return; }
  const rows = (s.positions || []).map((p) => '<tr><td><code>' + escapeHtml(p.poolAddress) + '</code></td><td>' +
    escapeHtml(p.healthFactor) + '</td><td><span class="risk ' + escapeHtml(p.riskLevel) + '">' + escapeHtml(p.riskLevel) +
    '</span></td></tr>').join('');
  const closes = (s.recentCloses || []).map((c) => '<tr><td>' + escapeHtml(c.decidedAt) + '</td><td>' + escapeHtml(c.outcome) +
    (c.error ? ' <small>' + escapeHtml(c.error) + '</small>' : '') + '</td><td><code>' + escapeHtml((c.txHash || '').slice(0, 16)) +
    '</code></td><td>' + escapeHtml(c.settledAt || '') + '</td></tr>').join('');
  box.innerHTML = '<p>wallet <code>' + escapeHtml(s.wallet.address) + '</code> · mode <b>' + escapeHtml(s.mode) + '</b> · ' +
    escapeHtml(s.role) + ' · key ' + (s.subscription.active ? 'active until ' + escapeHtml(s.subscription.expiresAt) :
    'none' + (s.subscription.error ? ' (' + escapeHtml(s.subscription.error) + ')' : '')) + ' · fee balance ' +
    escapeHtml(s.wallet.nativeBalance) + ' XLM' + (s.wallet.lowFeeBalance ? ' <b>(low)</b>' : '') +
    ' · presigned closes ' + escapeHtml(s.presigned.entries) + ' · last poll ' + escapeHtml(s.lastPollAt) + '</p>' +
    '<table><tr><th>pool</th><th>health factor</th><th>risk</th></tr>' + rows + '</table>' +
    '<h3>Closes</h3><table><tr><th>decided</th><th>outcome</th><th>transaction</th><th>settled</th></tr>' +
    (closes || '<tr><td colspan="4"><small>none yet</small></td></tr>') + '</table>';
}).catch(() => { document.getElementById('agent').innerHTML = '<small>the demo agent does not answer</small>'; }); }
showAgent();
`;

function tokenSymbols(dump: SandboxDump): string[] {
  return [...new Set(dump.accounts.flatMap((account) => Object.keys(account.tokens)))];
}

/** A titled part of the page; the page's script swaps its contents live unless it holds a script or a control. */
function section(title: string, body: string): string {
  return `<section data-section>\n<h2>${esc(title)}</h2>\n${body}\n</section>`;
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

const esc = escapeHtml;
