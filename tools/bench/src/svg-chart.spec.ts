import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BarChart,
  type LineChart,
  escapeXml,
  formatNumber,
  niceTicks,
  renderChart,
  writeChart,
} from './svg-chart';

const line: LineChart = {
  kind: 'line',
  title: 'Round time against watched wallets',
  caption: '2026-11-26, 2 × cpu, node v24.21.0',
  xLabel: 'watched wallets',
  yLabel: 'ms',
  xScale: 'log',
  series: [
    {
      name: 'cold',
      points: [
        [10_000, 900],
        [1_000, 120],
        [50_000, 4_100],
      ],
    },
    {
      name: 'warm median',
      points: [
        [1_000, 20],
        [10_000, 150],
        [50_000, 700],
      ],
    },
  ],
};

const bar: BarChart = {
  kind: 'bar',
  title: 'GET /api/v1/keys/me latency',
  yLabel: 'ms',
  categories: ['p50', 'p90', 'p99', 'p99.9'],
  series: [
    { name: 'direct', values: [0.4, 0.6, 1.2, 3] },
    { name: 'gateway', values: [0.7, 1, 2.1, 4.5] },
  ],
};

/** The numbers an SVG attribute holds, by attribute name, in document order. */
const numbers = (svg: string, element: string, attribute: string) =>
  [...svg.matchAll(new RegExp(`<${element}\\b[^>]*\\b${attribute}="([^"]+)"`, 'g'))].map((m) => Number(m[1]));

describe('niceTicks', () => {
  it('steps by 1, 2, 2.5 or 5 × 10^k from 0 to at least the maximum', () => {
    expect(niceTicks(4_100)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(niceTicks(4.5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(niceTicks(0.37)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(niceTicks(12)).toEqual([0, 2.5, 5, 7.5, 10, 12.5]);
  });

  it('gives a usable axis for no data, zero or a non-number', () => {
    for (const max of [0, -3, Number.NaN, Number.POSITIVE_INFINITY])
      expect(niceTicks(max)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});

describe('formatNumber', () => {
  it('groups integers by thousands without the locale, and keeps three significant digits below 100', () => {
    expect(formatNumber(50_000)).toBe('50,000');
    expect(formatNumber(1_234_567)).toBe('1,234,567');
    expect(formatNumber(999)).toBe('999');
    expect(formatNumber(123.6)).toBe('124');
    expect(formatNumber(0.3456)).toBe('0.346');
    expect(formatNumber(2.5)).toBe('2.5');
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(-1_500)).toBe('-1,500');
  });
});

describe('escapeXml', () => {
  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
  });
});

describe('renderChart', () => {
  it('gives the same bytes for the same chart', () => {
    expect(renderChart(line)).toBe(renderChart(structuredClone(line)));
    expect(renderChart(bar)).toBe(renderChart(structuredClone(bar)));
  });

  it('draws a line chart: title, caption, legend, a tick per measured x, points in x order, y rising with the value', () => {
    const svg = renderChart(line);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('>Round time against watched wallets</text>');
    expect(svg).toContain('>2026-11-26, 2 × cpu, node v24.21.0</text>');
    expect(svg).toContain('>warm median</text>');
    for (const label of ['1,000', '10,000', '50,000', '5,000']) expect(svg).toContain(`>${label}</text>`);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    const cx = numbers(svg, 'circle', 'cx');
    const cy = numbers(svg, 'circle', 'cy');
    // The cold series, sorted by x: 1k, 10k, 50k; on the log scale 10k sits left of the middle of 1k..50k.
    expect(cx.slice(0, 3)).toEqual([...cx.slice(0, 3)].sort((a, b) => a - b));
    expect(cx[1] - cx[0]).toBeGreaterThan(cx[2] - cx[1]);
    expect(cy[0]).toBeGreaterThan(cy[1]);
    expect(cy[1]).toBeGreaterThan(cy[2]);
  });

  it('puts x linearly when asked, and leaves out points that are not numbers', () => {
    const svg = renderChart({
      ...line,
      xScale: 'linear',
      series: [
        {
          name: 's',
          points: [
            [0, 1],
            [50, 2],
            [100, 3],
            [150, Number.NaN],
          ],
        },
      ],
    });
    const cx = numbers(svg, 'circle', 'cx');
    expect(cx).toHaveLength(3);
    expect(cx[1] - cx[0]).toBeCloseTo(cx[2] - cx[1], 1);
    expect(svg).not.toContain('NaN');
  });

  it('draws grouped bars whose heights are proportional to the values, with their values written above', () => {
    const svg = renderChart(bar);
    const heights = numbers(svg, 'rect', 'height').slice(1 + 2); // background, then the two legend swatches
    expect(heights).toHaveLength(8);
    // Bars go category by category: direct p50, gateway p50, direct p90, ...
    expect(heights[1] / heights[0]).toBeCloseTo(0.7 / 0.4, 1);
    expect(heights[7] / heights[6]).toBeCloseTo(4.5 / 3, 1);
    for (const label of ['p50', 'p90', 'p99', 'p99.9', '0.4', '4.5']) expect(svg).toContain(`>${label}</text>`);
  });

  it('escapes every text it writes', () => {
    const svg = renderChart({ ...bar, title: 'a <b> & "c"', categories: ['<p50>', 'p90', 'p99', 'p99.9'] });
    expect(svg).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
    expect(svg).toContain('>&lt;p50&gt;</text>');
    expect(svg).not.toContain('<b>');
    expect(svg).not.toContain('<p50>');
  });
});

describe('writeChart', () => {
  it('writes <dir>/<name>.svg relative to the root, and nothing for an empty dir', () => {
    const root = mkdtempSync(join(tmpdir(), 'rp-svg-'));
    try {
      const file = writeChart(root, 'gateway', bar, 'docs/benchmarks');
      expect(file).toBe(join(root, 'docs/benchmarks/gateway.svg'));
      expect(readFileSync(file as string, 'utf8')).toBe(renderChart(bar));
      expect(writeChart(root, 'gateway', bar, '')).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
