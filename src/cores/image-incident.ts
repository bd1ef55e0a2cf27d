/**
 * The one wording for image objects that a delete or an image replacement could not remove: they may
 * still be reachable at their URLs, so operators treat them as an incident (README, "Deleting a core").
 */
export const IMAGES_NOT_REMOVED_INCIDENT =
  'An image object that could not be removed may still be reachable at its URL: treat this as an incident.';

/** The same sentence with the count, e.g. "2 image objects could not be removed and may still be…". */
export function imagesNotRemovedIncident(failed: number): string {
  const one = failed === 1;
  return (
    `${failed} image object${one ? '' : 's'} could not be removed and may still be reachable at ` +
    `${one ? 'its URL' : 'their URLs'}: treat this as an incident.`
  );
}
