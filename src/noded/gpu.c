/*
 * GPU inventory of the node: NVML (through gpu_nvml.c) or the Name=gpu
 * lines of gres.conf, indexed in the order found, with a note for the
 * controller when fewer GPUs turn up than the configuration promises.
 */
#include "noded/gpu.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/gpu_nvml.h"

/* Problems met while detecting, joined for the note. */
struct notes {
    char text[480];
    size_t n, left_out;
};

static void note(struct notes *nt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct notes *nt, const char *fmt, ...)
{
    size_t used = strlen(nt->text);
    char buf[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (used + strlen(buf) + 40 < sizeof(nt->text))
        snprintf(nt->text + used, sizeof(nt->text) - used, "%s%s",
                 nt->n ? "; " : "", buf);
    else
        nt->left_out++;
    nt->n++;
}

int gpu_file_number(const char *file)
{
    size_t len = strlen(file), k = len;

    while (k > 0 && isdigit((unsigned char)file[k - 1]))
        k--;
    if (k == len || len - k > 6)
        return -1;
    return atoi(file + k);
}

static struct gpu *gpu_add(struct gpu_list *l, const char *type,
                           const char *file)
{
    struct gpu *g;
    int num = file ? gpu_file_number(file) : -1;

    if (l->n >= GPU_MAX)
        return NULL;
    l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
    g = &l->v[l->n];
    memset(g, 0, sizeof(*g));
    snprintf(g->type, sizeof(g->type), "%s", type);
    g->file = file ? xstrdup(file) : NULL;
    g->ordinal = num >= 0 ? num : (int)l->n;
    g->minor = -1;
    l->n++;
    return g;
}

static bool brand_word(const char *w, size_t n)
{
    static const char *brands[] = {"nvidia", "tesla", "geforce", "quadro"};

    for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++)
        if (strlen(brands[i]) == n && strncasecmp(w, brands[i], n) == 0)
            return true;
    return false;
}

/* Append word w (n bytes, up to its first '-') to out, lower-cased. */
static void type_add(char *out, size_t len, const char *w, size_t n)
{
    size_t used = strlen(out);

    n = strcspn(w, "-") < n ? strcspn(w, "-") : n;
    if (used > 0 && used + 1 < len)
        out[used++] = '_';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        unsigned char c = (unsigned char)w[i];
        out[used++] = isalnum(c) || c == '.' ? (char)tolower(c) : '_';
    }
    out[used] = '\0';
}

/* The word (up to its first '-') is letters only: "RTX", not "H200". */
static bool all_letters(const char *w, size_t n)
{
    for (size_t i = 0; i < n && w[i] != '-'; i++)
        if (!isalpha((unsigned char)w[i]))
            return false;
    return true;
}

void gpu_type_from_name(const char *name, char *type, size_t len)
{
    const char *p = name;
    int words = 0;
    size_t n;

    type[0] = '\0';
    for (;;) {
        p += strspn(p, " \t");
        n = strcspn(p, " \t");
        if (n == 0)
            break;
        if (words == 0 && brand_word(p, n)) {
            p += n;
            continue;
        }
        type_add(type, len, p, n);
        /* "H200" is the model; "RTX 4090" needs its second word */
        if (++words == 2 || !all_letters(p, n))
            break;
        p += n;
    }
    if (type[0] == '\0')
        snprintf(type, len, "gpu");
}

/* The Type= of a gres.conf gpu line for an NVML device with this file,
 * or of a typed gpu line without files; NULL when none says. */
static const char *conf_type(const struct gresconf *gc, const char *file)
{
    if (gc == NULL)
        return NULL;
    for (size_t i = 0; file != NULL && i < gc->n; i++) {
        const struct gresconf_rec *r = &gc->recs[i];
        for (size_t k = 0; strcmp(r->name, "gpu") == 0 && k < r->n_files; k++)
            if (strcmp(r->files[k], file) == 0)
                return r->type[0] ? r->type : NULL;
    }
    for (size_t i = 0; i < gc->n; i++)
        if (strcmp(gc->recs[i].name, "gpu") == 0 && gc->recs[i].n_files == 0 &&
            gc->recs[i].type[0] != '\0')
            return gc->recs[i].type;
    return NULL;
}

static void from_nvml(struct gpu_list *l, const struct gpu_nvml_dev *d,
                      size_t n, const struct gresconf *gc)
{
    char file[64], type[GRES_NAME_MAX];
    const char *ct;
    struct gpu *g;

    for (size_t i = 0; i < n; i++) {
        if (d[i].minor >= 0)
            snprintf(file, sizeof(file), "/dev/nvidia%d", d[i].minor);
        ct = conf_type(gc, d[i].minor >= 0 ? file : NULL);
        gpu_type_from_name(d[i].name, type, sizeof(type));
        if ((g = gpu_add(l, ct ? ct : type, d[i].minor >= 0 ? file : NULL)) ==
            NULL)
            break;
        g->name = d[i].name[0] ? xstrdup(d[i].name) : NULL;
        g->uuid = d[i].uuid[0] ? xstrdup(d[i].uuid) : NULL;
        g->pci_bus_id = d[i].pci_bus_id[0] ? xstrdup(d[i].pci_bus_id) : NULL;
        g->minor = d[i].minor;
        g->memory_mib = d[i].memory_mib;
        if (d[i].links != NULL) {
            g->links = xcalloc(n, sizeof(int));
            memcpy(g->links, d[i].links, n * sizeof(int));
        }
        log_info("gpu=%zu nvml name=\"%s\" type=%s uuid=%s pci=%s minor=%d "
                 "memory_mib=%" PRIu64,
                 l->n - 1, d[i].name, g->type, d[i].uuid, d[i].pci_bus_id,
                 d[i].minor, d[i].memory_mib);
    }
}

