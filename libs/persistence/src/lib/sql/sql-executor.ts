/** The little the SQL document store needs from PostgreSQL: queries, and transactions on one connection. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL's code for a unique violation, and the index it names. */
export function uniqueViolation(error: unknown): { constraint: string } | undefined {
  const candidate = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (candidate?.code !== '23505') return undefined;
  if (typeof candidate.constraint === 'string') return { constraint: candidate.constraint };
  const named = /unique constraint "([^"]+)"/.exec(String(candidate.message));
  return { constraint: named?.[1] ?? 'unknown' };
}
