/** The fields of a place and which one a server error names. Pure (no DOM): the unit test imports it. */

/**
 * The fields of a place, searched in this order: a window's price (`timeOfUse[1].pricePerKwh`) is
 * the windows' error, not the place's price per kWh.
 */
export const FIELDS = ['timeOfUse', 'pricePerKwh', 'pricePerMinute', 'sessionFee', 'timezone', 'currency', 'radius', 'name', 'lat', 'lon'] as const;
export type FieldName = (typeof FIELDS)[number];

/** The field a server error message names, if any (`radius must be between 10 and 5000 m` → radius). */
export function fieldOf(message: string): FieldName | null {
  return FIELDS.find((f) => new RegExp(`(^|[^A-Za-z])${f}($|[^A-Za-z])`, 'i').test(message)) ?? null;
}
