import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AccountOwners } from '@rp/contracts';
import type { HttpClient } from '../http/http-client';
import { AccountDirectory, AccountDirectoryUnavailableError } from './account-directory';

/**
 * What the owners of records made before accounts existed prove (ADR 015): a key id, its key's account; an email
 * (`email:<lower case>`, what such records were scoped by), the one account that every key with that email
 * belongs to. An unknown key, and an email with no key or with keys of several accounts (someone else's email
 * typed by a buyer, a shared address), prove nothing: they are absent from the maps, never guessed.
 */
export interface ProvenOwners {
  keys: ReadonlyMap<string, string>;
  emails: ReadonlyMap<string, string>;
}

export function provenOwners(answer: AccountOwners): ProvenOwners {
  const keys = new Map<string, string>();
  for (const { keyId, account } of answer.keys) if (account) keys.set(keyId, account);
  const emails = new Map<string, string>();
  for (const { email, accounts } of answer.emails) if (accounts.length === 1) emails.set(email, accounts[0]);
  return { keys, emails };
}

/** A migration running beside the app until it is done; `stop()` on shutdown. */
export interface BackgroundMigration {
  /** Resolves once the migration has run to the end (tests wait on it). */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 60_000;

/**
 * Runs `migrate` in the background (the app serves meanwhile: records not migrated yet belong to no account, so
 * nobody sees them) and runs it again after a failure, waiting longer each time up to a minute: the subscription
 * service may start after this app. Says once that it waits and once that it is done.
 */
export function runMigration(name: string, migrate: () => Promise<void>): BackgroundMigration {
  const logger = new Logger(name);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();
  const done = (async () => {
    let delay = FIRST_RETRY_MS;
    let warned = false;
    while (!stopped) {
      running = migrate();
      try {
        await running;
        if (warned) logger.log('migration done after waiting');
        return;
      } catch (error) {
        if (!warned) {
          const reason = error instanceof AccountDirectoryUnavailableError ? error.message : String(error);
          logger.warn(`migration waits and tries again: ${reason}`);
          warned = true;
        }
      }
      if (stopped) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
      delay = Math.min(delay * 2, LAST_RETRY_MS);
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running.catch(() => undefined);
      await done;
    },
  };
}

/** The settings a service's account migration needs: where the subscription service is, and the internal token. */
export interface AccountMigrationSettings {
  SUBSCRIPTION_URL: string;
  INTERNAL_TOKEN?: string;
}

/**
 * A service's start-up migration of records made before accounts (ADR 015): it runs in the background from the
 * application's start (`runMigration`) and stops with it. Subclasses say what to migrate, asking `directory`.
 */
export abstract class StartupAccountMigration implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly directory: AccountDirectory;
  private migration?: BackgroundMigration;

  constructor(settings: AccountMigrationSettings, http: HttpClient) {
    this.directory = new AccountDirectory({
      subscriptionUrl: settings.SUBSCRIPTION_URL,
      token: settings.INTERNAL_TOKEN,
      http,
    });
  }

  /** Moves what it finds; throws to be run again later (the subscription service may not answer yet). */
  abstract migrate(): Promise<void>;

  /** Whether this process runs the migration (a role that serves the records); every process by default. */
  protected runsHere(): boolean {
    return true;
  }

  onApplicationBootstrap(): void {
    if (this.runsHere()) this.migration = runMigration(this.constructor.name, () => this.migrate());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.migration?.stop();
  }

  /** Resolves once the start-up migration has finished (tests wait on it). */
  finished(): Promise<void> {
    return this.migration?.done ?? Promise.resolve();
  }
}
