import { AgentMetrics } from './agent-metrics';

describe('agent metrics', () => {
  it('renders polls, closes by outcome, presigned age and the decision-to-send histogram', () => {
    const metrics = new AgentMetrics();
    metrics.poll('service');
    metrics.poll('service');
    metrics.close('submitted');
    metrics.close('confirmed');
    metrics.decisionToSend(0.004, 'presigned');
    metrics.decisionToSend(0.7, 'rebuilt');
    metrics.presignedEntries = 1;
    metrics.presignedAgeSeconds = 12.5;
    const text = metrics.render();
    expect(text).toContain('agent_polls_total{mode="service"} 2\n');
    expect(text).toContain('agent_closes_total{outcome="confirmed"} 1\n');
    expect(text).toContain('agent_presigned_age_seconds 12.5\n');
    expect(text).toContain('agent_decision_to_send_seconds_bucket{le="0.005"} 1\n');
    expect(text).toContain('agent_decision_to_send_seconds_bucket{le="1"} 2\n');
    expect(text).toContain('agent_decision_to_send_seconds_count 2\n');
    expect(text).toContain('agent_sends_total{path="presigned"} 1\n');
  });

  it('renders the transactions the signing rule refused, by reason', () => {
    const metrics = new AgentMetrics();
    metrics.refusedTransaction('unknown_pool');
    metrics.refusedTransaction('unknown_pool');
    metrics.refusedTransaction('fee_above_cap');
    const text = metrics.render();
    expect(text).toContain('agent_refused_transactions_total{reason="unknown_pool"} 2\n');
    expect(text).toContain('agent_refused_transactions_total{reason="fee_above_cap"} 1\n');
  });

  it("renders refused offers by reason, payments by outcome and the owner's events", () => {
    const metrics = new AgentMetrics();
    metrics.paymentRefused('wrong_pay_to');
    metrics.paymentRefused('wrong_pay_to');
    metrics.payment('signed');
    metrics.ownerEvent('subscription_renewed', 'delivered');
    const text = metrics.render();
    expect(text).toContain('agent_payment_refusals_total{reason="wrong_pay_to"} 2\n');
    expect(text).toContain('agent_payments_total{outcome="signed"} 1\n');
    expect(text).toContain('agent_owner_events_total{type="subscription_renewed",outcome="delivered"} 1\n');
  });
});
