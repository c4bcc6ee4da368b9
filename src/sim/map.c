/*
 * --map entries (map.h).
 */
#include "sim/map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/value.h"
#include "common/xalloc.h"

void sim_map_free(struct sim_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->e[i].from);
        free(m->e[i].part);
        free(m->e[i].qos);
    }
    free(m->e);
    m->e = NULL;
    m->n = 0;
}

/* The options after PARTITION: ":gpu", ":gpu=N", ":nogpu", ":qos=Q". */
static int options(char *opt, struct sim_map_entry *me, struct err *e)
{
    char *save = NULL;
    uint64_t n;

    for (char *o = strtok_r(opt, ":", &save); o != NULL;
         o = strtok_r(NULL, ":", &save)) {
        if (strcmp(o, "gpu") == 0)
            me->gpu = SIM_MAP_GPU_SHARE;
        else if (strcmp(o, "nogpu") == 0)
            me->gpu = SIM_MAP_GPU_NONE;
        else if (strncmp(o, "gpu=", 4) == 0 &&
                 value_parse_u64(o + 4, 1, 4096, &n, NULL) == 0) {
            me->gpu = SIM_MAP_GPU_FIXED;
            me->gpus = (unsigned)n;
        } else if (strncmp(o, "qos=", 4) == 0 && o[4] != '\0') {
            free(me->qos);
            me->qos = xstrdup(o + 4);
        } else {
            return err_inval(e,
                             "--map: \"%.64s\": expected gpu, gpu=N (1-4096), "
                             "nogpu or qos=NAME",
                             o);
        }
    }
    return 0;
}

int sim_map_parse(const char *s, struct sim_map *m, struct err *e)
{
    char *copy, *save = NULL;
    int rc = 0;

    sim_map_free(m);
    if (s == NULL || *s == '\0')
        return 0;
    copy = xstrdup(s);
    for (char *it = strtok_r(copy, ",", &save); it != NULL && rc == 0;
         it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '='), *colon;
        struct sim_map_entry me = {0};
        if (eq == NULL || eq == it) {
            rc = err_inval(e, "--map: \"%.64s\": expected FROM=PARTITION", it);
            break;
        }
        *eq = '\0';
        colon = strchr(eq + 1, ':');
        if (colon != NULL)
            *colon++ = '\0';
        me.from = xstrdup(it);
        me.part = xstrdup(eq + 1);
        if (colon != NULL && options(colon, &me, e) < 0)
            rc = -1;
        m->e = xreallocarray(m->e, m->n + 1, sizeof(*m->e));
        m->e[m->n++] = me;
    }
    free(copy);
    if (rc < 0)
        sim_map_free(m);
    return rc;
}

const struct sim_map_entry *sim_map_find(const struct sim_map *m,
                                         const char *from)
{
    const struct sim_map_entry *any = NULL;

    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->e[i].from, from) == 0)
            return &m->e[i];
        if (strcmp(m->e[i].from, "*") == 0 && any == NULL)
            any = &m->e[i];
    }
    return any;
}
