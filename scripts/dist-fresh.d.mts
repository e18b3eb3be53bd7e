/** Why dist/ must be built ("dist/ is missing", "sources changed since the last build"), or null when it is up to date. */
export function distStaleBecause(): string | null;
