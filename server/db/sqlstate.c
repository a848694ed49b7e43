/*
 * sqlstate.c - the one SQLSTATE -> HTTP status table; see sqlstate.h.
 */
#include "db/sqlstate.h"

#include <stdio.h>
#include <string.h>

/*
 * One row per SQLSTATE (or class, when the code ends in "*"): the HTTP
 * status and a client-safe reason.  Codes from the PostgreSQL 15 manual,
 * Appendix A "PostgreSQL Error Codes".  Transient server-side conditions are
 * 503 with Retry-After; nothing is replayed automatically, because a write
 * whose COMMIT was lost may or may not have been applied.
 */
static const struct {
        const char *sqlstate;
        int http_status;
        unsigned retry_after_seconds;
        const char *reason;
} sqlstate_map[] = {
        {"23505", 409, 0, "conflicts with an existing row"},
        {"23001", 409, 0, "history is append-only"}, /* restrict_violation (our trigger) */
        {"23503", 422, 0, "refers to a row that does not exist"},
        {"23502", 422, 0, "a required value is missing"},
        {"23514", 422, 0, "violates a catalog constraint"},
        {"22P02", 422, 0, "a value has the wrong format"},
        {"22001", 422, 0, "a value is too long"},
        {"22003", 422, 0, "a number is out of range"},
        {"22007", 422, 0, "a date is not valid"},
        {"22008", 422, 0, "a date is out of range"},
        {"40001", 503, 1, "concurrent update, try again"},         /* serialization_failure */
        {"40P01", 503, 1, "concurrent update, try again"},         /* deadlock_detected */
        {"55P03", 503, 1, "row is locked, try again"},             /* lock_not_available */
        {"57014", 503, 2, "the database took too long"},           /* query_canceled */
        {"53300", 503, 2, "the database has no free connections"}, /* too_many_connections */
        {"57P01", 503, 2, "the database is shutting down"},
        {"57P02", 503, 2, "the database is shutting down"},
        {"57P03", 503, 2, "the database is starting up"},
        {"08*", 503, 2, "the database connection failed"},
        {"53*", 503, 2, "the database is out of resources"},
};

void sqlstate_error(const char *state, const char *constraint, struct db_error *e)
{
        memset(e, 0, sizeof(*e));
        snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", state);
        e->http_status = 500;
        snprintf(e->detail, sizeof(e->detail), "the database refused the write");
        for (size_t i = 0; i < sizeof(sqlstate_map) / sizeof(sqlstate_map[0]); i++) {
                const char *code = sqlstate_map[i].sqlstate;
                size_t n = strlen(code);
                int match = code[n - 1] == '*' ? strncmp(state, code, n - 1) == 0
                                               : strcmp(state, code) == 0;

                if (!match)
                        continue;
                e->http_status = sqlstate_map[i].http_status;
                e->retry_after_seconds = sqlstate_map[i].retry_after_seconds;
                if (constraint && *constraint)
                        snprintf(e->detail, sizeof(e->detail), "%s (%s)", sqlstate_map[i].reason,
                                 constraint);
                else
                        snprintf(e->detail, sizeof(e->detail), "%s", sqlstate_map[i].reason);
                break;
        }
}
