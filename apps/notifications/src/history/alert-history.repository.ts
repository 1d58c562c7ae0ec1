import { Injectable } from '@nestjs/common';
import { type Collection, type CollectionDefinition, DocumentStore, type Filter } from '@rp/persistence';
import {
  ACTION_RECORDS,
  ALERT_RECORDS,
  type ActionRecord,
  type AlertRecord,
  OUTCOME_RECORDS,
  type OutcomeRecord,
} from './alert-history-records';

/** What a wallet's alerts are filtered by. */
export interface AlertFilter {
  walletAddress: string;
  since?: Date;
  /** `levelRank` of the lowest level wanted. */
  minRank?: number;
}

/** Alerts, their per-channel outcomes and the agent's closes, in the app's database (any of the three drivers). */
@Injectable()
export class AlertHistoryRepository {
  private readonly opened = new Map<string, Promise<Collection<never>>>();

  constructor(private readonly store: DocumentStore) {}

  private collection<T extends { id: string }>(definition: CollectionDefinition): Promise<Collection<T>> {
    let opened = this.opened.get(definition.name);
    if (!opened) {
      opened = this.store.collection<never>(definition);
      opened.catch(() => this.opened.delete(definition.name));
      this.opened.set(definition.name, opened);
    }
    return opened as Promise<unknown> as Promise<Collection<T>>;
  }

  /** One write per call; an alert or outcome stored before (same id) is skipped. */
  async addAlerts(alerts: readonly AlertRecord[]): Promise<void> {
    if (alerts.length > 0) await (await this.collection<AlertRecord>(ALERT_RECORDS)).insertMany(alerts);
  }

  async addOutcomes(outcomes: readonly OutcomeRecord[]): Promise<void> {
    if (outcomes.length > 0) await (await this.collection<OutcomeRecord>(OUTCOME_RECORDS)).insertMany(outcomes);
  }

  async addAction(action: ActionRecord): Promise<void> {
    await (await this.collection<ActionRecord>(ACTION_RECORDS)).insertMany([action]);
  }

  /** A wallet's alerts, newest first, and how many match in all. */
  async alerts(filter: AlertFilter, limit: number): Promise<{ alerts: AlertRecord[]; total: number }> {
    const alerts = await this.collection<AlertRecord>(ALERT_RECORDS);
    const query: Filter = {
      walletAddress: filter.walletAddress,
      ...(filter.since && { evaluatedAt: { $gte: filter.since } }),
      ...(filter.minRank !== undefined && { levelRank: { $gte: filter.minRank } }),
    };
    const [found, total] = await Promise.all([
      alerts.find(query, { sort: { field: 'evaluatedAt', direction: 'desc' }, limit }),
      alerts.count(query),
    ]);
    return { alerts: found, total };
  }

  /** The outcomes of a wallet's alerts evaluated at or after `since`. */
  async outcomes(walletAddress: string, since: Date): Promise<OutcomeRecord[]> {
    return (await this.collection<OutcomeRecord>(OUTCOME_RECORDS)).find({
      walletAddress,
      evaluatedAt: { $gte: since },
    });
  }

  /** An account's reported closes of a wallet, newest first. */
  async actions(accountId: string, walletAddress: string, since: Date | undefined, limit: number) {
    const query: Filter = { accountId, walletAddress, ...(since && { occurredAt: { $gte: since } }) };
    return (await this.collection<ActionRecord>(ACTION_RECORDS)).find(query, {
      sort: { field: 'occurredAt', direction: 'desc' },
      limit,
    });
  }
}
