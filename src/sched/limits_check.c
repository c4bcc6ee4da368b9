/*
 * The submit-time verdict of the limit engine: the submit limits
 * (MaxSubmitJobs*, GrpSubmitJobs) against what is queued now, and with
 * DenyOnLimit the run-time limits a job alone can never meet.  The
 * run-time side is limits_pass.c.  docs/limits.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/timefmt.h"
#include "sched/limits_int.h"

int lim_user_assoc(const struct limits_job *j)
{
    for (size_t i = 0; i < j->nlevels; i++)
        if (j->levels[i].kind == LIMITS_ASSOC)
            return (int)i;
    return -1;
}

const char *lim_assoc_key(const struct limits_level *l)
{
    return l->key != NULL ? l->key : l->name;
}

/* Who a level stands for in messages: "dev_qos", "account physics". */
static void level_desc(const struct limits_level *l, char *buf, size_t len)
{
    if (l->kind == LIMITS_QOS)
        snprintf(buf, len, "%s", l->name);
    else
        snprintf(buf, len, "account %s", l->name);
}

static uint64_t submitted(const struct lim_entry *e)
{
    return e != NULL ? e->submitted : 0;
}

/* Jobs that limit w of level i counts for j, now. */
static uint64_t submit_usage(const struct limits_usage *u,
                             const struct limits_job *j, size_t i,
                             enum lim_what w)
{
    const struct limits_level *l = &j->levels[i];
    int ua;

    if (l->kind == LIMITS_QOS) {
        if (w == W_MAX_SUBMIT_PU)
            return submitted(lim_find(u, ENT_QOS_USER, l->name, j->user));
        if (w == W_MAX_SUBMIT_PA)
            return submitted(lim_find(u, ENT_QOS_ACCT, l->name, j->account));
        return submitted(lim_find(u, ENT_QOS, l->name, NULL));
    }
    if (w == W_GRP_SUBMIT)
        return submitted(lim_find(u, ENT_ASSOC, lim_assoc_key(l), NULL));
    /* MaxSubmitJobs counts the user's own association, wherever it is set */
    ua = lim_user_assoc(j);
    return submitted(
        lim_find(u, ENT_ASSOC, lim_assoc_key(&j->levels[ua]), NULL));
}

/* Reject j for submit limit w of level i when one more job is too many. */
static int check_one(const struct limits_usage *u, const struct limits_job *j,
                     size_t i, enum lim_what w, const char **reason,
                     struct err *e)
{
    const struct limits_level *l = &j->levels[i];
    uint64_t max = lim_level_value(l, w, 0);
    uint64_t used = submit_usage(u, j, i, w);
    char who[160], in[160];

    if (used < max)
        return 0;
    *reason = lim_reason(l->kind, w, 0);
    in[0] = '\0';
    if (w == W_GRP_SUBMIT) {
        level_desc(l, who, sizeof(who));
    } else if (w == W_MAX_SUBMIT_PA) {
        snprintf(who, sizeof(who), "account %s", j->account);
        snprintf(in, sizeof(in), " in %s", l->name);
    } else {
        snprintf(who, sizeof(who), "%s", j->user);
        if (l->kind == LIMITS_QOS)
            snprintf(in, sizeof(in), " in %s", l->name);
        else
            snprintf(in, sizeof(in), " in account %s", j->account);
    }
    errno = EDQUOT;
    return err_set(e, "%s: %s has %" PRIu64 "/%" PRIu64 " jobs%s", *reason, who,
                   used, max, in);
}

static int check_submit_limits(const struct limits_usage *u,
                               const struct limits_job *j, const char **reason,
                               struct err *e)
{
    static const enum lim_what max[] = {W_MAX_SUBMIT_PU, W_MAX_SUBMIT_PA};
    int i;

