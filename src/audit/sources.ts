/** The `source` of the daemon's audit lines (test mode's too). */
export const DEFAULT_AUDIT_SOURCE = "telegram-draft-for-review";

/** The `source` of the audit lines the CLI writes: its own hash chain, so the daemon's stays intact. */
export const CLI_AUDIT_SOURCE = "draft-review-cli";

/** Every source this project writes: lines claiming one of them must carry its proof (see line-proof.ts). */
export const PROJECT_SOURCES: readonly string[] = [DEFAULT_AUDIT_SOURCE, CLI_AUDIT_SOURCE];
