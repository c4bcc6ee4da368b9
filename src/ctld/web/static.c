/*
 * The dashboard's files (web/dashboard/, compiled in by scripts/embed.sh)
 * at / and /dashboard/..., without a token: the pages carry no data, which
 * comes from /sluice/v1 with the user's token (docs/dashboard.md).  A file
 * is found by its exact name in the embedded table and nothing on disk is
 * ever opened, so no path can lead out of the dashboard (web.c already
 * refuses "." and ".." segments with 400; an encoded slash only makes a
 * name no file has).
 */
#include "ctld/web/rest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctld/web/assets.h"

/* The folder of web/ served, and the page of / and /dashboard/. */
#define STATIC_DIR "dashboard/"
#define STATIC_INDEX "index.html"
/* The longest name looked up (the embedded names are short). */
#define STATIC_NAME_MAX 256

/* Scripts, styles and data only from this server: an injected <script>
 * or inline handler does not run, and no other site frames the pages. */
#define STATIC_CSP                                                             \
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; "            \
    "form-action 'none'"

/* FNV-1a of the file, for its ETag: the table changes only with the
 * binary, so a browser revalidates and gets 304 until an upgrade. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void serve(struct web_req *wr, const char *rest)
{
    char name[STATIC_NAME_MAX + sizeof(STATIC_DIR)], etag[32];
    const struct web_asset *a = NULL;
    const char *inm;

    if (rest[0] == '\0')
        rest = STATIC_INDEX;
    if (strlen(rest) <= STATIC_NAME_MAX) {
        snprintf(name, sizeof(name), "%s%s", STATIC_DIR, rest);
        a = web_asset_find(name);
    }
    if (a == NULL) {
        web_reply_error(wr, 404, ENOENT, "no such file: %.200s",
                        web_req_path(wr));
        return;
    }
    snprintf(etag, sizeof(etag), "\"%016" PRIx64 "\"", fnv1a(a->data, a->len));
    web_reply_header(wr, "Content-Security-Policy", STATIC_CSP);
    web_reply_header(wr, "X-Frame-Options", "DENY");
    web_reply_header(wr, "Referrer-Policy", "no-referrer");
    web_reply_header(wr, "Cache-Control", "no-cache");
    web_reply_header(wr, "ETag", etag);
    inm = web_req_header(wr, "If-None-Match");
    if (inm != NULL && strcmp(inm, etag) == 0) {
        web_reply_text(wr, 304, NULL, NULL, 0);
        return;
    }
    web_reply_text(wr, 200, web_asset_type(name), (const char *)a->data,
                   a->len);
}

/* GET /: the dashboard. */
static void get_root(struct web_req *wr)
{
    serve(wr, "");
}

/* GET /dashboard/{*}: a file of the dashboard (/dashboard/: the page). */
static void get_file(struct web_req *wr)
{
    const char *rest = web_req_arg(wr, "*");

    serve(wr, rest != NULL ? rest : "");
}

const struct web_route static_routes[] = {
    {"GET", "/", get_root, WEB_ROUTE_PUBLIC},
    {"GET", "/dashboard/{*}", get_file, WEB_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
