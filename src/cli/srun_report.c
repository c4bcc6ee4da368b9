/*
 * The step as the controller made it (STEP_CREATE's reply), and how its
 * tasks ended: Slurm's lines for the ones that failed and srun's exit
 * status.
 */
#include "cli/srun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* More tasks than this in one reply is not a reply. */
#define SRUN_MAX_TASKS (1u << 20)

void srun_step_clear(struct srun_step *s)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        free(s->nodes[i]);
    free(s->nodes);
    free(s->task_node);
    free(s->job_name);
    free(s->user);
    memset(s, 0, sizeof(*s));
}

static int bad_reply(struct err *e, const char *what)
{
    errno = EBADMSG;
    return err_set(e, "the controller's reply to STEP_CREATE is broken: %s",
                   what);
}

/* The tasks of node i: each a task id below ntasks, none seen before. */
static int step_node_tasks(struct srun_step *s, size_t i, json_t *ids,
                           bool *seen, struct err *e)
{
    json_t *v;
    size_t k;

    if (!json_is_array(ids))
        return bad_reply(e, "tasks is not a list per node");
    json_array_foreach(ids, k, v)
    {
        json_int_t t = json_integer_value(v);
        if (!json_is_integer(v) || t < 0 || t >= (json_int_t)s->ntasks ||
            seen[t])
            return bad_reply(e, "a task id is out of range or repeated");
        seen[t] = true;
        s->task_node[t] = (uint32_t)i;
    }
    return 0;
}

static int step_layout(json_t *reply, struct srun_step *s, struct err *e)
{
    json_t *nodes = json_object_get(reply, "nodes");
    json_t *tasks = json_object_get(reply, "tasks");
    bool *seen;
    int rc = 0;

    if (!json_is_array(nodes) || !json_is_array(tasks) ||
        json_array_size(nodes) == 0 ||
        json_array_size(nodes) != json_array_size(tasks))
        return bad_reply(e, "nodes and tasks do not match");
    s->nodes = xcalloc(json_array_size(nodes), sizeof(*s->nodes));
    s->task_node = xcalloc(s->ntasks, sizeof(*s->task_node));
    seen = xcalloc(s->ntasks, sizeof(*seen));
    for (size_t i = 0; rc == 0 && i < json_array_size(nodes); i++) {
        const char *name = json_string_value(json_array_get(nodes, i));
        if (name == NULL) {
            rc = bad_reply(e, "a node name is not a string");
            break;
        }
        s->nodes[s->n_nodes++] = xstrdup(name);
        rc = step_node_tasks(s, i, json_array_get(tasks, i), seen, e);
    }
    for (uint32_t t = 0; rc == 0 && t < s->ntasks; t++)
        if (!seen[t])
            rc = bad_reply(e, "a task is on no node");
    free(seen);
    return rc;
}

int srun_step_from_reply(json_t *reply, struct srun_step *s, struct err *e)
{
    json_int_t job = json_integer_value(json_object_get(reply, "job_id"));
    json_int_t step = json_integer_value(json_object_get(reply, "step_id"));
    json_int_t ntasks = json_integer_value(json_object_get(reply, "ntasks"));
    json_int_t wait = json_integer_value(json_object_get(reply, "kill_wait_s"));

    memset(s, 0, sizeof(*s));
    if (job <= 0 || job > UINT32_MAX || step < 0 || step > UINT32_MAX)
        return bad_reply(e, "no job or step id");
    if (ntasks <= 0 || ntasks > SRUN_MAX_TASKS)
        return bad_reply(e, "no task count");
    s->job_id = (uint32_t)job;
    s->step_id = (uint32_t)step;
    s->ntasks = (uint32_t)ntasks;
    s->kill_wait_s = wait > 0 && wait < 65536 ? (uint32_t)wait : 30;
    if (step_layout(reply, s, e) < 0) {
        srun_step_clear(s);
        return -1;
    }
    return 0;
}

char *srun_task_ranges(const uint32_t *ids, size_t n, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        if (j > i)
            used += (size_t)snprintf(buf + used, len - used, "%s%u-%u",
                                     used ? "," : "", ids[i], ids[j]);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%u",
                                     used ? "," : "", ids[i]);
        i = j;
    }
    return buf;
}

static bool task_failed(const struct srun_task_end *t)
{
    return t->state == SRUN_TASK_EXITED && (t->exit_code != 0 || t->signal);
}

static bool same_end(const struct srun_task_end *a,
                     const struct srun_task_end *b)
{
    return a->exit_code == b->exit_code && a->signal == b->signal;
}

/* The lines of one node: its failed tasks grouped by how they ended, in
 * the order of each group's first task. */
static void report_node(FILE *fp, const char *prog, const struct srun_step *s,
                        uint32_t node, const struct srun_task_end *t,
                        uint32_t *ids, bool *done)
{
    char ranges[256];

    for (uint32_t first = 0; first < s->ntasks; first++) {
        size_t n = 0;
        if (s->task_node[first] != node || done[first] ||
            !task_failed(&t[first]))
            continue;
        for (uint32_t k = first; k < s->ntasks; k++) {
            if (s->task_node[k] != node || !task_failed(&t[k]) ||
                !same_end(&t[k], &t[first]))
                continue;
            ids[n++] = k;
            done[k] = true;
        }
        srun_task_ranges(ids, n, ranges, sizeof(ranges));
        if (t[first].signal != 0)
            fprintf(fp, "%s: error: %s: task%s %s: %s\n", prog, s->nodes[node],
                    n > 1 ? "s" : "", ranges, strsignal(t[first].signal));
        else
            fprintf(fp, "%s: error: %s: task%s %s: Exited with exit code %d\n",
                    prog, s->nodes[node], n > 1 ? "s" : "", ranges,
                    t[first].exit_code);
    }
}

void srun_report(FILE *fp, const char *prog, const struct srun_step *s,
                 const struct srun_task_end *t)
{
    uint32_t *ids = xcalloc(s->ntasks, sizeof(*ids));
    bool *done = xcalloc(s->ntasks, sizeof(*done));

    for (uint32_t node = 0; node < s->n_nodes; node++)
        report_node(fp, prog, s, node, t, ids, done);
    free(ids);
    free(done);
}

int srun_exit_code(const struct srun_task_end *t, uint32_t ntasks)
{
    int rc = 0;

    for (uint32_t i = 0; i < ntasks; i++) {
        int v = 0;
        if (t[i].state == SRUN_TASK_LOST)
            v = 1;
        else if (t[i].state == SRUN_TASK_EXITED)
            v = t[i].signal != 0 ? 128 + t[i].signal : t[i].exit_code;
        if (v > rc)
            rc = v;
    }
    return rc > 255 ? 255 : rc;
}
