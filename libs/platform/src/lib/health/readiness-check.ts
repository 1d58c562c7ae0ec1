/** One dependency that must answer before the app takes traffic (database, Redis). */
export interface ReadinessCheck {
  /** Shown in the readiness answer: `database`, `redis`. */
  readonly name: string;
  /** Resolves when the dependency answers; rejects with a short reason when it does not. */
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('rp:readiness-checks');
