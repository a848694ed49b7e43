/*
 * hub.c - the Hugging Face Hub client (see hub.h).
 */
#include "models/hub.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

static int env_unsigned(const char *name, unsigned def, unsigned min, unsigned max, unsigned *out,
                        char *err, size_t errlen)
{
        const char *v = getenv(name);
        char *end;
        unsigned long x;

        *out = def;
        if (!v || !*v)
                return 0;
        errno = 0;
        x = strtoul(v, &end, 10);
        if (errno || *end || !isdigit((unsigned char)v[0]) || x < min || x > max) {
                snprintf(err, errlen, "%s must be an integer in %u..%u", name, min, max);
                return -1;
        }
        *out = (unsigned)x;
        return 0;
}

int hub_settings_from_env(struct hub_settings *s, char *err, size_t errlen)
{
        const char *ep = getenv("HF_ENDPOINT"), *tok = getenv("HF_TOKEN"),
                   *on = getenv("GPUPLAN_HUB");
        unsigned max_kib;
        size_t n;

        memset(s, 0, sizeof(*s));
        if (on && *on && strcasecmp(on, "off") && strcasecmp(on, "on")) {
                snprintf(err, errlen, "GPUPLAN_HUB must be on or off");
                return -1;
        }
        s->enabled = !(on && !strcasecmp(on, "off"));
        if (!ep || !*ep)
                ep = "https://huggingface.co";
        if (strncmp(ep, "https://", 8) && strncmp(ep, "http://", 7)) {
                snprintf(err, errlen, "HF_ENDPOINT must be an http:// or https:// URL");
                return -1;
        }
        n = strlen(ep);
        while (n > 0 && ep[n - 1] == '/')
                n--;
        if (n >= sizeof(s->endpoint)) {
                snprintf(err, errlen, "HF_ENDPOINT is longer than %zu characters",
                         sizeof(s->endpoint) - 1);
                return -1;
        }
        memcpy(s->endpoint, ep, n);
        s->endpoint[n] = '\0';
        if (tok && strlen(tok) >= sizeof(s->token)) {
                snprintf(err, errlen, "HF_TOKEN is longer than %zu characters",
                         sizeof(s->token) - 1);
                return -1;
        }
        for (const char *c = tok ? tok : ""; *c; c++)
                if (*c < 0x21 || *c > 0x7e) {
                        snprintf(err, errlen, "HF_TOKEN must be printable ASCII without spaces");
                        return -1;
                }
        snprintf(s->token, sizeof(s->token), "%s", tok ? tok : "");
        if (env_unsigned("GPUPLAN_HUB_CONNECT_TIMEOUT_S", 5, 1, 120, &s->connect_timeout_s, err,
                         errlen) ||
            env_unsigned("GPUPLAN_HUB_TIMEOUT_S", 20, 1, 600, &s->timeout_s, err, errlen) ||
            env_unsigned("GPUPLAN_HUB_MAX_KIB", 2048, 16, 65536, &max_kib, err, errlen) ||
            env_unsigned("GPUPLAN_HUB_TTL_S", 7 * 24 * 3600, 0, 365u * 24 * 3600, &s->ttl_s, err,
                         errlen))
                return -1;
        s->max_bytes = (size_t)max_kib * 1024;
        return 0;
}

