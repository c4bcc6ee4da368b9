/*
 * The route tables the HTTP server (web.h) serves, one per file: rest.c
 * (slurmrestd's /slurm/v0.0.38 and /openapi/v3), rest_sluice.c
 * (/sluice/v1), static.c (the dashboard's files), metrics.c (/metrics),
 * each ended by an entry with pattern NULL.
 */
#ifndef SLUICE_CTLD_REST_H
#define SLUICE_CTLD_REST_H

#include "ctld/web/web.h"

extern const struct web_route rest_routes[];
extern const struct web_route sluice_routes[];
extern const struct web_route static_routes[];
extern const struct web_route metrics_routes[];

#endif
