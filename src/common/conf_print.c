/*
 * The canonical print of a configuration (every key with its effective
 * value, nodes one per line, partitions with compressed node lists) and
 * its JSON twin.  Both walk the same key tables as the parser, so that the
 * print parses back to itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conf_int.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

/* The partition's nodes as a compressed hostlist; caller frees. */
static char *print_part_nodes(const struct conf *c, const struct conf_part *p)
{
    struct hostlist *hl = hostlist_create();
    char *s;

    for (size_t k = 0; k < p->n_nodes; k++)
        hostlist_push_host(hl, c->nodes[p->node_idx[k]].name);
    s = hostlist_compress(hl);
    hostlist_destroy(hl);
    return s;
}

void conf_print(const struct conf *c, FILE *fp)
{
    const struct conf_part *def = conf_part_default(c);

    fputs("# Sluice configuration, canonical form: every key with its "
          "effective value.\n",
          fp);
    conf_keys_print(conf_cluster_keys, c, fp, "", "\n");
    fprintf(fp, "\n# %zu node%s\n", c->n_nodes, c->n_nodes == 1 ? "" : "s");
    for (size_t i = 0; i < c->n_nodes; i++) {
        fprintf(fp, "NodeName=%s", c->nodes[i].name);
        conf_keys_print(conf_node_keys, &c->nodes[i], fp, " ", "");
        fputc('\n', fp);
    }
    fprintf(fp, "\n# %zu partition%s; jobs without -p go to %s\n", c->n_parts,
            c->n_parts == 1 ? "" : "s", def ? def->name : "none");
    for (size_t i = 0; i < c->n_parts; i++) {
        const struct conf_part *p = &c->parts[i];
        char *nodes = print_part_nodes(c, p);
        fputs("PartitionName=", fp);
        conf_print_value(fp, p->name);
        if (nodes[0] != '\0')
            fprintf(fp, " Nodes=%s", nodes);
        conf_keys_print(conf_part_keys, p, fp, " ", "");
        fputc('\n', fp);
        free(nodes);
    }
}

static json_t *json_node(const struct conf_node *n)
{
    json_t *o = json_object();

    json_object_set_new(o, "name", json_string(n->name));
    conf_keys_json(conf_node_keys, n, o);
    json_object_set_new(
        o, "gpus", json_integer((json_int_t)gres_count(n->gres, "gpu", NULL)));
    return o;
}

static json_t *json_part(const struct conf *c, const struct conf_part *p)
{
    json_t *o = json_object();
    json_t *names = json_array();
    char *nodes = print_part_nodes(c, p);

    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "nodes", json_string(nodes));
    for (size_t k = 0; k < p->n_nodes; k++)
        json_array_append_new(names,
                              json_string(c->nodes[p->node_idx[k]].name));
    json_object_set_new(o, "node_names", names);
    conf_keys_json(conf_part_keys, p, o);
    free(nodes);
    return o;
}

json_t *conf_to_json(const struct conf *c)
{
    json_t *o = json_object();
    json_t *nodes = json_array();
    json_t *parts = json_array();
    const struct conf_part *def = conf_part_default(c);

    conf_keys_json(conf_cluster_keys, c, o);
    for (size_t i = 0; i < c->n_nodes; i++)
        json_array_append_new(nodes, json_node(&c->nodes[i]));
    for (size_t i = 0; i < c->n_parts; i++)
        json_array_append_new(parts, json_part(c, &c->parts[i]));
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "partitions", parts);
    json_object_set_new(o, "default_partition",
                        def ? json_string(def->name) : json_null());
    return o;
}