int hub_init(void)
{
        return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void hub_cleanup(void)
{
        curl_global_cleanup();
}

static bool repo_part_valid(const char *s, size_t n)
{
        if (n == 0 || n > 96 || !isalnum((unsigned char)s[0]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
                        return false;
        return !(n >= 2 && s[n - 1] == '.' && s[n - 2] == '.');
}

bool hub_repo_valid(const char *repo)
{
        const char *slash = strchr(repo, '/');
        if (!slash || strchr(slash + 1, '/'))
                return false;
        return repo_part_valid(repo, (size_t)(slash - repo)) &&
               repo_part_valid(slash + 1, strlen(slash + 1));
}

/* ---- one transfer ------------------------------------------------------- */

struct answer {
        char *data;
        size_t len, cap, max;
        bool too_large;
        char etag[129];
        char error_code[64]; /* X-Error-Code */
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
        struct answer *a = arg;
        size_t n = size * nmemb;

        if (n > a->max - a->len) {
                a->too_large = true;
                return 0; /* CURLE_WRITE_ERROR */
        }
        if (a->len + n + 1 > a->cap) {
                size_t cap = a->cap ? a->cap : 4096;
                while (cap < a->len + n + 1)
                        cap *= 2;
                char *d = realloc(a->data, cap);
                if (!d)
                        return 0;
                a->data = d;
                a->cap = cap;
        }
        memcpy(a->data + a->len, p, n);
        a->len += n;
        a->data[a->len] = '\0';
        return n;
}

/* Keep the header value of name (case-insensitive) from the last response. */
static void header_value(const char *line, size_t n, const char *name, char *out, size_t outlen)
{
        size_t k = strlen(name);
        if (n <= k + 1 || strncasecmp(line, name, k) || line[k] != ':')
                return;
        line += k + 1;
        n -= k + 1;
        while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
        while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' '))
                n--;
        if (n >= outlen)
                n = outlen - 1;
        memcpy(out, line, n);
        out[n] = '\0';
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *arg)
{
        struct answer *a = arg;
        size_t n = size * nmemb;

        if (n >= 5 && !strncmp(p, "HTTP/", 5)) /* a new response (after a redirect) */
                a->etag[0] = a->error_code[0] = '\0';
        header_value(p, n, "ETag", a->etag, sizeof(a->etag));
        header_value(p, n, "X-Error-Code", a->error_code, sizeof(a->error_code));
        return n;
}

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * GET url into a (at most s->max_bytes), within the time left until
 * deadline.  Returns HUB_OK with *status set, or a transport failure.
 */
static enum hub_result get(const struct hub_settings *s, const char *url, const char *if_none_match,
                           double started, double deadline, struct answer *a, long *status,
                           char *why, size_t whylen)
{
        CURL *c = curl_easy_init();
        struct curl_slist *hdrs = NULL;
        char auth[600], cond[160];
        CURLcode rc;
        double left = deadline - now_s();
        enum hub_result out = HUB_OK;

        if (!c) {
                snprintf(why, whylen, "cannot start a transfer (out of memory)");
                return HUB_UNREACHABLE;
        }
        if (left < 0.05)
                left = 0.05;
        a->max = s->max_bytes;
        if (s->token[0]) {
                snprintf(auth, sizeof(auth), "Authorization: Bearer %s", s->token);
                hdrs = curl_slist_append(hdrs, auth);
        }
        hdrs = curl_slist_append(hdrs, "Accept: application/json");
        if (if_none_match && *if_none_match) { /* RFC 9110 section 13.1.2 */
                snprintf(cond, sizeof(cond), "If-None-Match: %s", if_none_match);
                hdrs = curl_slist_append(hdrs, cond);
        }
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuplan (libcurl)");
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)HUB_MAX_REDIRECTS);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)s->connect_timeout_s);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(left * 1000));
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max_bytes);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
        rc = curl_easy_perform(c);
        if (rc == CURLE_OK) {
                curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        } else if (a->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
                snprintf(why, whylen, "the Hub's answer is larger than %zu bytes", s->max_bytes);
                out = HUB_TOO_LARGE;
        } else if (rc == CURLE_OPERATION_TIMEDOUT) {
                snprintf(why, whylen, "the Hub did not answer within %.1f s (waited %.1f s)",
                         (double)s->timeout_s, now_s() - started);
                out = HUB_TIMEOUT;
        } else if (rc == CURLE_TOO_MANY_REDIRECTS) {
                snprintf(why, whylen, "the Hub redirected more than %d times", HUB_MAX_REDIRECTS);
                out = HUB_BAD_ANSWER;
        } else {
                snprintf(why, whylen, "cannot reach the Hub at %s: %s (after %.1f s)", s->endpoint,
                         curl_easy_strerror(rc), now_s() - started);
                out = HUB_UNREACHABLE;
        }
        curl_slist_free_all(hdrs);
        curl_easy_cleanup(c);
        return out;
}

