import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * A small SVG chart writer for the benchmark curves in docs/benchmarks.md (no dependency): a line chart (one or
 * more series against a numeric x axis, linear or logarithmic) and a grouped bar chart (categories × series).
 * The same chart always gives the same bytes (fixed layout, fixed palette, numbers formatted without locale), so a
 * committed chart only changes when its figures do.
 */

export interface LineSeries {
  readonly name: string;
  readonly points: readonly (readonly [x: number, y: number])[];
}

export interface LineChart {
  readonly kind: 'line';
  readonly title: string;
  /** A second line under the title: where and when the figures were measured. */
  readonly caption?: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** `log` for sizes spread over decades (1k, 10k, 50k wallets). Default `linear`. */
  readonly xScale?: 'linear' | 'log';
  readonly series: readonly LineSeries[];
}

export interface BarChart {
  readonly kind: 'bar';
  readonly title: string;
  readonly caption?: string;
  readonly yLabel: string;
  /** The groups along the x axis (p50, p90, ...). */
  readonly categories: readonly string[];
  /** One bar per category and series; `values[i]` belongs to `categories[i]`. */
  readonly series: readonly { readonly name: string; readonly values: readonly number[] }[];
}

export type Chart = LineChart | BarChart;

const WIDTH = 720;
const HEIGHT = 400;
const PLOT = { left: 72, right: WIDTH - 24, top: 76, bottom: HEIGHT - 56 };
/** Colour-blind safe (Okabe-Ito). */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

/** Text for an SVG text node or attribute. */
export function escapeXml(text: string): string {
  const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

/** A number for a label: integers grouped by thousands (1,000), others with three significant digits at most. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude >= 100 || Number.isInteger(magnitude)) {
    return sign + String(Math.round(magnitude)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  const decimals = Math.min(4, Math.max(0, 2 - Math.floor(Math.log10(magnitude))));
  return sign + magnitude.toFixed(decimals).replace(/\.?0+$/, '');
}

/** Ticks from 0 to at least `max`, about `count` of them, on a 1 / 2 / 2.5 / 5 × 10^k step. */
export function niceTicks(max: number, count = 5): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const rough = top / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1] < top; i += 1) {
    ticks.push(Number((i * step).toPrecision(12)));
  }
  return ticks;
}

/** Two decimals at most in coordinates: stable output, small files. */
const at = (value: number) => String(Math.round(value * 100) / 100);

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${at(x)}" y="${at(y)}"${attributes ? ` ${attributes}` : ''}>${escapeXml(content)}</text>`;
}

