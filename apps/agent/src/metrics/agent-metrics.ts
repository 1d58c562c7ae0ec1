import type { CloseOutcome } from '../store/agent-store';

/** Upper bounds (seconds) of the decision-to-send histogram: the presigned path should sit in the first ones. */
const SEND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.005, 0.025, 0.1, 0.5, 2.5];

/**
 * The agent's Prometheus metrics, written out by hand: prom-client would add memory for four series (the agent
 * keeps within 150 MB). Text exposition format 0.0.4.
 */
export class AgentMetrics {
  private readonly polls = new Map<string, number>();
  private readonly closes = new Map<string, number>();
  private readonly sendBuckets = SEND_BUCKETS.map(() => 0);
  private sendCount = 0;
  private sendSum = 0;
  private readonly sendByPath = new Map<string, number>();
  presignedAgeSeconds = 0;
  presignedEntries = 0;
  private readonly requests = new Map<string, { buckets: number[]; count: number; sum: number }>();
  private readonly paymentRefusals = new Map<string, number>();
  private readonly payments = new Map<string, number>();
  private readonly ownerEvents = new Map<string, number>();
  private readonly refusedTransactions = new Map<string, number>();

  /** One answered HTTP request, as every app reports them (`http_request_duration_seconds`). */
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `method="${method}",route="${route}",status_code="${status}"`;
    const entry = this.requests.get(key) ?? { buckets: HTTP_BUCKETS.map(() => 0), count: 0, sum: 0 };
    entry.count += 1;
    entry.sum += seconds;
    HTTP_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) entry.buckets[i] += 1;
    });
    this.requests.set(key, entry);
  }

  poll(mode: string): void {
    this.polls.set(mode, (this.polls.get(mode) ?? 0) + 1);
  }

  close(outcome: CloseOutcome): void {
    this.closes.set(outcome, (this.closes.get(outcome) ?? 0) + 1);
  }

  /** Time from the decision to close to the transaction handed to `sendTransaction`. */
  decisionToSend(seconds: number, path: 'presigned' | 'rebuilt'): void {
    this.sendCount += 1;
    this.sendSum += seconds;
    this.sendByPath.set(path, (this.sendByPath.get(path) ?? 0) + 1);
    SEND_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) this.sendBuckets[i] += 1;
    });
  }

  /** A 402 offer refused by the purchase limits, by reason (nothing signed). */
  paymentRefused(reason: string): void {
    this.paymentRefusals.set(reason, (this.paymentRefusals.get(reason) ?? 0) + 1);
  }

  /** A transaction the signing rule refused, by reason (nothing signed or sent). */
  refusedTransaction(reason: string): void {
    this.refusedTransactions.set(reason, (this.refusedTransactions.get(reason) ?? 0) + 1);
  }

  /** A payment for the key: `signed`, then `granted`, `refused` (by the service) or `expired`. */
  payment(outcome: string): void {
    this.payments.set(outcome, (this.payments.get(outcome) ?? 0) + 1);
  }

  /** An owner's event the service took (`delivered`) or refused (`rejected`). */
  ownerEvent(type: string, outcome: string): void {
    const key = `type="${type}",outcome="${outcome}"`;
    this.ownerEvents.set(key, (this.ownerEvents.get(key) ?? 0) + 1);
  }

  render(): string {
    const lines: string[] = [
      '# HELP agent_polls_total Risk evaluations, by the mode they ran in.',
      '# TYPE agent_polls_total counter',
      ...[...this.polls].map(([mode, count]) => `agent_polls_total{mode="${mode}"} ${count}`),
      '# HELP agent_closes_total Close attempts, by outcome (an attempt counts once per outcome it reaches).',
      '# TYPE agent_closes_total counter',
      ...[...this.closes].map(([outcome, count]) => `agent_closes_total{outcome="${outcome}"} ${count}`),
      '# HELP agent_presigned_entries Presigned closes kept ready.',
      '# TYPE agent_presigned_entries gauge',
      `agent_presigned_entries ${this.presignedEntries}`,
      '# HELP agent_presigned_age_seconds Age of the oldest presigned close.',
      '# TYPE agent_presigned_age_seconds gauge',
      `agent_presigned_age_seconds ${this.presignedAgeSeconds}`,
      '# HELP agent_sends_total Closes handed to sendTransaction, by path (presigned or rebuilt).',
      '# TYPE agent_sends_total counter',
      ...[...this.sendByPath].map(([path, count]) => `agent_sends_total{path="${path}"} ${count}`),
      '# HELP agent_decision_to_send_seconds Time from the decision to close to sendTransaction.',
      '# TYPE agent_decision_to_send_seconds histogram',
      ...SEND_BUCKETS.map((bound, i) => `agent_decision_to_send_seconds_bucket{le="${bound}"} ${this.sendBuckets[i]}`),
      `agent_decision_to_send_seconds_bucket{le="+Inf"} ${this.sendCount}`,
      `agent_decision_to_send_seconds_sum ${this.sendSum}`,
      `agent_decision_to_send_seconds_count ${this.sendCount}`,
      '# HELP http_request_duration_seconds Time to answer an HTTP request.',
      '# TYPE http_request_duration_seconds histogram',
      ...[...this.requests].flatMap(([labels, entry]) => [
        ...HTTP_BUCKETS.map(
          (bound, i) => `http_request_duration_seconds_bucket{app="agent",${labels},le="${bound}"} ${entry.buckets[i]}`,
        ),
        `http_request_duration_seconds_bucket{app="agent",${labels},le="+Inf"} ${entry.count}`,
        `http_request_duration_seconds_sum{app="agent",${labels}} ${entry.sum}`,
        `http_request_duration_seconds_count{app="agent",${labels}} ${entry.count}`,
      ]),
      '# HELP agent_payment_refusals_total Offers of the 402 refused by the purchase limits, by reason.',
      '# TYPE agent_payment_refusals_total counter',
      ...[...this.paymentRefusals].map(([reason, count]) => `agent_payment_refusals_total{reason="${reason}"} ${count}`),
      '# HELP agent_payments_total Payments for the API key, by outcome (signed, granted, refused, expired).',
      '# TYPE agent_payments_total counter',
      ...[...this.payments].map(([outcome, count]) => `agent_payments_total{outcome="${outcome}"} ${count}`),
      "# HELP agent_owner_events_total Owner's events the service took or refused, by type.",
      '# TYPE agent_owner_events_total counter',
      ...[...this.ownerEvents].map(([labels, count]) => `agent_owner_events_total{${labels}} ${count}`),
      '# HELP agent_refused_transactions_total Transactions the signing rule refused to sign, by reason.',
      '# TYPE agent_refused_transactions_total counter',
      ...[...this.refusedTransactions].map(([reason, count]) => `agent_refused_transactions_total{reason="${reason}"} ${count}`),
      '# HELP process_resident_memory_bytes Resident memory size in bytes.',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    ];
    return `${lines.join('\n')}\n`;
  }
}
