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
