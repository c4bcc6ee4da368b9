/*
 * One scheduling pass with backfill, as the controller runs it and the
 * simulator replays it: the main pass, then a slice of the backfill cycle
 * that is either begun over it or resumed where the last slice stopped
 * (sched_bf_step in backfill.h).
 */
#include <errno.h>
#include <string.h>

#include "sched/backfill.h"

/* The main pass, and the backfill cycle begun over it unless the cycle
 * under way goes on (resume). */
static int main_pass(struct sched_bf_cycle *cy, struct sched_cluster *c,
                     const struct sched_bf *bf, bool resume, time_t now,
                     struct sched_result *r)
{
    if (sched_pass(c, now, r) < 0)
        return -1;
    for (size_t k = 0; k < r->n; k++)
        if (r->decisions[k].nnodes > 0)
            r->decisions[k].start_est = now;
    if (resume)
        return 0;
    if (sched_bf_cycle_begin(cy, c, bf, now, r) < 0) {
        sched_result_clear(r);
        return -1;
    }
    return 0;
}

int sched_bf_step(struct sched_bf_cycle *cy, struct sched_cluster *c,
                  const struct sched_bf *bf, bool cont, bool event, time_t now,
                  struct sched_result *out, struct sched_bf_stats *st,
                  bool *ran_main)
{
    struct sched_result bfr;
    bool resume;

    memset(st, 0, sizeof(*st));
    st->done = true;
    resume = cont && sched_bf_cycle_valid(cy, c, bf, now);
    *ran_main = !resume || event;
    if (!*ran_main)
        memset(out, 0, sizeof(*out));
    else if (main_pass(cy, c, bf, resume, now, out) < 0)
        goto error;
    if (resume && *ran_main && out->started > 0) {
        resume = false; /* the main pass changed the profile */
        if (sched_bf_cycle_begin(cy, c, bf, now, out) < 0) {
            sched_result_clear(out);
            goto error;
        }
    }
    if (sched_bf_slice(cy, c, bf, now, &bfr, st) < 0) {
        sched_result_clear(out);
        goto error;
    }
    st->restarted = !resume;
    if (*ran_main)
        sched_bf_merge(out, &bfr, c->njobs);
    else
        *out = bfr;
    return 0;
error:
    memset(out, 0, sizeof(*out));
    errno = EINVAL;
    return -1;
}

int sched_backfill_pass(struct sched_cluster *c, const struct sched_bf *conf,
                        time_t now, struct sched_result *out,
                        struct sched_bf_stats *st)
{
    struct sched_bf whole = *conf;
    struct sched_bf_stats local;
    struct sched_bf_cycle *cy = sched_bf_cycle_create();
    bool ran_main;
    int rc;

    whole.max_examine = 0;
    whole.clock_us = NULL;
    rc = sched_bf_step(cy, c, &whole, false, true, now, out,
                       st != NULL ? st : &local, &ran_main);
    sched_bf_cycle_destroy(cy);
    return rc;
}
