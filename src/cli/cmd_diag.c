/*
 * sluice diag / sdiag: the scheduler's statistics (SCHED_DIAG): main
 * passes and backfill cycles, their durations, jobs started, depth and
 * queue length, in sdiag's layout, or --json; before them whether the
 * controller's state directory takes changes.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/fmt.h"
#include "common/proto.h"

static long long iv(json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static double dv(json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

static void when(const char *label, long long t)
{
    char buf[FMT_BUFLEN];

    printf("\t%-28s %s (%lld)\n", label,
           fmt_time((time_t)t, "N/A", buf, sizeof(buf)), t);
}

/* The controller's state directory: whether it takes changes. */
static void state_print(json_t *st)
{
    json_t *fb = json_object_get(st, "free_bytes");
    char free_s[32] = "unknown";

    if (st == NULL)
        return;
    if (json_is_integer(fb))
        snprintf(free_s, sizeof(free_s), "%lld MiB",
                 (long long)(json_integer_value(fb) >> 20));
    printf("Controller state (StateSaveLocation %s):\n",
           json_string_value(json_object_get(st, "dir")));
    printf("\t%-28s %s\n", "Takes changes:",
           json_is_true(json_object_get(st, "writable")) ? "yes" : "no");
    printf("\t%-28s %s\n", "Free space:", free_s);
    printf("\t%-28s %lld MiB (SluiceStateMinFree)\n",
           "Kept free:", iv(st, "min_free_bytes") >> 20);
    printf("\t%-28s %lld\n", "Changes refused:", iv(st, "refused"));
    if (!json_is_true(json_object_get(st, "writable")))
        printf("\t%s\n", json_string_value(json_object_get(st, "reason")));
    putchar('\n');
}

static void diag_print(json_t *r)
{
    json_t *m = json_object_get(r, "main"), *b = json_object_get(r, "backfill");
    char buf[FMT_BUFLEN];

    printf("*******************************************************\n");
    printf("sdiag output at %s (%lld)\n",
           fmt_time((time_t)iv(r, "now"), "N/A", buf, sizeof(buf)),
           iv(r, "now"));
    printf("Data since      %s (%lld)\n",
           fmt_time((time_t)iv(r, "since"), "N/A", buf, sizeof(buf)),
           iv(r, "since"));
    printf("*******************************************************\n\n");
    state_print(json_object_get(r, "state"));
    printf("Main schedule statistics (microseconds):\n");
    printf("\t%-28s %lld\n", "Last cycle:", iv(m, "last_us"));
    printf("\t%-28s %lld\n", "Max cycle:", iv(m, "max_us"));
    printf("\t%-28s %lld\n", "Total cycles:", iv(m, "passes"));
    printf("\t%-28s %.0f\n", "Mean cycle:", dv(m, "mean_us"));
    printf("\t%-28s %lld\n",
           "Cycles that started jobs:", iv(m, "passes_with_start"));
    printf("\t%-28s %lld\n", "Jobs started:", iv(m, "jobs_started"));
    printf("\t%-28s %.2f\n",
           "Jobs started per cycle:", dv(m, "started_per_pass"));
    printf("\t%-28s %lld\n", "Last queue length:", iv(m, "queue_length"));
    when("Last cycle when:", iv(m, "last_pass_time"));
    printf("\nBackfilling stats (%s, %s)\n",
           json_string_value(json_object_get(r, "scheduler_type")),
           json_string_value(json_object_get(r, "backfill_state")));
    printf("\t%-28s %lld\n",
           "Total backfilled jobs:", iv(b, "jobs_backfilled"));
    printf("\t%-28s %lld\n", "Total cycles:", iv(b, "cycles"));
    printf("\t%-28s %lld\n", "Slices:", iv(b, "slices"));
    when("Last cycle when:", iv(b, "last_cycle_time"));
    printf("\t%-28s %lld\n", "Last cycle:", iv(b, "last_cycle_us"));
    printf("\t%-28s %lld\n", "Max cycle:", iv(b, "max_cycle_us"));
    printf("\t%-28s %.0f\n", "Mean cycle:", dv(b, "mean_cycle_us"));
    printf("\t%-28s %lld\n", "Last depth cycle:", iv(b, "last_depth"));
    printf("\t%-28s %lld\n", "Max depth cycle:", iv(b, "max_depth"));
    printf("\t%-28s %lld\n", "Current depth:", iv(b, "current_depth"));
    printf("\t%-28s %lld\n", "Last reservations:", iv(b, "last_reserved"));
    printf("\t%-28s %lld jobs, %lld us budget\n",
           "Slice size:", iv(b, "slice_jobs"), iv(r, "slice_budget_us"));
}

enum { D_JSON = 1, D_HELP };

static const struct opt_def diag_opts[] = {
    {"json", 0, OPT_NOARG, D_JSON},
    {"help", 0, OPT_NOARG, D_HELP},
    {"usage", 0, OPT_NOARG, D_HELP},
    {NULL, 0, OPT_NOARG, 0},
};

int cmd_diag(int argc, char **argv)
{
    json_t *reply = NULL;
    struct opt_state st;
    const char *arg;
    struct err e;
    bool json = false;
    int id, rc;

    cli_set_prog(argv[0]);
    opt_init(&st, argc, argv, 1, false);
    while ((rc = opt_next(&st, diag_opts, &id, &arg, &e)) > 0) {
        if (id == D_HELP) {
            printf("Usage: %s [--json]\n",
                   cli_slurm_face() ? "sdiag" : "sluice diag");
            opt_free(&st);
            return 0;
        }
        json = true;
        cli_set_raw(true); /* exact JSON out */
    }
    if (cli_opt_end(&st, rc, &e) < 0)
        return 2;
    rc = 0;
    if (cli_call(PROTO_MSG_SCHED_DIAG, NULL, &reply, &e) < 0) {
        cli_error("%s", e.text);
        rc = 1;
    } else if (json) {
        json_dumpf(reply, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        diag_print(reply);
    }
    json_decref(reply);
    cli_close();
    return rc;
}
