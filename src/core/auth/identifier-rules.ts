/**
 * What vts takes as a user name, a vehicle id, a car password and a vehicle name: the same rules
 * for the admin commands (src/cli/shared-options.ts) and for rows brought over from a reference
 * server (src/import/source-rows.ts).
 */

/** 1-60 characters of A-Z a-z 0-9 . _ @ - (a space would break the MP scheme-1 login line). */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,60}$/;
/** 1-32 characters of A-Z a-z 0-9 . _ - (stored upper-cased). */
export const VEHICLE_ID = /^[A-Za-z0-9._-]{1,32}$/;
/** The MP shared secret: 1-255 characters without whitespace (the login line splits on it). */
export const CAR_PASSWORD = /^\S{1,255}$/;
export const MAX_VEHICLE_NAME = 64;
