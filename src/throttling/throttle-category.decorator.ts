import { SetMetadata } from '@nestjs/common';

export const THROTTLE_CATEGORY_KEY = 'throttling:category';

/** An organization-wide budget on top of the general per-key limit. */
export type ThrottleCategoryName = 'create' | 'search';

/**
 * Charges the handler to an organization-wide budget (`create`: core creation, `search`: product
 * search) in addition to the general per-key limit every authenticated route has.
 */
export const ThrottleCategory = (category: ThrottleCategoryName): MethodDecorator & ClassDecorator =>
  SetMetadata(THROTTLE_CATEGORY_KEY, category);
