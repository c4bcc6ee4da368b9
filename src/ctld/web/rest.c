/*
 * slurmrestd's API, v0.0.38, for what this cluster has (docs/rest.md):
 * each route turns its request into the message the CLI would send,
 * served by rpc_dispatch as the token's user, and its reply into Slurm's
 * objects (common/slurmjson.h).
 */
#include "ctld/web/rest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/proto.h"
#include "common/slurmjson.h"

/* GET /slurm/v0.0.38/ping: the controller answers, so it is UP. */
static void get_ping(struct web_req *wr)
{
    const struct conf *c = web_req_env(wr)->conf;
    const char *host = c->n_ctld_hosts > 0 ? c->ctld_hosts[0].host : "";
    json_t *pings = json_pack("[{s:s, s:s, s:i, s:s}]", "hostname", host,
                              "ping", "UP", "status", 0, "mode", "primary");

    web_reply_json(wr, 200, slurmjson_response(SLURMJSON_CTLD, "pings", pings));
}

const struct web_route rest_routes[] = {
    {"GET", "/slurm/v0.0.38/ping", get_ping, 0},
    {NULL, NULL, NULL, 0},
};
