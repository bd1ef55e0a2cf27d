import { HttpStatus } from '@nestjs/common';
import { domainExceptionOf } from '../common/domain-exception';

/** The domain reasons of the cores module (docs/decisions/0038). */
export enum CoreErrorCode {
  /** Product search on a core whose taste profile is not ready (coreStatus processing or failed). */
  NotReady = 'core_not_ready',
}

export class CoresException extends domainExceptionOf<CoreErrorCode>({
  [CoreErrorCode.NotReady]: HttpStatus.CONFLICT,
}) {}

/**
 * Product search on a core that is not ready. Its status decides the advice each surface gives: a
 * `processing` core is polled until ready; `failed` is final (DECISIONS.md: generation never retries
 * a failed core), so only new images bring a profile.
 */
export class CoreNotReadyException extends CoresException {
  constructor(
    readonly coreId: string,
    readonly coreStatus: string,
  ) {
    super(
      CoreErrorCode.NotReady,
      coreStatus === 'failed'
        ? `Core ${coreId} has no taste profile: its generation failed (coreStatus is failed), which is final. ` +
            `Replace its images (PATCH /api/v1/org/cores/${coreId} with images or imageUrls) to generate it again.`
        : `Core ${coreId} has no ready taste profile (coreStatus is ${coreStatus}): poll GET /api/v1/org/cores/${coreId} until it is ready, then retry.`,
    );
  }
}
