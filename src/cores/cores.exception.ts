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
