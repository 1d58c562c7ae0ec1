import pino from 'pino';
import { AgentMetrics } from '../metrics/agent-metrics';
import { type SigningRefusal, SigningRefusals } from './signing-refusals';

describe('signing refusals', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });

  it('logs one warning, counts by reason, tells the listeners and keeps the latest ten, newest first', () => {
    const metrics = new AgentMetrics();
    const refusals = new SigningRefusals(logger, metrics);
    const heard: SigningRefusal[] = [];
    refusals.onRefusal((refusal) => heard.push(refusal));
    refusals.onRefusal(() => {
      throw new Error('a broken listener changes nothing');
    });
    lines.length = 0;
    for (let i = 0; i < 12; i += 1) {
      refusals.record({ source: i % 2 ? 'ledger' : 'service', reason: i === 11 ? 'fee_above_cap' : 'unknown_pool', pool: 'P', detail: `d${i}` });
    }
    expect(refusals.view()).toHaveLength(10);
    expect(refusals.view()[0]).toMatchObject({ source: 'ledger', reason: 'fee_above_cap' });
    expect(Object.keys(refusals.view()[0]).sort()).toEqual(['at', 'reason', 'source']);
    expect(heard).toHaveLength(12);
    expect(lines.filter((line) => line['msg'] === 'refused to sign a transaction: nothing signed or sent')).toHaveLength(12);
    expect(metrics.render()).toContain('agent_refused_transactions_total{reason="unknown_pool"} 11\n');
  });
});