/* Map a non-200 status to a result, with the Hub's reason in why. */
static enum hub_result http_failure(const struct answer *a, long status, const char *repo,
                                    const char *revision, char *why, size_t whylen)
{
        if (!strcmp(a->error_code, "RevisionNotFound")) {
                snprintf(why, whylen, "%s has no revision \"%.80s\"", repo, revision);
                return HUB_REVISION_NOT_FOUND;
        }
        if (!strcmp(a->error_code, "GatedRepo") ||
            (status == 403 && strcmp(a->error_code, "RepoNotFound"))) {
                snprintf(why, whylen, "%s is gated: its files need a token with access", repo);
                return HUB_GATED;
        }
        if (status == 404 || status == 401 || !strcmp(a->error_code, "RepoNotFound") ||
            !strcmp(a->error_code, "EntryNotFound")) {
                snprintf(why, whylen, "the Hub has no model %s%s", repo,
                         !strcmp(a->error_code, "EntryNotFound") ? " with a config.json" : "");
                return HUB_NOT_FOUND;
        }
        snprintf(why, whylen, "the Hub answered HTTP %ld", status);
        return status >= 500 ? HUB_UNREACHABLE : HUB_BAD_ANSWER;
}

static bool is_sha(const char *s)
{
        size_t n = 0;
        for (; s[n]; n++)
                if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
                        return false;
        return n == 40;
}

