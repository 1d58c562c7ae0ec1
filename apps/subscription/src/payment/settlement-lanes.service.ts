import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type LedgerKeypair, accountsOnLedger, settlementLanes } from '@rp/ledger';
import { PaymentContext } from './payment-context';
import { SettlementLaneRepository } from './settlement-lanes.repository';

/** A lane this request holds: its key, and the token that proves the lease is ours. */
export interface LeasedLane {
  key: LedgerKeypair;
  token: string;
}

/** How long a lane is held while its settlement is built, recorded and sent (then: until its time bound). */
const BUILD_LEASE_MS = 30_000;
/** How often the lanes on the ledger are looked up again (a lane funded later joins without a restart). */
const REFRESH_MS = 60_000;
const RETRY_MIN_MS = 50;
const RETRY_SPREAD_MS = 100;

/**
 * The settlement lanes: accounts derived from the sponsor key (ADR 009) that exist on the ledger, each settling one
 * payment at a time under a lease shared by every replica; the sponsor itself when none exists. A lane that does
 * not exist is named once in the log, with what to do about it.
 */
@Injectable()
export class SettlementLanes implements OnApplicationBootstrap {
  private readonly logger = new Logger(SettlementLanes.name);
  private usable: LedgerKeypair[] = [];
  private checkedAt = 0;
  private readonly reported = new Set<string>();
  private checking?: Promise<void>;

  constructor(
    private readonly context: PaymentContext,
    private readonly leases: SettlementLaneRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.context.configured) return;
    await this.refresh().catch((error: unknown) =>
      this.logger.warn(`settlement lanes not checked yet (${(error as Error).message}); the sponsor settles for now`),
    );
  }

  /** How many payments can settle in one ledger right now. */
  get count(): number {
    return Math.max(1, this.usable.length);
  }

  /** A free lane, waited for until `deadline` (epoch ms); `undefined` when none came free in time. */
  async lease(deadline: number): Promise<LeasedLane | undefined> {
    if (Date.now() - this.checkedAt > REFRESH_MS) {
      await this.refresh().catch(() => undefined);
    }
    const lanes = this.usable.length > 0 ? this.usable : [this.context.current().settings.sponsor];
    const token = randomUUID();
    for (;;) {
      const start = Math.floor(Math.random() * lanes.length);
      for (let i = 0; i < lanes.length; i += 1) {
        const key = lanes[(start + i) % lanes.length];
        if (await this.leases.tryLease(key.publicKey(), token, new Date(Date.now() + BUILD_LEASE_MS))) {
          return { key, token };
        }
      }
      const pause = RETRY_MIN_MS + Math.random() * RETRY_SPREAD_MS;
      if (Date.now() + pause >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Holds the lane until its settlement can no longer land. */
  holdUntil(lane: LeasedLane, until: Date): Promise<void> {
    return this.leases.extend(lane.key.publicKey(), lane.token, until);
  }

  release(lane: LeasedLane): Promise<void> {
    return this.leases.release(lane.key.publicKey(), lane.token);
  }

  private refresh(): Promise<void> {
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(): Promise<void> {
    const { settings, ledger } = this.context.current();
    const derived = settlementLanes(settings.sponsor, settings.settlementLanes);
    const existing = await accountsOnLedger(
      ledger,
      derived.map((lane) => lane.publicKey()),
    );
    for (const lane of derived) {
      const address = lane.publicKey();
      if (existing.has(address) || this.reported.has(address)) continue;
      this.reported.add(address);
      this.logger.warn(
        `settlement lane ${address} does not exist on the ledger: fund it with 2 XLM to settle more payments per ledger`,
      );
    }
    const usable = derived.filter((lane) => existing.has(lane.publicKey()));
    const lanes = usable.length > 0 ? usable : [settings.sponsor];
    await this.leases.register(lanes.map((lane) => lane.publicKey()));
    if (this.checkedAt === 0 || usable.length !== this.usable.length) {
      this.logger.log(
        usable.length > 0
          ? `${usable.length} settlement lane(s) in use: ${usable.length} payments can settle per ledger`
          : 'no settlement lane exists: the sponsor settles one payment per ledger',
      );
    }
    this.usable = usable;
    this.checkedAt = Date.now();
  }
}
