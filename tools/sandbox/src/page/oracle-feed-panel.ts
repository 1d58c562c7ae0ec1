/**
 * The page's oracle feeds section: every oracle price with its age at the latest ledger close and whether its feed
 * runs (the oracle keeper publishes running prices again every 30 s of ledger time), with buttons to stop a feed
 * (now, or as if 10 minutes ago: `stale_oracle` at once) and to restart it, per asset or for the whole oracle. It
 * reads `GET /control/oracles/feeds` in the browser every five seconds and after each button, and builds its rows
 * with `textContent`.
 */
export function oracleFeedPanel(): string {
  return `<div id="oracle-feeds"><small>reading the oracle feeds…</small></div>
<script>${PANEL_SCRIPT}</script>`;
}

const PANEL_SCRIPT = `
(() => {
  const box = document.getElementById('oracle-feeds');
  const feed = (oracle, body) => fetch('/control/oracles/' + oracle + '/feed', { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json())
    .then((answer) => { if (answer.error) alert(answer.error); else show(); });
  const cell = (tag, text) => { const el = document.createElement(tag); el.textContent = String(text ?? ''); return el; };
  const button = (label, oracle, body) => { const b = cell('button', label); b.type = 'button';
    b.addEventListener('click', () => feed(oracle, body)); return b; };
  const controls = (oracle, running, asset) => { const td = document.createElement('td');
    const target = asset === undefined ? {} : { asset };
    td.append(running ? button('Stop feed', oracle, { ...target, running: false }) :
      button('Restart feed', oracle, { ...target, running: true }));
    if (running) td.append(' ', button('Stop, 10 min ago', oracle, { ...target, running: false, ageSeconds: 600 }));
    return td; };
  const show = () => fetch('/control/oracles/feeds').then((r) => r.json()).then((feeds) => {
    box.replaceChildren();
    feeds.forEach((f) => {
      const head = cell('p', 'oracle ' + f.oracle + ' · ' + (f.running ? 'running' : 'stopped') + ' · heartbeat ' +
        f.heartbeatSeconds + ' s of ledger time ');
      head.append(...controls(f.oracle, f.running).childNodes);
      const table = document.createElement('table');
      const header = document.createElement('tr');
      ['asset', 'price', 'stamped (unix s)', 'age at the last close (s)', 'feed', ''].forEach((h) => header.append(cell('th', h)));
      table.append(header);
      f.prices.forEach((p) => { const tr = document.createElement('tr');
        [p.asset, p.price, p.timestamp, p.ageSeconds, p.running ? 'running' : 'stopped'].forEach((v) => tr.append(cell('td', v)));
        tr.append(f.running ? controls(f.oracle, p.running, p.asset) : cell('td', ''));
        table.append(tr); });
      box.append(head, table);
    });
    if (feeds.length === 0) box.replaceChildren(cell('small', 'no oracle yet'));
  }).catch(() => { box.textContent = 'the oracle feeds do not answer'; });
  show();
  setInterval(show, 5000);
})();
`;
