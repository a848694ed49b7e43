/*
 * sqlstate.h - the one table that turns a PostgreSQL SQLSTATE into the
 * HTTP status, Retry-After and client-safe reason of a failed write.
 *
 * Memory: nothing is allocated; the caller owns e.  Thread-safety: a pure
 * function of its arguments over a constant table.
 */
#ifndef GPUPLAN_DB_SQLSTATE_H
#define GPUPLAN_DB_SQLSTATE_H

/* Why a write failed, safe to show the client (no SQL text, no row data). */
struct db_error {
        int http_status;                /* 409, 422, 503, 500 */
        unsigned retry_after_seconds;   /* > 0: answer with Retry-After */
        char sqlstate[6];               /* "" when the failure was not a SQL error */
        char detail[256];
};

/*
 * Fill e for SQLSTATE state (five characters), naming constraint (may be
 * NULL or "") in the detail when one is known.  A code the table lacks is
 * 500 "the database refused the write".
 */
void sqlstate_error(const char *state, const char *constraint, struct db_error *e);

#endif
