import { HttpStatus } from '@nestjs/common';
import { domainExceptionOf } from '../common/domain-exception';

/** The domain reasons of the jobs module (docs/decisions/0038). */
export enum JobErrorCode {
  /**
   * A generation job could not be put on the queue (Redis refused the add): the core is stored with
   * coreStatus `failed`; replace its images to try again.
   */
  EnqueueFailed = 'enqueue_failed',
}

export class JobsException extends domainExceptionOf<JobErrorCode>({
  [JobErrorCode.EnqueueFailed]: HttpStatus.SERVICE_UNAVAILABLE,
}) {}
