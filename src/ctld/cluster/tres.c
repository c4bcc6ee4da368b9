/*
 * TRES strings (see tres.h).
 */
#include "ctld/cluster/tres.h"

#include <inttypes.h>
#include <stdio.h>

char *tres_format(const struct tres *t, char *buf, size_t len)
{
    size_t off = 0;
    int k;

#define PUT(...)                                                               \
    do {                                                                       \
        k = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);       \
        if (k > 0)                                                             \
            off += (size_t)k;                                                  \
    } while (0)
    if (len == 0)
        return buf;
    buf[0] = '\0';
    PUT("cpu=%" PRIu64, t->cpus);
    if (t->mem_mib > 0 && t->mem_mib % 1024 == 0)
        PUT(",mem=%" PRIu64 "G", t->mem_mib / 1024);
    else if (t->mem_mib > 0)
        PUT(",mem=%" PRIu64 "M", t->mem_mib);
    if (t->nodes > 0)
        PUT(",node=%" PRIu64, t->nodes);
    if (t->billing > 0)
        PUT(",billing=%" PRIu64, t->billing);
    if (t->gpus > 0)
        PUT(",gres/gpu=%" PRIu64, t->gpus);
    if (t->gpus > 0 && t->gpu_type != NULL && t->gpu_type[0] != '\0')
        PUT(",gres/gpu:%s=%" PRIu64, t->gpu_type, t->gpus);
#undef PUT
    return buf;
}
