/*
 * Slurm 22.05's options that have no effect in Sluice, and the
 * nearest-name suggestion for a misspelled option (slurmopts.h).
 */
#include "cli/slurmopts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"

#define B SLURMOPTS_SBATCH
#define A SLURMOPTS_SALLOC
#define R SLURMOPTS_SRUN

/* Sorted by long name.  The reasons are Sluice's own words. */
const struct slurmopt_warn slurmopts_warn_table[] = {
    {"accel-bind", 0, OPT_ARG, R, "no accelerator binding"},
    {"acctg-freq", 0, OPT_ARG, B | A | R,
     "usage is sampled at the node's fixed interval"},
    {"batch", 0, OPT_ARG, B, "the batch script runs on the job's first node"},
    {"bb", 0, OPT_ARG, B | A | R, "no burst buffers"},
    {"bbf", 0, OPT_ARG, B | A | R, "no burst buffers"},
    {"bcast", 0, OPT_OPTARG, R, "executables are not copied to the nodes"},
    {"bcast-exclude", 0, OPT_ARG, R, "executables are not copied to the nodes"},
    {"cluster-constraint", 0, OPT_ARG, B | A | R, "one cluster only"},
    {"clusters", 'M', OPT_ARG, B | A | R, "one cluster only"},
    {"compress", 0, OPT_OPTARG, R, "executables are not copied to the nodes"},
    {"container", 0, OPT_ARG, B | A | R, "no OCI containers"},
    {"contiguous", 0, OPT_NOARG, B | A | R, "node order is not considered"},
    {"core-spec", 'S', OPT_ARG, B | A | R, "no core specialization"},
    {"cpu-freq", 0, OPT_ARG, B | A | R, "no CPU frequency control"},
    {"delay-boot", 0, OPT_ARG, B | A | R, "nodes are never rebooted for a job"},
    {"disable-status", 'X', OPT_NOARG, R, "Ctrl-C handling is fixed"},
    {"epilog", 0, OPT_ARG, R, "no per-step prolog or epilog"},
    {"export", 0, OPT_ARG, R, "a step gets srun's whole environment"},
    {"export-file", 0, OPT_ARG, B, "only --export sets the environment"},
    {"get-user-env", 0, OPT_OPTARG, A,
     "the command runs in salloc's own environment"},
    {"gpu-freq", 0, OPT_ARG, B | A | R, "no GPU frequency control"},
    {"gpus-per-socket", 0, OPT_ARG, B | A | R, "no socket topology for GPUs"},
    {"het-group", 0, OPT_ARG, R, "no heterogeneous jobs"},
    {"ignore-pbs", 0, OPT_NOARG, B, "#PBS lines are never read"},
    {"immediate", 'I', OPT_OPTARG, B, "a batch job waits in the queue"},
    {"input", 'i', OPT_ARG, B, "a batch script's stdin is /dev/null"},
    {"kill-command", 'K', OPT_OPTARG, A,
     "the command is not signalled at the end"},
    {"licenses", 'L', OPT_ARG, B | A | R, "no licenses"},
    {"mcs-label", 0, OPT_ARG, B | A | R, "no MCS labels"},
    {"mem-bind", 0, OPT_ARG, B | A | R, "no NUMA memory binding"},
    {"mpi", 0, OPT_ARG, R, "tasks start without an MPI plugin"},
    {"msg-timeout", 0, OPT_ARG, R, "no launch message timeout to set"},
    {"multi-prog", 0, OPT_NOARG, R, "no multiple-program steps"},
    {"network", 0, OPT_ARG, B | A | R, "no network options"},
    {"nodefile", 'F', OPT_ARG, B | A | R, "give the nodes with --nodelist"},
    {"ntasks-per-core", 0, OPT_ARG, B | A | R, "no per-core task placement"},
    {"ntasks-per-socket", 0, OPT_ARG, B | A | R,
     "no per-socket task placement"},
    {"overcommit", 'O', OPT_NOARG, B | A | R, "CPUs are never overcommitted"},
    {"power", 0, OPT_ARG, B | A | R, "no power management"},
    {"prefer", 0, OPT_ARG, B | A | R, "no soft feature preferences"},
    {"profile", 0, OPT_ARG, B | A | R, "no profiling plugin"},
    {"prolog", 0, OPT_ARG, R, "no per-step prolog or epilog"},
    {"quit-on-interrupt", 0, OPT_NOARG, R, "Ctrl-C handling is fixed"},
    {"reboot", 0, OPT_NOARG, B | A | R, "nodes are never rebooted for a job"},
    {"relative", 'r', OPT_ARG, R, "steps are placed from the job's first node"},
    {"resv-ports", 0, OPT_OPTARG, R, "no reserved ports"},
    {"send-libs", 0, OPT_OPTARG, R, "executables are not copied to the nodes"},
    {"slurmd-debug", 0, OPT_ARG, R, "the node daemon keeps its own log level"},
    {"switches", 0, OPT_ARG, B | A | R, "no network topology"},
    {"task-epilog", 0, OPT_ARG, R, "no per-task prolog or epilog"},
    {"task-prolog", 0, OPT_ARG, R, "no per-task prolog or epilog"},
    {"test-only", 0, OPT_NOARG, R, "a step is not tested without running it"},
    {"thread-spec", 0, OPT_ARG, B | A | R, "no thread specialization"},
    {"threads", 'T', OPT_ARG, R, "no launch fan-out to set"},
    {"verbose", 'v', OPT_NOARG, B, "sbatch has no extra messages"},
    {"wait", 'W', OPT_ARG, R, "a step ends with its last task"},
    {"wait-all-nodes", 0, OPT_ARG, B | A,
     "a job's nodes are ready when it starts"},
    {"x11", 0, OPT_OPTARG, A | R, "no X11 forwarding"},
    {"no-allocate", 'Z', OPT_NOARG, R, "steps always run in an allocation"},
    {NULL, 0, OPT_NOARG, 0, NULL},
};