function frame(chart: Chart, yTicks: readonly number[], y: (v: number) => number, names: readonly string[]): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} font-size="12">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(WIDTH / 2, 22, chart.title, 'text-anchor="middle" font-size="15" font-weight="bold"'),
  ];
  if (chart.caption) out.push(text(WIDTH / 2, 40, chart.caption, 'text-anchor="middle" fill="#555555"'));
  for (const tick of yTicks) {
    out.push(
      `<line x1="${PLOT.left}" y1="${at(y(tick))}" x2="${PLOT.right}" y2="${at(y(tick))}" stroke="#e5e5e5"/>`,
      text(PLOT.left - 6, y(tick) + 4, formatNumber(tick), 'text-anchor="end"'),
    );
  }
  const middle = (PLOT.top + PLOT.bottom) / 2;
  out.push(
    text(16, middle, chart.yLabel, `text-anchor="middle" transform="rotate(-90 16 ${at(middle)})"`),
    `<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="#333333"/>`,
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="#333333"/>`,
  );
  // Legend: one row above the plot, left to right.
  let x = PLOT.left;
  names.forEach((name, i) => {
    out.push(
      `<rect x="${at(x)}" y="54" width="12" height="12" fill="${PALETTE[i % PALETTE.length]}"/>`,
      text(x + 16, 64, name),
    );
    x += 16 + name.length * 7 + 20;
  });
  return out;
}

function renderLine(chart: LineChart): string {
  const series = chart.series.map((s) => ({
    name: s.name,
    points: s.points
      .filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py) && (chart.xScale !== 'log' || px > 0))
      .slice()
      .sort((a, b) => a[0] - b[0]),
  }));
  const xs = [...new Set(series.flatMap((s) => s.points.map(([px]) => px)))].sort((a, b) => a - b);
  const yTicks = niceTicks(Math.max(0, ...series.flatMap((s) => s.points.map(([, py]) => py))));
  const yTop = yTicks[yTicks.length - 1];
  const y = (v: number) => PLOT.bottom - (v / yTop) * (PLOT.bottom - PLOT.top);
  const scale = chart.xScale === 'log' ? Math.log10 : (v: number) => v;
  const [low, high] = [scale(xs[0] ?? 0), scale(xs[xs.length - 1] ?? 1)];
  const inset = 24;
  const x = (v: number) =>
    high === low
      ? (PLOT.left + PLOT.right) / 2
      : PLOT.left + inset + ((scale(v) - low) / (high - low)) * (PLOT.right - PLOT.left - 2 * inset);
  const out = frame(
    chart,
    yTicks,
    y,
    series.map((s) => s.name),
  );
  // X ticks at the measured sizes: a benchmark curve has few points, each worth reading off.
  for (const v of xs) {
    out.push(
      `<line x1="${at(x(v))}" y1="${PLOT.bottom}" x2="${at(x(v))}" y2="${PLOT.bottom + 5}" stroke="#333333"/>`,
      text(x(v), PLOT.bottom + 18, formatNumber(v), 'text-anchor="middle"'),
    );
  }
  out.push(text((PLOT.left + PLOT.right) / 2, HEIGHT - 14, chart.xLabel, 'text-anchor="middle"'));
  series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const path = s.points.map(([px, py]) => `${at(x(px))},${at(y(py))}`).join(' ');
    if (s.points.length > 1) out.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const [px, py] of s.points) {
      out.push(
        `<circle cx="${at(x(px))}" cy="${at(y(py))}" r="3.5" fill="${colour}"><title>${escapeXml(`${s.name}: ${formatNumber(px)} → ${formatNumber(py)}`)}</title></circle>`,
      );
    }
  });
  out.push('</svg>', '');
  return out.join('\n');
}

function renderBar(chart: BarChart): string {
  const value = (s: number, c: number) => {
    const v = chart.series[s]?.values[c];
    return v !== undefined && Number.isFinite(v) ? Math.max(0, v) : undefined;
  };
  const all = chart.series.flatMap((_, s) => chart.categories.map((__, c) => value(s, c) ?? 0));
  const yTicks = niceTicks(Math.max(0, ...all));
  const yTop = yTicks[yTicks.length - 1];
  const y = (v: number) => PLOT.bottom - (v / yTop) * (PLOT.bottom - PLOT.top);
  const out = frame(
    chart,
    yTicks,
    y,
    chart.series.map((s) => s.name),
  );
  const group = (PLOT.right - PLOT.left) / Math.max(1, chart.categories.length);
  const bar = (group * 0.8) / Math.max(1, chart.series.length);
  chart.categories.forEach((category, c) => {
    const left = PLOT.left + c * group + group * 0.1;
    out.push(text(PLOT.left + (c + 0.5) * group, PLOT.bottom + 18, category, 'text-anchor="middle"'));
    chart.series.forEach((s, i) => {
      const v = value(i, c);
      if (v === undefined) return;
      const bx = left + i * bar;
      out.push(
        `<rect x="${at(bx + 1)}" y="${at(y(v))}" width="${at(bar - 2)}" height="${at(PLOT.bottom - y(v))}" fill="${PALETTE[i % PALETTE.length]}"><title>${escapeXml(`${s.name}, ${category}: ${formatNumber(v)}`)}</title></rect>`,
        text(bx + bar / 2, y(v) - 4, formatNumber(v), 'text-anchor="middle" font-size="10"'),
      );
    });
  });
  out.push('</svg>', '');
  return out.join('\n');
}

/** The chart as an SVG document. */
export function renderChart(chart: Chart): string {
  return chart.kind === 'line' ? renderLine(chart) : renderBar(chart);
}

/**
 * Writes `<dir>/<name>.svg`, where dir is `BENCH_SVG_DIR` (relative to `root`; default `docs/benchmarks`); an
 * empty `BENCH_SVG_DIR` writes nothing. Returns the file written, or undefined.
 */
export function writeChart(
  root: string,
  name: string,
  chart: Chart,
  dir = process.env['BENCH_SVG_DIR'] ?? 'docs/benchmarks',
): string | undefined {
  if (dir === '') return undefined;
  const folder = isAbsolute(dir) ? dir : join(root, dir);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}.svg`);
  writeFileSync(file, renderChart(chart));
  return file;
}

/** Where and when: "2026-11-26, 2 × Intel Xeon ..., node v24.21.0", for a chart's caption. */
export function machineCaption(now = new Date()): string {
  const model = (cpus()[0]?.model ?? 'cpu').replace(/\s+/g, ' ').trim();
  return `${now.toISOString().slice(0, 10)}, ${cpus().length} × ${model}, node ${process.version}`;
}
