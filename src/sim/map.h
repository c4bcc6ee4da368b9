/*
 * --map: how a trace's partitions (SWF partition numbers, the Alibaba
 * trace's QoS classes) become partitions and QOS of the configuration
 * replayed: "0=prod:gpu,1=backtest,2=dev:gpu=2:qos=dev_qos,*=backtest".
 * Each entry FROM=PARTITION with options :gpu (GPUs in proportion to the
 * job's share of a node), :gpu=N (N per node), :nogpu, :qos=NAME; FROM
 * "*" matches what no other entry does.
 */
#ifndef SLUICE_SIM_MAP_H
#define SLUICE_SIM_MAP_H

#include <stddef.h>

#include "common/err.h"

/* What a map entry says about GPUs. */
enum sim_map_gpu {
    SIM_MAP_GPU_DEFAULT, /* the format's own rule */
    SIM_MAP_GPU_NONE,    /* :nogpu */
    SIM_MAP_GPU_SHARE,   /* :gpu */
    SIM_MAP_GPU_FIXED,   /* :gpu=N */
};

struct sim_map_entry {
    char *from;
    char *part; /* "" : the default partition */
    char *qos;  /* NULL: none given */
    enum sim_map_gpu gpu;
    unsigned gpus; /* :gpu=N */
};

struct sim_map {
    struct sim_map_entry *e;
    size_t n;
};

/* sim_map_parse: s into m (emptied first; s NULL or "": no entries).
 * -1 with EINVAL and e naming the bad entry; m is then empty. */
int sim_map_parse(const char *s, struct sim_map *m, struct err *e);
void sim_map_free(struct sim_map *m);

/* sim_map_find: the entry for from, else the "*" entry, else NULL. */
const struct sim_map_entry *sim_map_find(const struct sim_map *m,
                                         const char *from);

#endif
