/**
 * The page's congestion section: the per-ledger Soroban limit, the queue, the current `getFeeStats` percentiles and
 * a form to start (or stop) a storm. It reads `GET /control/congestion` in the browser every five seconds and builds its rows with
 * `textContent` (nothing from the answer is parsed as HTML); its buttons call the control API.
 */
export function congestionPanel(): string {
  return `<div id="congestion"><small>reading the queue…</small></div>
<p><label>ledger limit <input id="storm-limit" type="number" min="1" value="10" size="5"></label>
<label>storm transactions per ledger <input id="storm-count" type="number" min="1" value="30" size="5"></label>
<label>inclusion fee (stroops) <input id="storm-fee" type="number" min="100" value="1000" size="7"></label>
<label>ledgers <input id="storm-ledgers" type="number" min="1" value="12" size="4"></label>
<button id="storm-start" type="button">Start a storm</button> <button id="storm-stop" type="button">Stop it</button></p>
<script>${PANEL_SCRIPT}</script>`;
}

const PANEL_SCRIPT = `
(() => {
  const box = document.getElementById('congestion');
  const value = (id) => Number(document.getElementById(id).value);
  const send = (method, path, body) => fetch(path, { method, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json());
  const cell = (tag, text) => { const el = document.createElement(tag); el.textContent = String(text ?? ''); return el; };
  const row = (tag, values) => { const tr = document.createElement('tr'); values.forEach((v) => tr.append(cell(tag, v))); return tr; };
  document.getElementById('storm-start').addEventListener('click', async () => {
    await send('POST', '/control/ledger/limits', { maxSorobanTransactions: value('storm-limit') });
    const answer = await send('POST', '/control/congestion', { transactionsPerLedger: value('storm-count'),
      inclusionFee: value('storm-fee'), ledgers: value('storm-ledgers') });
    if (answer.error) alert(answer.error); else show();
  });
  document.getElementById('storm-stop').addEventListener('click', () => send('DELETE', '/control/congestion').then(show));
  // The page does not reload itself: this view reads the queue again every five seconds.
  const show = () => fetch('/control/congestion').then((r) => r.json()).then((c) => {
    const fees = c.feeStats.sorobanInclusionFee;
    const storm = c.storm ? 'storm: ' + c.storm.transactionsPerLedger + ' transactions per ledger at ' +
      c.storm.inclusionFee + ' stroops, ' + c.storm.ledgersLeft + ' ledger(s) left' : 'no storm';
    box.replaceChildren(cell('p', 'limit ' + c.maxSorobanTransactions + ' Soroban transactions per ledger · ' +
      c.queued + ' waiting · ' + storm));
    const stats = document.createElement('table');
    const names = ['min', 'p10', 'p50', 'p90', 'p99', 'max', 'mode', 'transactionCount', 'ledgerCount'];
    stats.append(row('th', ['inclusion fee (getFeeStats)'].concat(names)), row('td', ['Soroban'].concat(names.map((n) => fees[n]))));
    const queue = document.createElement('table');
    queue.append(row('th', ['waiting transaction', 'source', 'bid per operation', 'from the storm']));
    c.queue.forEach((q) => queue.append(row('td', [q.hash.slice(0, 16), q.source, q.inclusionFeePerOperation, q.storm ? 'yes' : ''])));
    box.append(stats, queue);
  }).catch(() => { box.textContent = 'the congestion view does not answer'; });
  show();
  setInterval(show, 5000);
})();
`;
