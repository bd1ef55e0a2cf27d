/** Other modules (storage) contribute readiness checks through this token. */
export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');

export interface ReadinessCheck {
  name: string;
  ping(): Promise<void>;
}
