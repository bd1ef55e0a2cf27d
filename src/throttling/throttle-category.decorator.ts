import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

export const THROTTLE_CATEGORY_KEY = 'throttling:category';
export const THROTTLE_WHEN_KEY = 'throttling:when';

/** An organization-wide budget on top of the general per-key limit. */
export type ThrottleCategoryName = 'create' | 'search';

/** Decides from the (parsed, not yet validated) request whether the category budget applies. */
export type ThrottleCondition = (req: Request) => boolean;

/**
 * Charges the handler to an organization-wide budget (`create`: core creation, `search`: product
 * search) in addition to the general per-key limit every authenticated route has. With `when`, only
 * the requests it accepts are charged (an image-replacing PATCH takes a creation unit, a rename not).
 */
export const ThrottleCategory = (
  category: ThrottleCategoryName,
  when?: ThrottleCondition,
): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(THROTTLE_CATEGORY_KEY, category), SetMetadata(THROTTLE_WHEN_KEY, when));
