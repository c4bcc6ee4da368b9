/*
 * The files sluicectld serves from its own binary: everything under the
 * repository's web/ (the dashboard, the OpenAPI document), compiled in by
 * scripts/embed.sh into the table web_assets.
 */
#ifndef SLUICE_CTLD_ASSETS_H
#define SLUICE_CTLD_ASSETS_H

#include <stddef.h>

struct web_asset {
    const char *path;          /* below web/: "dashboard/index.html" */
    const unsigned char *data; /* len bytes, then a NUL */
    size_t len;
};

/* The generated table, ended by an entry with path NULL. */
extern const struct web_asset web_assets[];

/* web_asset_find: the asset at path (exact), or NULL. */
const struct web_asset *web_asset_find(const char *path);

/* web_asset_type: the Content-Type for path's extension (.html, .js,
 * .css, .json, .svg, .png, .ico; else application/octet-stream). */
const char *web_asset_type(const char *path);

#endif
