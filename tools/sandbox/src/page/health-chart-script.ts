/**
 * The health chart's browser script (plain JavaScript, no build step). It polls `/control/health-history`, makes one
 * uPlot chart per position and, on each answer that differs, hands uPlot the new columns: x is time (unix seconds),
 * then the health factor, the alert, notice and close markers (points only, drawn at the health factor last read before
 * them) and four flat lines for the 1.0 and level bounds. Texts are set with `textContent` only.
 */
export const HEALTH_CHART_SCRIPT = `
(() => {
  const root = document.getElementById('health-charts');
  const charts = new Map();
  const MARKER = { alert: '#b00020', notice: '#9e9e9e', close: '#176f2c' };
  const KINDS = ['alert', 'notice', 'close'];
  const dot = (kind) => ({ show: true, size: kind === 'notice' ? 8 : 12, stroke: MARKER[kind], fill: MARKER[kind], width: 2 });
  const marker = (kind) => ({ label: kind, stroke: MARKER[kind], paths: () => null, points: dot(kind), value: fixed });
  const flat = (label, color, dash) => ({ label, stroke: color, width: 1, dash, points: { show: false } });
  const fixed = (u, v) => (v === null || v === undefined ? '-' : v.toFixed(4));
  const element = (tag, text) => { const el = document.createElement(tag); if (text !== undefined) el.textContent = text; return el; };

  function columns(position, bounds) {
    const rows = position.points.map((p) => [p.at, p.healthFactor, null, null, null]);
    for (const m of position.markers) {
      const y = m.healthFactor === null ? bounds.liquidation : m.healthFactor;
      rows.push([m.at, null, ...KINDS.map((kind) => (m.kind === kind ? y : null))]);
    }
    rows.sort((a, b) => a[0] - b[0]);
    // uPlot wants x strictly increasing: a marker at the same instant as a reading moves a millisecond on.
    for (let i = 1; i < rows.length; i += 1) if (rows[i][0] <= rows[i - 1][0]) rows[i][0] = rows[i - 1][0] + 0.001;
    const xs = rows.map((row) => row[0]);
    const line = (value) => xs.map(() => value);
    return [xs, ...[1, 2, 3, 4].map((i) => rows.map((row) => row[i])),
      line(bounds.liquidation), line(bounds.critical), line(bounds.high), line(bounds.medium)];
  }

  function options(position, bounds) {
    return {
      width: Math.max(320, Math.min(960, root.clientWidth || 960)),
      height: 260,
      scales: { x: { time: true }, y: { range: (u, min, max) => [Math.min(0.9, min ?? 0.9), Math.max(1.6, Math.min(max ?? 1.6, 3))] } },
      series: [
        {},
        { label: 'health factor', stroke: '#1565c0', width: 2, spanGaps: true, value: fixed },
        ...KINDS.map(marker),
        flat(bounds.liquidation.toFixed(2) + ' liquidation', '#b00020'),
        flat(bounds.critical.toFixed(2) + ' critical', '#d84315', [6, 4]),
        flat(bounds.high.toFixed(2) + ' high', '#b28704', [6, 4]),
        flat(bounds.medium.toFixed(2) + ' medium', '#2e7d32', [6, 4]),
      ],
    };
  }

  function create(position, bounds) {
    const figure = element('figure');
    figure.className = 'health-chart';
    figure.dataset.pool = position.pool;
    figure.dataset.account = position.account;
    const caption = element('figcaption', position.poolName + ' · ' + position.label + ' · ' + position.account);
    const plotBox = element('div');
    const markers = element('ol');
    markers.className = 'health-markers';
    figure.append(caption, plotBox, markers);
    root.append(figure);
    const plot = new uPlot(options(position, bounds), columns(position, bounds), plotBox);
    return { figure, markers, plot, signature: '' };
  }

  function show(chart, position, bounds) {
    const last = (list) => list[list.length - 1];
    const signature = [position.points.length, (last(position.points) || {}).ledger, position.markers.length,
      (last(position.markers) || {}).key].join(':');
    if (signature === chart.signature) return;
    chart.signature = signature;
    chart.plot.setData(columns(position, bounds));
    const count = (kind) => position.markers.filter((m) => m.kind === kind).length;
    Object.assign(chart.figure.dataset, { points: position.points.length, alerts: count('alert'),
      notices: count('notice'), closes: count('close') });
    chart.markers.replaceChildren(...position.markers.map((m) => {
      const item = element('li', 'ledger ' + m.ledger + ' · ' + m.kind + ' · ' + m.title +
        (m.healthFactor === null ? '' : ' · health factor ' + m.healthFactor.toFixed(4)) + (m.txHash ? ' · ' + m.txHash.slice(0, 16) : ''));
      item.dataset.marker = m.kind;
      item.dataset.ledger = m.ledger;
      if (m.txHash) item.dataset.tx = m.txHash;
      return item;
    }));
  }

  async function refresh() {
    const view = await fetch('/control/health-history').then((r) => r.json());
    if (charts.size === 0) root.replaceChildren();
    if (view.positions.length === 0 && charts.size === 0) root.append(element('small', 'no position with debt yet'));
    const keys = new Set();
    for (const position of view.positions) {
      const key = position.pool + ':' + position.account;
      keys.add(key);
      if (!charts.has(key)) charts.set(key, create(position, view.bounds));
      show(charts.get(key), position, view.bounds);
    }
    for (const [key, chart] of charts) {
      if (keys.has(key)) continue;
      chart.plot.destroy();
      chart.figure.remove();
      charts.delete(key);
    }
    root.dataset.ledger = view.ledger;
    if (view.readError) root.dataset.error = 'the last reading failed: ' + view.readError;
    else delete root.dataset.error;
  }

  const loop = () => refresh()
    .catch(() => { root.dataset.error = 'the health history does not answer'; })
    .finally(() => setTimeout(loop, 2000));
  if (typeof uPlot === 'undefined') root.textContent = 'the chart library did not load (/assets/uplot.js)';
  else loop();
})();
`;
