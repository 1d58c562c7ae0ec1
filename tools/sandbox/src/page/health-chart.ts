import { HEALTH_CHART_SCRIPT } from './health-chart-script';

/**
 * The page's health section: one uPlot chart per position with debt (the health factor over time, the 1.0 line,
 * the level bounds 1.50 / 1.25 / 1.10, alert, notice and close markers), fed by `GET /control/health-history`
 * every two seconds without reloading the page. uPlot comes from the sandbox's own server (`/assets/uplot.js`).
 *
 * Each chart's `<figure>` carries `data-pool`, `data-account`, `data-points`, `data-alerts`, `data-notices` and
 * `data-closes`, and lists its markers as `<li data-marker="alert|notice|close" data-ledger=… data-tx=…>`: what
 * a reader and a browser test read without looking at pixels.
 */
export function healthChartPanel(): string {
  return `<link rel="stylesheet" href="/assets/uplot.css">
<div id="health-charts" data-ledger="0"><small>reading the health history…</small></div>
<script src="/assets/uplot.js"></script>
<script>${HEALTH_CHART_SCRIPT}</script>`;
}
