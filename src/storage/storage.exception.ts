import { HttpStatus } from '@nestjs/common';
import { domainExceptionOf } from '../common/domain-exception';
import { ImageFetchFailedError } from './image-limits';

/** The domain reasons of image ingestion (docs/decisions/0038). */
export enum ImageErrorCode {
  /** An image was refused by policy or content (scheme, address, type, size, not decodable). */
  Rejected = 'image_rejected',
  /** An image URL could not be fetched (network, timeout, HTTP status, broken redirect): may work later. */
  FetchFailed = 'image_fetch_failed',
}

/** A 400 naming the image that failed and why. */
export class ImageIngestionException extends domainExceptionOf<ImageErrorCode>({
  [ImageErrorCode.Rejected]: HttpStatus.BAD_REQUEST,
  [ImageErrorCode.FetchFailed]: HttpStatus.BAD_REQUEST,
}) {
  /** The 400 for a refusal `err` (an ImageRejectedError, or its ImageFetchFailedError kind). */
  static of(err: Error, message: string): ImageIngestionException {
    const reason =
      err instanceof ImageFetchFailedError ? ImageErrorCode.FetchFailed : ImageErrorCode.Rejected;
    return new ImageIngestionException(reason, message);
  }
}
