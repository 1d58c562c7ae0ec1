/**
 * The page's liquidation auction section: start one against a wallet with debt (the sandbox's liquidator sends
 * `new_auction`; the pool refuses a wallet whose health factor is not below 1.0), and the live auctions with where
 * their ramp stands and a button to fill each. It reads `/control/state` and `/control/auctions` in the browser and
 * builds its rows with `textContent` (nothing from an answer is parsed as HTML).
 */
export function auctionPanel(): string {
  return `<p><label>wallet <select id="auction-target"></select></label>
<label>percent <input id="auction-percent" type="number" min="1" max="100" placeholder="largest allowed" size="8"></label>
<button id="auction-start" type="button">Start auction</button> <small id="auction-answer"></small></p>
<div id="auctions"><small>reading the auctions…</small></div>
<script>${PANEL_SCRIPT}</script>`;
}

const PANEL_SCRIPT = `
(() => {
  const box = document.getElementById('auctions');
  const target = document.getElementById('auction-target');
  const answer = document.getElementById('auction-answer');
  const send = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body) }).then((r) => r.json());
  const cell = (tag, text) => { const el = document.createElement(tag); el.textContent = String(text ?? ''); return el; };
  const row = (tag, values) => { const tr = document.createElement('tr'); values.forEach((v) => tr.append(typeof v === 'object' ? v : cell(tag, v))); return tr; };
  const said = (a) => { answer.textContent = a.error ? a.error : 'sent ' + String(a.hash).slice(0, 16) + '…, lands in the next ledger'; };
  fetch('/control/state').then((r) => r.json()).then((state) => {
    state.positions.filter((p) => Object.keys(p.liabilities ?? {}).length > 0).forEach((p) => {
      const hf = p.healthFactor === null ? '-' : (Number(p.healthFactor) / 1e7).toFixed(4);
      const option = cell('option', p.label + ' in ' + p.poolName + ' (health factor ' + hf + ')');
      option.value = p.pool + ' ' + p.account;
      target.append(option);
    });
  });
  document.getElementById('auction-start').addEventListener('click', async () => {
    const [pool, user] = target.value.split(' ');
    const percent = document.getElementById('auction-percent').value;
    said(await send('/control/pools/' + pool + '/auctions', percent ? { user, percent: Number(percent) } : { user }));
  });
  fetch('/control/auctions').then((r) => r.json()).then((auctions) => {
    if (auctions.length === 0) { box.replaceChildren(cell('p', 'no auction')); return; }
    const list = document.createElement('table');
    list.append(row('th', ['wallet', 'pool', 'started (block)', 'ledgers in', 'lot %', 'bid %', '']));
    auctions.forEach((a) => {
      const fill = cell('button', 'Fill 100 %');
      fill.addEventListener('click', async () => said(await send('/control/pools/' + a.pool + '/auctions/' + a.user + '/fill', { percent: 100 })));
      const action = document.createElement('td');
      action.append(fill);
      list.append(row('td', [a.user, a.pool, a.block, a.ledgersSinceStart, a.lotPercent, a.bidPercent, action]));
    });
    box.replaceChildren(list);
  }).catch(() => { box.textContent = 'the auctions do not answer'; });
})();
`;
