/*
 * admin.h - the admin check in front of every catalog write, and the actor
 * a write is recorded under.
 *
 * Memory: nothing is allocated; admin_actor() writes into the caller's
 * buffer.  Thread-safety: reentrant.
 */
#ifndef GPUPLAN_API_ADMIN_H
#define GPUPLAN_API_ADMIN_H

#include <stddef.h>

#include "api/handler.h"

struct db_actor;

/*
 * Admin authorisation: Authorization: Bearer <GPUPLAN_ADMIN_TOKEN>,
 * compared in constant time.  Returns 0 when allowed; otherwise rs holds
 * 401 (no or malformed credentials, with WWW-Authenticate), 403 (wrong
 * token) or 403 (writes disabled: no token configured).
 */
int admin_check(const struct api_request *rq, struct api_response *rs);

/*
 * Who to record for a write: the X-Actor header when it is 1..64 printable
 * characters (the token holder's own statement), else "admin".  buf holds
 * the result; who is filled to point at buf, the request id and body.
 */
void admin_actor(const struct api_request *rq, char *buf, size_t len, struct db_actor *who);

#endif
