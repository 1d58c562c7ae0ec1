/**
 * The Grafana dashboard and the Prometheus alert rules in k8s/monitoring: valid JSON and YAML, the fields Grafana
 * and Prometheus need, and every metric they query is one an app exports (read from the code's registrations:
 * prom-client constructors, the agent's hand-written exposition, exported metric-name constants). `promtool` is not
 * a dependency of the workspace, so the rules are checked by structure here; docs/operations.md says how to run
 * `promtool check rules` on them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(__dirname, '../../..');
const monitoring = join(root, 'k8s/monitoring');

interface Panel {
  id: number;
  title: string;
  type: string;
  datasource: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets: { refId: string; expr: string }[];
}
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboard = JSON.parse(readFileSync(join(monitoring, 'grafana-dashboard.json'), 'utf8')) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string }[] };
};
const rules = parse(readFileSync(join(monitoring, 'alert-rules.yaml'), 'utf8')) as {
  groups: { name: string; rules: Rule[] }[];
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !/\.(spec|int-spec|e2e-spec|bench)\.ts$|\.int-support\.ts$/.test(name) ? [path] : [];
  });
}

/** Series names the apps expose: a histogram's `_bucket`, `_sum` and `_count` too. */
function exportedSeries(sources: string[]): Set<string> {
  const series = new Set<string>();
  const add = (name: string, type: string) => {
    series.add(name);
    if (/histogram|summary/i.test(type)) for (const suffix of ['_bucket', '_sum', '_count']) series.add(name + suffix);
  };
  for (const text of sources) {
    for (const m of text.matchAll(/new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)) {
      add(m[2], m[1]);
    }
    for (const m of text.matchAll(/'# TYPE ([a-z_:][a-z0-9_:]*) (counter|gauge|histogram|summary)'/g)) add(m[1], m[2]);
    // A name kept in a constant (the ledger's RPC histogram): `export const X_METRIC = 'name'` used by `name: X_METRIC`.
    for (const m of text.matchAll(/const (\w+_METRIC) = '([a-z_:][a-z0-9_:]*)'/g)) {
      const use = new RegExp(`new (Histogram|Counter|Gauge|Summary)\\(\\{\\s*name: ${m[1]}\\b`).exec(text);
      if (use) add(m[2], use[1]);
    }
  }
  return series;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);

/** The series names a PromQL expression reads (label matchers, ranges, grouping and strings set aside). */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:]|\s*\()/g)]
    .map((m) => m[1])
    .filter((name) => !KEYWORDS.has(name));
}

const exported = exportedSeries(
  [...sourceFiles(join(root, 'apps')), ...sourceFiles(join(root, 'libs'))].map((path) => readFileSync(path, 'utf8')),
);
const dashboardExprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
const alertRules = rules.groups.flatMap((group) => group.rules);

describe('the monitoring files', () => {
  it('read the exported series from the code (and would notice a name no app exports)', () => {
    for (const name of [
      'http_request_duration_seconds_bucket',
      'notifications_queue_depth',
      'notifications_dlq_size',
      'rms_monitor_round_duration_seconds_count',
      'agent_closes_total',
      'agent_refused_transactions_total',
      'subscription_settlement_oldest_unresolved_seconds',
      'ledger_rpc_request_duration_seconds_bucket',
    ]) {
      expect(exported).toContain(name);
    }
    expect(exported).not.toContain('notifications_queue_depth_bucket');
    expect(metricsOf('sum by (app) (rate(http_requests_total{status_code=~"5.."}[5m])) > 0.5 or up')).toEqual([
      'http_requests_total',
      'up',
    ]);
  });

  it('the dashboard queries only series an app exports', () => {
    const unknown = dashboardExprs.flatMap(metricsOf).filter((name) => !exported.has(name));
    expect(unknown).toEqual([]);
  });

  it('the alert rules query only series an app exports', () => {
    const unknown = alertRules
      .map((rule) => rule.expr)
      .flatMap(metricsOf)
      .filter((name) => !exported.has(name));
    expect(unknown).toEqual([]);
  });

  it('the dashboard shows what operators look at, each panel placed and bound to the chosen Prometheus', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')?.type).toBe('datasource');
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.title).toBeTruthy();
      expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const target of panel.targets) expect(metricsOf(target.expr).length).toBeGreaterThan(0);
    }
    const used = new Set(dashboardExprs.flatMap(metricsOf));
    for (const name of [
      'http_request_duration_seconds_count', // request rate and 5xx
      'http_request_duration_seconds_bucket', // latency
      'notifications_queue_depth',
      'notifications_dlq_size',
      'rms_monitor_round_duration_seconds_bucket',
      'agent_closes_total',
    ]) {
      expect(used).toContain(name);
    }
  });

  it('every alert has a unique name, an expression, a paging severity and words for whoever is paged', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    for (const group of rules.groups) {
      expect(group.name).toBeTruthy();
      expect(group.rules.length).toBeGreaterThan(0);
    }
    const names = alertRules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of alertRules) {
      expect(rule.alert).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(rule.record).toBeUndefined();
      expect(typeof rule.expr).toBe('string');
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(rule.labels?.severity).toBe('page');
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      // Template variables Prometheus knows: `$value` and `$labels.<label>` only.
      for (const text of Object.values(rule.annotations ?? {})) {
        for (const m of text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) expect(m[1]).toMatch(/^\$value$|^\$labels\.\w+$/);
      }
    }
    const used = new Set(alertRules.flatMap((rule) => metricsOf(rule.expr)));
    for (const name of [
      'notifications_dlq_size',
      'rms_monitor_round_duration_seconds_bucket',
      'agent_refused_transactions_total',
      'subscription_settlement_oldest_unresolved_seconds',
    ]) {
      expect(used).toContain(name);
    }
  });
});
