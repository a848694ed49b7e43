/*
 * model_id.c - model ids from what users paste (see model_id.h).
 */
#include "models/model_id.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/hub.h"

/* The Hub's hosts as users copy them from a browser or a model card. */
static const char *const hub_hosts[] = {"https://huggingface.co/",
                                        "http://huggingface.co/",
                                        "huggingface.co/",
                                        "https://hf.co/",
                                        "hf.co/",
                                        NULL};

static const char *skip_prefix(const char *s, const char *prefix)
{
        size_t n = strlen(prefix);
        return n && strncasecmp(s, prefix, n) == 0 ? s + n : s;
}

const char *model_id_without_host(const char *typed)
{
        for (int i = 0; hub_hosts[i]; i++) {
                const char *rest = skip_prefix(typed, hub_hosts[i]);
                if (rest != typed)
                        return rest;
        }
        return typed;
}

bool model_id_hub_repo(const char *typed, const char *endpoint, char *repo, size_t repolen,
                       char *rev, size_t revlen)
{
        const char *s = typed, *slash, *rest;
        char ep[300];
        size_t n;

        rev[0] = '\0';
        snprintf(ep, sizeof(ep), "%s/", endpoint ? endpoint : "");
        if (endpoint && *endpoint)
                s = skip_prefix(s, ep);
        s = model_id_without_host(s);
        s = skip_prefix(s, "models/");
        slash = strchr(s, '/');
        if (!slash)
                return false;
        rest = strchr(slash + 1, '/');
        n = rest ? (size_t)(rest - s) : strlen(s);
        while (n && s[n - 1] == '/')
                n--;
        if (n >= repolen)
                return false;
        memcpy(repo, s, n);
        repo[n] = '\0';
        if (rest && (!strncmp(rest, "/tree/", 6) || !strncmp(rest, "/blob/", 6) ||
                     !strncmp(rest, "/resolve/", 9))) {
                const char *r = strchr(rest + 1, '/') + 1, *end = strchr(r, '/');
                size_t k = end ? (size_t)(end - r) : strlen(r);
                if (k >= revlen)
                        return false;
                memcpy(rev, r, k);
                rev[k] = '\0';
        } else if (rest && rest[1]) {
                return false;
        }
        return hub_repo_valid(repo);
}
