/** An insert or update would give two documents the same value on a unique index. The same on every driver. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';

  constructor(
    readonly collection: string,
    readonly index: string,
  ) {
    super(`duplicate key in ${collection} on index ${index}`);
  }
}

/** A filter, sort, update or document the API does not accept. A programming error, not a user error. */
export class InvalidQueryError extends Error {
  override readonly name = 'InvalidQueryError';
}

/**
 * Runs a write; on a duplicate key, removes expired documents (an expired one may still hold the key) and tries
 * once more. A duplicate that remains becomes a `DuplicateKeyError` naming the index. Each driver says how it
 * recognises a duplicate and which index it hit (`duplicateIndexOf` answers `undefined` for other errors).
 */
export async function writeFreeingExpiredKeys<R>(
  collection: string,
  write: () => Promise<R>,
  duplicateIndexOf: (error: unknown) => string | undefined,
  sweepExpired: (() => Promise<number>) | undefined,
): Promise<R> {
  const typed = (error: unknown): unknown => {
    const index = duplicateIndexOf(error);
    return index === undefined ? error : new DuplicateKeyError(collection, index);
  };
  try {
    return await write();
  } catch (error) {
    if (duplicateIndexOf(error) === undefined) throw error;
    if (sweepExpired && (await sweepExpired()) > 0) {
      try {
        return await write();
      } catch (retryError) {
        throw typed(retryError);
      }
    }
    throw typed(error);
  }
}

/**
 * Runs a batch insert that skips taken keys; when some were skipped and removing expired documents frees any (an
 * expired document may still hold a key), runs it once more (what went in the first time is skipped then).
 */
export async function insertFreeingExpiredKeys(
  count: number,
  write: () => Promise<number>,
  sweepExpired: (() => Promise<number>) | undefined,
): Promise<number> {
  const inserted = await write();
  if (inserted === count || !sweepExpired || (await sweepExpired()) === 0) return inserted;
  return inserted + (await write());
}
