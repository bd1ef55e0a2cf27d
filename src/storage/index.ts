export { isPublicAddress } from './address-policy';
export { decodeImageDataUrl } from './data-url';
export { ImageIngestionService, type ImageSource, type IngestedImage } from './image-ingestion.service';
export { MAX_IMAGE_BYTES, STORED_MAX_EDGE } from './image-limits';
export { ImageStore, isValidImageKey, newImageKey, type StoredImageStream } from './image-store';
export { StorageModule } from './storage.module';