static void from_conf(struct gpu_list *l, const struct gresconf *gc,
                      struct notes *nt)
{
    struct stat st;

    for (size_t i = 0; i < gc->n; i++) {
        const struct gresconf_rec *r = &gc->recs[i];
        if (strcmp(r->name, "gpu") != 0)
            continue;
        for (uint64_t k = 0; r->n_files == 0 && k < r->count; k++)
            gpu_add(l, r->type, NULL);
        for (size_t k = 0; k < r->n_files; k++) {
            if (stat(r->files[k], &st) == 0) {
                gpu_add(l, r->type, r->files[k]);
                continue;
            }
            log_warnx("%s:%d: %s: %s; not reported", r->loc.file, r->loc.line,
                      r->files[k], strerror(errno));
            note(nt, "%s: %s (%s:%d)", r->files[k], strerror(errno),
                 r->loc.file, r->loc.line);
        }
    }
}

/* Ask NVML; true when it found GPUs (then they are in l). */
static bool try_nvml(const struct gpu_source *s, struct gpu_list *l,
                     struct notes *nt)
{
    struct gpu_nvml_dev *d;
    size_t n;
    struct err e;
    const char *pre =
        s->gc ? "gres.conf AutoDetect=nvml: " : "no gres.conf and ";

    if (gpu_nvml_probe(&d, &n, &e) < 0) {
        /* the note says it (sluiced logs it once its log is open) */
        log_debug("node=%s %s", s->node, e.text);
        if (errno == ENOENT && s->gc == NULL)
            note(nt, "no gres.conf and NVML not found: install the NVIDIA "
                     "driver or add gres.conf");
        else if (errno == ENOENT)
            note(nt, "%sNVML not found: install the NVIDIA driver", pre);
        else
            note(nt, "%s%s", pre, e.text);
        return false;
    }
    if (n == 0) {
        log_debug("node=%s NVML found no GPUs", s->node);
        note(nt, "%sNVML found no GPUs", pre);
        gpu_nvml_free(d, n);
        return false;
    }
    from_nvml(l, d, n, s->gc);
    gpu_nvml_free(d, n);
    l->nvml = true;
    return true;
}

void gpu_detect(const struct gpu_source *s, struct gpu_list *l)
{
    struct notes nt = {0};
    bool ask = s->gc ? s->gc->autodetect == GRESCONF_AUTODETECT_NVML
                     : s->want > 0 || s->probe;

    memset(l, 0, sizeof(*l));
    if (!(ask && try_nvml(s, l, &nt)) && s->gc != NULL)
        from_conf(l, s->gc, &nt);
    if (l->n >= s->want && !(s->probe && l->n == 0))
        return;
    if (nt.n == 0 && l->nvml)
        note(&nt, "NVML found %zu GPU%s", l->n, l->n == 1 ? "" : "s");
    else if (nt.n == 0)
        note(&nt, "gres.conf declares %zu GPU%s for %s", l->n,
             l->n == 1 ? "" : "s", s->node);
    if (nt.left_out > 0) {
        size_t used = strlen(nt.text);
        snprintf(nt.text + used, sizeof(nt.text) - used, "; and %zu more",
                 nt.left_out);
    }
    snprintf(l->note, sizeof(l->note), "%s", nt.text);
}

