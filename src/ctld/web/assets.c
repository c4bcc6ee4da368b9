/*
 * Lookup in the embedded files (assets.h).
 */
#include "ctld/web/assets.h"

#include <string.h>

const struct web_asset *web_asset_find(const char *path)
{
    for (const struct web_asset *a = web_assets; a->path != NULL; a++)
        if (strcmp(a->path, path) == 0)
            return a;
    return NULL;
}

const char *web_asset_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');

    if (dot != NULL && strchr(dot, '/') == NULL)
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
            if (strcmp(dot, types[i].ext) == 0)
                return types[i].type;
    return "application/octet-stream";
}