/* The model-info document: sha, id, gated, safetensors. */
static enum hub_result read_info(const struct answer *a, const char *repo, struct hub_model *out,
                                 char *why, size_t whylen)
{
        json_error_t je;
        json_t *doc = json_loadb(a->data ? a->data : "", a->len, JSON_REJECT_DUPLICATES, &je);
        json_t *sha, *id, *gated, *st;
        enum hub_result rc = HUB_BAD_ANSWER;

        if (!json_is_object(doc)) {
                snprintf(why, whylen, "the Hub's model info for %s is not a JSON object", repo);
                goto out;
        }
        sha = json_object_get(doc, "sha");
        if (!json_is_string(sha) || !is_sha(json_string_value(sha))) {
                snprintf(why, whylen, "the Hub's model info for %s has no commit sha", repo);
                goto out;
        }
        snprintf(out->sha, sizeof(out->sha), "%s", json_string_value(sha));
        id = json_object_get(doc, "id");
        snprintf(out->repo, sizeof(out->repo), "%s",
                 json_is_string(id) && !strcasecmp(json_string_value(id), repo)
                         ? json_string_value(id)
                         : repo);
        gated = json_object_get(doc, "gated");
        out->gated = json_is_true(gated) || json_is_string(gated);
        st = json_object_get(doc, "safetensors");
        if (json_is_object(st) && json_is_object(json_object_get(st, "parameters"))) {
                json_t *keep =
                        json_pack("{s:O,s:O*}", "parameters", json_object_get(st, "parameters"),
                                  "total", json_object_get(st, "total"));
                out->safetensors = keep ? json_dumps(keep, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                json_decref(keep);
        }
        rc = HUB_OK;
out:
        json_decref(doc);
        return rc;
}

enum hub_result hub_fetch(const struct hub_settings *s, const char *repo, const char *revision,
                          struct hub_model *out, char *why, size_t whylen)
{
        struct answer info = {0}, cfg = {0};
        double started = now_s(), deadline = started + s->timeout_s;
        char url[1024];
        char *rev = NULL;
        long status = 0;
        enum hub_result rc;
        json_error_t je;
        json_t *doc = NULL;

        memset(out, 0, sizeof(*out));
        if (!hub_repo_valid(repo)) {
                snprintf(why, whylen, "\"%.100s\" is not a Hub model id (org/name)", repo);
                return HUB_NOT_FOUND;
        }
        if (revision && *revision) {
                rev = curl_easy_escape(NULL, revision, 0);
                if (!rev) {
                        snprintf(why, whylen, "out of memory");
                        return HUB_UNREACHABLE;
                }
                snprintf(url, sizeof(url), "%s/api/models/%s/revision/%s", s->endpoint, repo, rev);
        } else {
                snprintf(url, sizeof(url), "%s/api/models/%s", s->endpoint, repo);
        }
        rc = get(s, url, NULL, started, deadline, &info, &status, why, whylen);
        if (rc != HUB_OK)
                goto out;
        if (status != 200) {
                rc = http_failure(&info, status, repo, revision ? revision : "", why, whylen);
                goto out;
        }
        rc = read_info(&info, repo, out, why, whylen);
        if (rc != HUB_OK)
                goto out;
        /* config.json at the commit just read, so both answers are of one revision. */
        snprintf(url, sizeof(url), "%s/%s/resolve/%s/config.json", s->endpoint, out->repo,
                 out->sha);
        rc = get(s, url, NULL, started, deadline, &cfg, &status, why, whylen);
        if (rc != HUB_OK)
                goto out;
        if (status != 200) {
                rc = http_failure(&cfg, status, out->repo, revision ? revision : "", why, whylen);
                if (rc == HUB_GATED || out->gated)
                        rc = HUB_GATED;
                goto out;
        }
        doc = json_loadb(cfg.data ? cfg.data : "", cfg.len, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(doc)) {
                snprintf(why, whylen,
                         "%s's config.json is not a JSON object (line %d column %d: %s)", out->repo,
                         je.line, je.column, doc ? "not an object" : je.text);
                rc = HUB_BAD_ANSWER;
                goto out;
        }
        snprintf(out->etag, sizeof(out->etag), "%s", cfg.etag);
        out->config = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!out->config) {
                snprintf(why, whylen, "out of memory");
                rc = HUB_UNREACHABLE;
        }
out:
        if (rc != HUB_OK)
                hub_model_free(out);
        json_decref(doc);
        curl_free(rev);
        free(info.data);
        free(cfg.data);
        return rc;
}

enum hub_result hub_config_unchanged(const struct hub_settings *s, const char *repo,
                                     const char *revision, const char *etag, char *why,
                                     size_t whylen)
{
        struct answer a = {0};
        double started = now_s();
        char url[1024];
        char *rev = NULL;
        long status = 0;
        enum hub_result rc;

        if (!hub_repo_valid(repo)) {
                snprintf(why, whylen, "\"%.100s\" is not a Hub model id (org/name)", repo);
                return HUB_NOT_FOUND;
        }
        rev = curl_easy_escape(NULL, revision && *revision ? revision : "main", 0);
        if (!rev) {
                snprintf(why, whylen, "out of memory");
                return HUB_UNREACHABLE;
        }
        snprintf(url, sizeof(url), "%s/%s/resolve/%s/config.json", s->endpoint, repo, rev);
        rc = get(s, url, etag, started, started + s->timeout_s, &a, &status, why, whylen);
        if (rc == HUB_OK && status == 304)
                rc = HUB_NOT_MODIFIED;
        else if (rc == HUB_OK && status != 200)
                rc = http_failure(&a, status, repo, revision ? revision : "", why, whylen);
        curl_free(rev);
        free(a.data);
        return rc;
}

void hub_model_free(struct hub_model *m)
{
        free(m->config);
        free(m->safetensors);
        m->config = m->safetensors = NULL;
}