    for (size_t k = 0; k < 2; k++)
        if ((i = lim_decide(j, max[k], 0)) >= 0 &&
            check_one(u, j, (size_t)i, max[k], reason, e) < 0)
            return -1;
    for (size_t l = 0; l < j->nlevels; l++)
        if (lim_grp_applies(j, l, W_GRP_SUBMIT, 0) &&
            check_one(u, j, l, W_GRP_SUBMIT, reason, e) < 0)
            return -1;
    return 0;
}

static void tres_text(enum limits_tres t, uint64_t v, char *buf, size_t len)
{
    snprintf(buf, len, "%s=%" PRIu64 "%s", limits_tres_name(t), v,
             t == LIMITS_TRES_MEM ? "M" : "");
}

/* With DenyOnLimit: is the TRES limit w (t) of level i beyond j alone? */
static int check_tres(const struct limits_job *j, size_t i, enum lim_what w,
                      int t, const char **reason, struct err *e)
{
    static const char *const per[] = {[W_TRES_PJ] = "per job",
                                      [W_TRES_PU] = "per user",
                                      [W_GRP_TRES] = "in all"};
    const struct limits_level *l = &j->levels[i];
    uint64_t max = lim_level_value(l, w, t);
    char ask[64], lim[64], desc[160];

    if (j->tres[t] <= max)
        return 0;
    *reason = lim_reason(l->kind, w, t);
    tres_text((enum limits_tres)t, j->tres[t], ask, sizeof(ask));
    tres_text((enum limits_tres)t, max, lim, sizeof(lim));
    level_desc(l, desc, sizeof(desc));
    errno = EDQUOT;
    return err_set(e, "%s: job asks for %s, %s allows %s %s", *reason, ask,
                   desc, lim, per[w]);
}

static int check_wall(const struct limits_job *j, const char **reason,
                      struct err *e)
{
    int i = lim_decide(j, W_MAX_WALL, 0);
    char want[32], max[32], desc[160];
    const struct limits_level *l;

    if (i < 0)
        return 0;
    l = &j->levels[i];
    if (j->wall_s != LIMITS_UNSET && j->wall_s <= l->lim->max_wall_s)
        return 0;
    *reason = lim_reason(l->kind, W_MAX_WALL, 0);
    level_desc(l, desc, sizeof(desc));
    if (j->wall_s == LIMITS_UNSET)
        snprintf(want, sizeof(want), "UNLIMITED");
    else
        timefmt_format((int64_t)j->wall_s, want, sizeof(want));
    timefmt_format((int64_t)l->lim->max_wall_s, max, sizeof(max));
    errno = EDQUOT;
    return err_set(e, "%s: time limit %s is over the MaxWall %s of %s", *reason,
                   want, max, desc);
}

/* The run-time limits a job alone can never meet (DenyOnLimit). */
static int check_never(const struct limits_job *j, const char **reason,
                       struct err *e)
{
    static const enum lim_what first[] = {W_TRES_PJ, W_TRES_PU};
    int i;

    if (check_wall(j, reason, e) < 0)
        return -1;
    for (int t = 0; t < LIMITS_TRES_COUNT; t++) {
        for (size_t k = 0; k < 2; k++)
            if ((i = lim_decide(j, first[k], t)) >= 0 &&
                check_tres(j, (size_t)i, first[k], t, reason, e) < 0)
                return -1;
        for (size_t l = 0; l < j->nlevels; l++)
            if (lim_grp_applies(j, l, W_GRP_TRES, t) &&
                check_tres(j, l, W_GRP_TRES, t, reason, e) < 0)
                return -1;
    }
    return 0;
}

int limits_check_submit(const struct limits_usage *u,
                        const struct limits_job *j, const char **reason,
                        struct err *e)
{
    *reason = NULL;
    if (j->nlevels > LIMITS_LEVEL_MAX) {
        errno = EINVAL;
        return err_set(e, "%zu limit levels (at most %d)", j->nlevels,
                       LIMITS_LEVEL_MAX);
    }
    if (check_submit_limits(u, j, reason, e) < 0)
        return -1;
    if (j->deny_on_limit && check_never(j, reason, e) < 0)
        return -1;
    return 0;
}
