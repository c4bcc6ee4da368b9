/*
 * scontrol ping, show config, reconfigure and top: the controller's
 * health (and why it refuses changes, when it does), its configuration as
 * it runs it, a re-read of the
 * configuration file, and a job moved ahead of its user's others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/proto.h"

/* While the controller takes no changes (its StateSaveLocation full or
 * read-only), the reason, on a line of its own under ping's. */
static void state_line(json_t *state)
{
    const char *why = json_string_value(json_object_get(state, "reason"));

    if (state == NULL || json_is_true(json_object_get(state, "writable")) ||
        why == NULL)
        return;
    printf("%s\n", why);
}

/* "Slurmctld(primary) at HOST is UP": 0 when it answered a PING. */
static int ping_line(void)
{
    struct conf *c = conf_load(cli_conf_path(), NULL, NULL);
    const char *host =
        c != NULL && c->n_ctld_hosts > 0 ? c->ctld_hosts[0].host : "localhost";
    struct cli_client *cl = NULL;
    json_t *reply = NULL;
    struct err e;
    int up = 0;

    if (c != NULL)
        cl = cli_client_open(cli_conf_path(), 5000, &e);
    if (cl != NULL &&
        cli_client_call(cl, PROTO_MSG_PING, NULL, &reply, NULL, &e) == 0)
        up = 1;
    printf("Slurmctld(primary) at %s is %s\n", host, up ? "UP" : "DOWN");
    state_line(json_object_get(reply, "state"));
    json_decref(reply);
    cli_client_close(cl);
    conf_destroy(c);
    return up ? 0 : 1;
}

int ping_run(int argc, char **argv)
{
    (void)argv;
    if (argc > 0) {
        cli_error("usage: ping");
        return 2;
    }
    return ping_line();
}

int show_config_run(int argc, char **argv)
{
    json_t *reply = NULL, *kv;
    char when[32];
    struct err e;
    size_t i;

    (void)argv;
    if (argc > 0) {
        cli_error("usage: show config");
        return 2;
    }
    if (cli_call(PROTO_MSG_CONFIG_QUERY, NULL, &reply, &e) < 0) {
        cli_error("%s", e.text);
        return 1;
    }
    fmt_time((time_t)json_integer_value(json_object_get(reply, "time")), "N/A",
             when, sizeof(when));
    printf("Configuration data as of %s\n", when);
    json_array_foreach(json_object_get(reply, "config"), i, kv)
    {
        printf("%-23s = %s\n", json_string_value(json_array_get(kv, 0)),
               json_string_value(json_array_get(kv, 1)));
    }
    json_decref(reply);
    putchar('\n');
    cli_close();
    return ping_line();
}

/* The controller rebuilds itself on the new file a moment after its
 * reply (its sockets stay open): return once it answers again, so that
 * the next command sees the new configuration. */
static void wait_rebuilt(void)
{
    struct timespec pause = {0, 500 * 1000 * 1000};
    struct cli_client *cl;
    json_t *reply = NULL;
    struct err e;

    cli_close();
    nanosleep(&pause, NULL);
    for (int i = 0; i < 20; i++) {
        cl = cli_client_open(cli_conf_path(), 10000, &e);
        if (cl != NULL &&
            cli_client_call(cl, PROTO_MSG_PING, NULL, &reply, NULL, &e) == 0) {
            json_decref(reply);
            cli_client_close(cl);
            return;
        }
        cli_client_close(cl);
        nanosleep(&pause, NULL);
    }
}

int reconfigure_run(int argc, char **argv)
{
    json_t *reply = NULL, *v;
    struct err e;
    size_t i;

    (void)argv;
    if (argc > 0) {
        cli_error("usage: reconfigure");
        return 2;
    }
    if (cli_call(PROTO_MSG_RECONFIGURE, NULL, &reply, &e) < 0) {
        /* the controller's text names the file, the line and the error */
        fprintf(stderr, "scontrol: error: reconfigure refused: %s\n", e.text);
        return 1;
    }
    json_array_foreach(json_object_get(reply, "changes"), i, v)
        printf("%s\n", json_string_value(v));
    if (json_array_size(json_object_get(reply, "changes")) > 0)
        wait_rebuilt();
    json_decref(reply);
    return 0;
}

/* scontrol setdebug LEVEL: the controller's log level until the next
 * reconfigure or restart; silent on success, as Slurm's. */
int setdebug_run(int argc, char **argv)
{
    json_t *req, *reply = NULL;
    struct err e;
    int rc = 0;

    if (argc != 1) {
        cli_error("usage: setdebug LEVEL (quiet, fatal, error, info, "
                  "verbose, debug, debug2 .. debug5, or 0-9)");
        return 2;
    }
    req = json_pack("{s:s}", "level", argv[0]);
    if (cli_call(PROTO_MSG_SET_DEBUG, req, &reply, &e) < 0) {
        fprintf(stderr, "scontrol: error: setdebug: %s\n", e.text);
        rc = 1;
    }
    json_decref(req);
    json_decref(reply);
    return rc;
}

int top_run(int argc, char **argv)
{
    int rc = 0;

    if (argc != 1) {
        cli_error("usage: top JOBID[,JOBID...]");
        return 2;
    }
    for (char *p = argv[0], *tok; (tok = strsep(&p, ",")) != NULL;) {
        json_t *req, *reply = NULL;
        struct err e;
        if (*tok == '\0')
            continue;
        req = json_pack("{s:s, s:{s:b}}", "job_id", tok, "set", "top", 1);
        if (cli_call(PROTO_MSG_JOB_UPDATE, req, &reply, &e) < 0) {
            fprintf(stderr, "%s for job %s\n", e.text, tok);
            rc = 1;
        }
        json_decref(req);
        json_decref(reply);
    }
    return rc;
}

/* scontrol token [lifespan=SECONDS] [username=NAME]: SLURM_JWT=..., a
 * line a shell can eval (docs/rest.md). */
int token_run(int argc, char **argv)
{
    json_t *req = json_object(), *reply = NULL;
    struct err e;
    int rc = 2;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        long long v;

        if (strncasecmp(a, "lifespan=", 9) == 0) {
            errno = 0;
            v = strtoll(a + 9, &end, 10);
            if (a[9] == '\0' || *end != '\0' || errno != 0 || v < 1) {
                cli_error("token: lifespan=%s: a number of seconds is needed",
                          a + 9);
                goto out;
            }
            json_object_set_new(req, "lifespan", json_integer(v));
        } else if (strncasecmp(a, "username=", 9) == 0) {
            json_object_set_new(req, "username", json_string(a + 9));
        } else {
            cli_error("token: unknown argument \"%s\" (usage: token "
                      "[lifespan=SECONDS] [username=NAME])",
                      a);
            goto out;
        }
    }
    if (cli_call(PROTO_MSG_AUTH_TOKEN, req, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
        goto out;
    }
    printf("SLURM_JWT=%s\n",
           json_string_value(json_object_get(reply, "token")));
    rc = 0;
out:
    json_decref(req);
    json_decref(reply);
    return rc;
}
