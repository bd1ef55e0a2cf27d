import { HttpStatus } from '@nestjs/common';
import { domainExceptionOf } from '../common/domain-exception';

/** The domain reasons of authentication (docs/decisions/0038); every one is a 401. */
export enum AuthErrorCode {
  /** No key, a malformed Authorization header, or a key outside the header. */
  KeyMissing = 'api_key_missing',
  /** A key that is malformed, fails its checksum, or is unknown. */
  KeyInvalid = 'api_key_invalid',
  /** A key that was revoked: a new one is needed. */
  KeyRevoked = 'api_key_revoked',
}

export class AuthException extends domainExceptionOf<AuthErrorCode>({
  [AuthErrorCode.KeyMissing]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.KeyInvalid]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.KeyRevoked]: HttpStatus.UNAUTHORIZED,
}) {}