#undef B
#undef A
#undef R

static size_t warn_count(void)
{
    size_t n = 0;

    while (slurmopts_warn_table[n].long_name != NULL)
        n++;
    return n;
}

static bool has_long(const struct opt_def *defs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (defs[i].long_name != NULL && strcmp(defs[i].long_name, name) == 0)
            return true;
    return false;
}

static bool has_short(const struct opt_def *defs, size_t n, int c)
{
    for (size_t i = 0; i < n; i++)
        if (defs[i].short_name == c)
            return true;
    return false;
}

const struct opt_def *slurmopts_table(const struct opt_def *base, unsigned cmd,
                                      struct opt_def *buf, size_t cap)
{
    size_t n = 0;

    for (const struct opt_def *d = base; d->id != 0 && n + 1 < cap; d++)
        buf[n++] = *d;
    for (size_t i = 0; slurmopts_warn_table[i].long_name != NULL; i++) {
        const struct slurmopt_warn *w = &slurmopts_warn_table[i];
        if ((w->cmds & cmd) == 0 || has_long(buf, n, w->long_name) ||
            n + 1 >= cap)
            continue;
        buf[n] = (struct opt_def){w->long_name, 0, w->arg,
                                  SLURMOPTS_ID_BASE + (int)i};
        if (w->short_name != 0 && !has_short(buf, n, w->short_name))
            buf[n].short_name = w->short_name;
        n++;
    }
    buf[n] = (struct opt_def){NULL, 0, OPT_NOARG, 0};
    return buf;
}

bool slurmopts_is_warn(int id)
{
    return id >= SLURMOPTS_ID_BASE &&
           (size_t)(id - SLURMOPTS_ID_BASE) < warn_count();
}

int slurmopts_find(const struct opt_def *defs, const char *long_name)
{
    for (const struct opt_def *d = defs; d->id != 0; d++)
        if (d->long_name != NULL && strcmp(d->long_name, long_name) == 0)
            return d->id;
    return 0;
}

void slurmopts_note(json_t *notes, int id)
{
    const struct slurmopt_warn *w;
    char line[256];
    size_t i;
    json_t *v;

    if (!slurmopts_is_warn(id) || notes == NULL)
        return;
    w = &slurmopts_warn_table[id - SLURMOPTS_ID_BASE];
    snprintf(line, sizeof(line), "--%s has no effect in Sluice (%s)",
             w->long_name, w->reason);
    json_array_foreach(notes, i, v)
    {
        if (strcmp(json_string_value(v), line) == 0)
            return;
    }
    json_array_append_new(notes, json_string(line));
}

void slurmopts_help(const struct opt_def *table)
{
    size_t col = 0;

    printf("Accepted for Slurm compatibility, with a warning that they have "
           "no effect:\n");
    for (const struct opt_def *d = table; d->id != 0; d++) {
        char word[64];
        int n;
        if (!slurmopts_is_warn(d->id))
            continue;
        if (d->short_name != 0)
            n = snprintf(word, sizeof(word), "-%c/--%s", d->short_name,
                         d->long_name);
        else
            n = snprintf(word, sizeof(word), "--%s", d->long_name);
        if (col > 0 && col + (size_t)n + 1 > 76) {
            putchar('\n');
            col = 0;
        }
        printf("%s%s", col == 0 ? "  " : " ", word);
        col += (size_t)n + (col == 0 ? 2 : 1);
    }
    if (col > 0)
        putchar('\n');
}

void slurmopts_print(json_t *notes)
{
    size_t i;
    json_t *v;

    json_array_foreach(notes, i, v)
    {
        cli_warn("%s", json_string_value(v));
    }
}

/* Levenshtein distance of a and b (both short option names). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[130], cur[130];

    if (la > 128 || lb > 128)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] =
                sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof(*prev));
    }
    return prev[lb];
}

const char *slurmopts_nearest(const struct opt_def *defs, const char *word)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, len = strlen(word), limit;

    /* a third of the word, at least 2: "ntask-per-node", "tiem", "gpu" */
    limit = len / 3 > 2 ? len / 3 : 2;
    for (const struct opt_def *d = defs; d->id != 0; d++) {
        size_t dist;
        if (d->long_name == NULL)
            continue;
        dist = edit_distance(word, d->long_name);
        if (dist < best_d) {
            best_d = dist;
            best = d->long_name;
        }
    }
    return best_d <= limit ? best : NULL;
}

void slurmopts_error(const char *unknown, const struct opt_def *defs,
                     const char *text, const char *help)
{
    const char *near = NULL;

    if (unknown != NULL && unknown[0] != '\0')
        near = slurmopts_nearest(defs, unknown);
    if (near == NULL) {
        cli_error("%s (see '%s --help')", text, help);
        return;
    }
    cli_error("%s", text);
    cli_error("did you mean '--%s'?", near);
}