void gpu_list_fini(struct gpu_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct gpu *g = &l->v[i];
        free(g->file);
        free(g->name);
        free(g->uuid);
        free(g->pci_bus_id);
        free(g->links);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static json_t *gpu_json(const struct gpu_list *l, size_t i)
{
    const struct gpu *g = &l->v[i];
    json_t *o =
        json_pack("{s:I, s:s, s:o}", "index", (json_int_t)i, "type", g->type,
                  "file", g->file ? json_string(g->file) : json_null());
    json_t *links;

    if (g->name != NULL)
        json_object_set_new(o, "name", json_string(g->name));
    if (g->uuid != NULL)
        json_object_set_new(o, "uuid", json_string(g->uuid));
    if (g->pci_bus_id != NULL)
        json_object_set_new(o, "pci_bus_id", json_string(g->pci_bus_id));
    if (g->minor >= 0)
        json_object_set_new(o, "minor", json_integer(g->minor));
    if (g->memory_mib > 0)
        json_object_set_new(o, "memory_mib",
                            json_integer((json_int_t)g->memory_mib));
    if (g->links != NULL) {
        links = json_array();
        for (size_t k = 0; k < l->n; k++)
            json_array_append_new(links, json_integer(g->links[k]));
        json_object_set_new(o, "links", links);
    }
    return o;
}

json_t *gpu_list_json(const struct gpu_list *l)
{
    json_t *a = json_array();

    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(a, gpu_json(l, i));
    return a;
}

void gpu_list_gres(const struct gpu_list *l, struct gres_list *g)
{
    for (size_t i = 0; i < l->n; i++) {
        size_t k;
        for (k = 0; k < g->n; k++)
            if (strcmp(g->items[k].name, "gpu") == 0 &&
                strcmp(g->items[k].type, l->v[i].type) == 0)
                break;
        if (k == g->n) {
            if (g->n == GRES_MAX_ITEMS)
                continue;
            memset(&g->items[k], 0, sizeof(g->items[k]));
            snprintf(g->items[k].name, GRES_NAME_MAX, "gpu");
            snprintf(g->items[k].type, GRES_NAME_MAX, "%s", l->v[i].type);
            g->n++;
        }
        g->items[k].count++;
    }
}

/* Files [from, to) as "/dev/nvidia[0-3,5]" when they share a prefix and
 * end in numbers, else comma-separated. */
static void print_files(FILE *fp, const struct gpu *v, size_t from, size_t to)
{
    const char *f0 = v[from].file;
    size_t plen = strlen(f0);
    bool same = true;

    while (plen > 0 && isdigit((unsigned char)f0[plen - 1]))
        plen--;
    for (size_t i = from; i < to; i++) {
        int num = gpu_file_number(v[i].file);
        if (num < 0 || strncmp(v[i].file, f0, plen) != 0 ||
            strspn(v[i].file + plen, "0123456789") !=
                strlen(v[i].file + plen) ||
            (i > from && num <= gpu_file_number(v[i - 1].file)))
            same = false;
    }
    if (!same || to - from == 1) {
        for (size_t i = from; i < to; i++)
            fprintf(fp, "%s%s", i > from ? "," : "", v[i].file);
        return;
    }
    fprintf(fp, "%.*s[", (int)plen, f0);
    for (size_t i = from; i < to;) {
        size_t j = i;
        while (j + 1 < to &&
               gpu_file_number(v[j + 1].file) == gpu_file_number(v[j].file) + 1)
            j++;
        fprintf(fp, "%s%d", i > from ? "," : "", gpu_file_number(v[i].file));
        if (j > i)
            fprintf(fp, "-%d", gpu_file_number(v[j].file));
        i = j + 1;
    }
    fputc(']', fp);
}

static void print_line(FILE *fp, const struct gpu_list *l, const char *node,
                       size_t from, size_t to)
{
    const struct gpu *g = &l->v[from];

    fprintf(fp, "NodeName=%s Name=gpu", node);
    if (g->type[0] != '\0')
        fprintf(fp, " Type=%s", g->type);
    if (g->file != NULL) {
        fputs(" File=", fp);
        print_files(fp, l->v, from, to);
    } else {
        fprintf(fp, " Count=%zu", to - from);
    }
    if (g->links != NULL && to - from == 1) {
        fputs(" Links=", fp);
        for (size_t k = 0; k < l->n; k++)
            fprintf(fp, "%s%d", k ? "," : "", g->links[k]);
    }
    fputc('\n', fp);
}

void gpu_print_gresconf(const struct gpu_list *l, const char *node, FILE *fp)
{
    bool links = false;

    if (l->nvml)
        fprintf(fp, "NodeName=%s AutoDetect=nvml\n", node);
    for (size_t i = 0; i < l->n; i++)
        links = links || l->v[i].links != NULL;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        while (!links && j < l->n && strcmp(l->v[j].type, l->v[i].type) == 0 &&
               (l->v[j].file == NULL) == (l->v[i].file == NULL))
            j++;
        print_line(fp, l, node, i, j);
        i = j;
    }
}

void gpu_print_details(const struct gpu_list *l, FILE *fp)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct gpu *g = &l->v[i];
        fprintf(fp, "#   gpu%zu type=%s file=%s", i, g->type[0] ? g->type : "-",
                g->file ? g->file : "-");
        if (g->name != NULL)
            fprintf(fp, " name=\"%s\"", g->name);
        if (g->uuid != NULL)
            fprintf(fp, " uuid=%s", g->uuid);
        if (g->pci_bus_id != NULL)
            fprintf(fp, " pci=%s", g->pci_bus_id);
        if (g->memory_mib > 0)
            fprintf(fp, " memory_mib=%" PRIu64, g->memory_mib);
        if (g->links != NULL) {
            fputs(" nvlinks=", fp);
            for (size_t k = 0; k < l->n; k++)
                fprintf(fp, "%s%d", k ? "," : "", g->links[k]);
        }
        fputc('\n', fp);
    }
}
