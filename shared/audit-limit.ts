/**
 * The most audit records one `GET /v1/audit?limit=N` returns, and so what `chatbridge audit --limit N` takes. A
 * module of its own, with no imports: the CLI's commands other than start read it without loading the API schemas.
 */
export const MAX_AUDIT_LIMIT = 10_000;
