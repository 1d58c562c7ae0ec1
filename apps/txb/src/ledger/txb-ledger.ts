import { Injectable } from '@nestjs/common';
import type { LedgerNetwork } from '@rp/contracts';
import { BlendPoolReader, LedgerRpc, SwapReceiverClient, networkFromPassphrase } from '@rp/ledger';
import { Registry } from 'prom-client';
import { TxbConfig } from '../config/txb.config';

/** No `CONTRACT_RPC_URL`: nothing that needs the ledger can be done. */
export class LedgerNotConfiguredError extends Error {
  override readonly name = 'LedgerNotConfiguredError';

  constructor() {
    super('CONTRACT_RPC_URL is not set: the transaction builder has no ledger to read or submit to');
  }
}

/** One attempt's deadline and the attempts per call: a build (four rounds of calls) stays under the gateway's 30 s. */
const RPC_TIMEOUT_MS = 4000;
const RPC_ATTEMPTS = 2;

/**
 * The ledger as txb reaches it: the configured RPC (`CONTRACT_RPC_URL`), the RPCs a caller may name on submit
 * (`TXB_ALLOWED_RPC_URLS`, clients made on first use), the network they serve, a Blend pool reader and the UNWIND
 * receiver. Present or absent as a whole: `rpc()` is the one guard.
 */
@Injectable()
export class TxbLedger {
  private readonly primary?: LedgerRpc;
  private readonly allowed: ReadonlyMap<string, string>;
  private readonly others = new Map<string, LedgerRpc>();
  private reader?: Promise<BlendPoolReader>;

  constructor(
    private readonly config: TxbConfig,
    private readonly registry: Registry,
  ) {
    if (config.CONTRACT_RPC_URL) this.primary = this.client(config.CONTRACT_RPC_URL);
    this.allowed = new Map(config.TXB_ALLOWED_RPC_URLS.map((url) => [normaliseUrl(url), url]));
  }

  get configured(): boolean {
    return this.primary !== undefined;
  }

  rpc(): LedgerRpc {
    if (!this.primary) throw new LedgerNotConfiguredError();
    return this.primary;
  }

  /** Whether a caller may submit through `url`: only the operator's list counts, compared as parsed URLs. */
  isAllowedRpcUrl(url: string): boolean {
    return this.allowed.has(normaliseUrl(url));
  }

  /** The RPC for an allowed caller-named URL, else the configured one. Never an arbitrary URL. */
  rpcFor(url: string | undefined): LedgerRpc {
    const listed = url === undefined ? undefined : this.allowed.get(normaliseUrl(url));
    if (listed === undefined) return this.rpc();
    let client = this.others.get(listed);
    if (!client) {
      client = this.client(listed);
      this.others.set(listed, client);
    }
    return client;
  }

  /** The passphrase the configured RPC serves (asked once). */
  passphrase(): Promise<string> {
    return this.rpc().networkPassphrase();
  }

  async network(): Promise<LedgerNetwork> {
    return networkFromPassphrase(await this.passphrase());
  }

  poolReader(): Promise<BlendPoolReader> {
    const rpc = this.rpc();
    this.reader ??= rpc.networkPassphrase().then(
      (networkPassphrase) => new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase }),
      (error: unknown) => {
        this.reader = undefined;
        throw error;
      },
    );
    return this.reader;
  }

  /** The UNWIND receiver (`TXB_UNWIND_RECEIVER`), or `undefined` when none is configured. */
  receiver(): SwapReceiverClient | undefined {
    const contract = this.config.TXB_UNWIND_RECEIVER;
    return contract ? new SwapReceiverClient(this.rpc(), contract) : undefined;
  }

  private client(rpcUrl: string): LedgerRpc {
    return new LedgerRpc({ rpcUrl, timeoutMs: RPC_TIMEOUT_MS, maxAttempts: RPC_ATTEMPTS, registry: this.registry });
  }
}

function normaliseUrl(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}
