/*
 * admin.c - who may write to the catalog, and who is recorded; see admin.h.
 */
#include "api/admin.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "config.h"
#include "db/catalog_queries.h"

/*
 * Compare the offered token with the configured one in time that depends
 * only on the configured token's length, never on where they differ
 * (the technique of OpenBSD's timingsafe_bcmp, extended to unequal lengths).
 */
static bool token_equal(const char *given, const char *expected)
{
        size_t n = strlen(given), m = strlen(expected);
        unsigned char diff = n != m;

        for (size_t i = 0; i < m; i++) {
                unsigned char g = i < n ? (unsigned char)given[i] : 0;

                diff |= (unsigned char)(g ^ (unsigned char)expected[i]);
        }
        return diff == 0;
}

int admin_check(const struct api_request *rq, struct api_response *rs)
{
        const struct config *cfg = rq->app ? rq->app->config : NULL;
        const char *token = cfg ? cfg->admin_token : NULL;
        const char *auth = rq->header ? rq->header(rq, "Authorization") : NULL;

        if (!token || !*token) {
                api_problem(rs, 403,
                            "admin writes are disabled: the server has no GPUPLAN_ADMIN_TOKEN");
                return -1;
        }
        if (!auth || strncasecmp(auth, "Bearer ", 7) != 0 || !auth[7]) {
                api_problem(rs, 401, "this write needs Authorization: Bearer <admin token>");
                api_reply_header_add(rs, "WWW-Authenticate", "Bearer realm=\"gpuplan\"");
                return -1;
        }
        auth += 7;
        while (*auth == ' ')
                auth++;
        if (!token_equal(auth, token)) {
                api_problem(rs, 403, "the admin token is not valid");
                return -1;
        }
        return 0;
}

void admin_actor(const struct api_request *rq, char *buf, size_t len, struct db_actor *who)
{
        const char *h = rq->header ? rq->header(rq, "X-Actor") : NULL;
        size_t n = h ? strlen(h) : 0;
        bool ok = n >= 1 && n <= 64 && n < len;

        for (size_t i = 0; ok && i < n; i++)
                ok = h[i] >= 0x20 && h[i] < 0x7f;
        snprintf(buf, len, "%s", ok ? h : "admin");
        who->actor = buf;
        who->request_id = rq->request_id;
        who->payload_json = rq->body;
}
