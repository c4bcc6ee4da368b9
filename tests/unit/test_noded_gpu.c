/*
 * Unit tests for the node's GPU inventory: NVML through the fake
 * libnvidia-ml.so.1 (devices, names, UUIDs, minors, NVLinks, a failing
 * nvmlInit, no devices, no library), NVML names as GRES types, gres.conf
 * File= and count-only lines, the note that explains missing GPUs, and
 * the gres.conf lines sluiced -C prints.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/gresconf.h"
#include "noded/gpu.h"
#include "noded/gpu_nvml.h"

static char fake_lib[512];
static char tmpdir[64];

static int setup(void **state)
{
    const char *build = getenv("SLUICE_BUILD");

    (void)state;
    snprintf(fake_lib, sizeof(fake_lib), "%s/tests/fake_nvml/libnvidia-ml.so.1",
             build ? build : "build");
    if (access(fake_lib, R_OK) != 0) {
        fprintf(stderr, "%s is not built\n", fake_lib);
        return -1;
    }
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sluice-test-gpu.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The fake library, configured by vars ("K=V" strings, NULL ended). */
static void fake(const char *count, ...)
{
    static const char *vars[] = {"FAKE_NVML_COUNT",     "FAKE_NVML_NAMES",
                                 "FAKE_NVML_MINORS",    "FAKE_NVML_NVLINK",
                                 "FAKE_NVML_INIT_FAIL", "FAKE_NVML_LOG",
                                 "FAKE_NVML_MEMORY_MIB"};
    const char *kv;
    char key[64];
    va_list ap;

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    setenv("SLUICE_NVML_LIBRARY", fake_lib, 1);
    setenv("FAKE_NVML_COUNT", count, 1);
    va_start(ap, count);
    while ((kv = va_arg(ap, const char *)) != NULL) {
        snprintf(key, sizeof(key), "%.*s", (int)strcspn(kv, "="), kv);
        setenv(key, strchr(kv, '=') + 1, 1);
    }
    va_end(ap);
}

static void test_type_from_name(void **state)
{
    static const struct {
        const char *name, *type;
    } cases[] = {
        {"NVIDIA H200", "h200"},
        {"NVIDIA H100 80GB HBM3", "h100"},
        {"NVIDIA A100-SXM4-80GB", "a100"},
        {"Tesla V100-SXM2-16GB", "v100"},
        {"Tesla T4", "t4"},
        {"NVIDIA GeForce RTX 4090", "rtx_4090"},
        {"NVIDIA RTX A6000", "rtx_a6000"},
        {"NVIDIA L40S", "l40s"},
        {"NVIDIA GH200 480GB", "gh200"},
        {"NVIDIA", "gpu"},
        {"", "gpu"},
    };
    char type[GRES_NAME_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpu_type_from_name(cases[i].name, type, sizeof(type));
        if (strcmp(type, cases[i].type) != 0)
            fail_msg("\"%s\": got %s, want %s", cases[i].name, type,
                     cases[i].type);
    }
    assert_int_equal(gpu_file_number("/dev/nvidia12"), 12);
    assert_int_equal(gpu_file_number("/dev/nvidiactl"), -1);
    assert_int_equal(gpu_file_number("/dev/nvidia0"), 0);
}

static void test_nvml_devices(void **state)
{
    struct gpu_nvml_dev *d;
    char logpath[128], buf[64] = "";
    struct err e;
    size_t n;
    FILE *fp;

    (void)state;
    snprintf(logpath, sizeof(logpath), "%s/nvml.log", tmpdir);
    fake("3", "FAKE_NVML_NAMES=NVIDIA H200,NVIDIA A100-SXM4-80GB",
         "FAKE_NVML_MINORS=2,0,1", "FAKE_NVML_NVLINK=0-1,0-1,1-2",
         "FAKE_NVML_MEMORY_MIB=1024", NULL);
    setenv("FAKE_NVML_LOG", logpath, 1);
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_string_equal(d[0].name, "NVIDIA H200");
    assert_string_equal(d[1].name, "NVIDIA A100-SXM4-80GB");
    assert_string_equal(d[2].name, "NVIDIA A100-SXM4-80GB");
    assert_string_equal(d[1].uuid, "GPU-fa4e0000-0000-0000-0000-000000000001");
    assert_string_equal(d[2].pci_bus_id, "00000000:12:00.0");
    assert_int_equal(d[0].minor, 2);
    assert_int_equal(d[1].minor, 0);
    assert_int_equal(d[0].memory_mib, 1024);
    assert_non_null(d[0].links);
    assert_int_equal(d[0].links[0], -1);
    assert_int_equal(d[0].links[1], 2);
    assert_int_equal(d[0].links[2], 0);
    assert_int_equal(d[1].links[2], 1);
    assert_int_equal(d[2].links[0], 0);
    gpu_nvml_free(d, n);
    /* initialized once, shut down once */
    fp = fopen(logpath, "r");
    assert_non_null(fp);
    assert_int_equal(fread(buf, 1, sizeof(buf) - 1, fp), 14);
    fclose(fp);
    assert_string_equal(buf, "init\nshutdown\n");

    fake("2", NULL); /* no NVLink support */
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_null(d[0].links);
    gpu_nvml_free(d, n);
}

static void test_nvml_failures(void **state)
{
    struct gpu_nvml_dev *d;
    struct err e;
    size_t n;

    (void)state;
    fake("2", "FAKE_NVML_INIT_FAIL=1", NULL);
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), -1);
    assert_int_equal(errno, EIO);
    assert_string_equal(e.text, "nvmlInit failed: Driver Not Loaded");
    assert_null(d);

    fake("0", NULL);
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), 0);
    assert_int_equal(n, 0);
    gpu_nvml_free(d, n);

    setenv("SLUICE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(e.text, "NVML not found: /nonexistent/"));

    /* a library that is not NVML */
    setenv("SLUICE_NVML_LIBRARY", "libm.so.6", 1);
    assert_int_equal(gpu_nvml_probe(&d, &n, &e), -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(e.text, "libm.so.6 lacks nvmlInit"));
}

static struct gresconf *gc(const char *text)
{
    struct gresconf *g;
    struct err e;

    g = gresconf_parse_string(text, "gres.conf", "node01", NULL, &e);
    if (g == NULL)
        fail_msg("%s", e.text);
    return g;
}

/* NVML through gpu_detect: no gres.conf, AutoDetect with types. */
static void test_detect_nvml(void **state)
{
    struct gpu_source s = {"node01", NULL, 4, false};
    struct gpu_list l;
    struct gresconf *g;
    json_t *j;

    (void)state;
    fake("2", "FAKE_NVML_MINORS=1,3", NULL);
    gpu_detect(&s, &l);
    assert_true(l.nvml);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0].type, "h200");
    assert_string_equal(l.v[1].file, "/dev/nvidia3");
    assert_int_equal(l.v[1].ordinal, 3);
    assert_string_equal(l.note, "NVML found 2 GPUs");
    j = gpu_list_json(&l);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(j, 1), "minor")), 3);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(j, 0), "uuid")),
        "GPU-fa4e0000-0000-0000-0000-000000000000");
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(j, 0), "memory_mib")),
        143771);
    json_decref(j);
    gpu_list_fini(&l);

    /* Type= of the line naming the device file wins */
    g = gc("AutoDetect=nvml\nName=gpu Type=big File=/dev/nvidia3\n");
    s.gc = g;
    s.want = 2;
    gpu_detect(&s, &l);
    assert_string_equal(l.v[0].type, "h200");
    assert_string_equal(l.v[1].type, "big");
    assert_string_equal(l.note, "");
    gpu_list_fini(&l);
    gresconf_destroy(g);

    /* a gres.conf without AutoDetect does not ask NVML */
    g = gc("Name=gpu Count=1\n");
    s.gc = g;
    gpu_detect(&s, &l);
    assert_false(l.nvml);
    assert_int_equal(l.n, 1);
    assert_null(l.v[0].file);
    assert_string_equal(l.note, "gres.conf declares 1 GPU for node01");
    gpu_list_fini(&l);
    gresconf_destroy(g);
}

/* Why a node finds fewer GPUs than configured. */
static void test_detect_notes(void **state)
{
    struct gpu_source s = {"node01", NULL, 4, false};
    char text[512], f0[128], f1[128];
    struct gresconf *g;
    struct gpu_list l;
    FILE *fp;

    (void)state;
    setenv("SLUICE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    gpu_detect(&s, &l);
    assert_int_equal(l.n, 0);
    assert_string_equal(l.note, "no gres.conf and NVML not found: install "
                                "the NVIDIA driver or add gres.conf");
    gpu_list_fini(&l);

    fake("4", "FAKE_NVML_INIT_FAIL=1", NULL);
    gpu_detect(&s, &l);
    assert_string_equal(l.note,
                        "no gres.conf and nvmlInit failed: Driver Not Loaded");
    gpu_list_fini(&l);

    fake("0", NULL);
    gpu_detect(&s, &l);
    assert_string_equal(l.note, "no gres.conf and NVML found no GPUs");
    gpu_list_fini(&l);

    /* configured without GPUs: NVML is not asked, nothing to say */
    s.want = 0;
    fake("4", NULL);
    gpu_detect(&s, &l);
    assert_int_equal(l.n, 0);
    assert_string_equal(l.note, "");
    gpu_list_fini(&l);

    /* AutoDetect failing falls back to the File= lines that exist */
    snprintf(f0, sizeof(f0), "%s/nvidia0", tmpdir);
    snprintf(f1, sizeof(f1), "%s/nvidia1", tmpdir);
    fp = fopen(f0, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(text, sizeof(text),
             "AutoDetect=nvml\nName=gpu Type=h200 File=%s/nvidia[0-1]\n",
             tmpdir);
    g = gc(text);
    s.gc = g;
    s.want = 2;
    fake("4", "FAKE_NVML_INIT_FAIL=1", NULL);
    gpu_detect(&s, &l);
    assert_false(l.nvml);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].file, f0);
    assert_int_equal(l.v[0].ordinal, 0);
    snprintf(text, sizeof(text),
             "gres.conf AutoDetect=nvml: nvmlInit failed: Driver Not "
             "Loaded; %s: No such file or directory (gres.conf:2)",
             f1);
    assert_string_equal(l.note, text);
    gpu_list_fini(&l);
    gresconf_destroy(g);
}

static char *print(const struct gpu_list *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    gpu_print_gresconf(l, "node01", fp);
    fclose(fp);
    return buf;
}

static void test_print_gresconf(void **state)
{
    struct gpu_source s = {"node01", NULL, 0, true};
    struct gresconf *g;
    struct gpu_list l;
    char *out;

    (void)state;
    fake("4", "FAKE_NVML_MINORS=0,1,2,5", NULL);
    gpu_detect(&s, &l);
    out = print(&l);
    assert_string_equal(out, "NodeName=node01 AutoDetect=nvml\n"
                             "NodeName=node01 Name=gpu Type=h200 "
                             "File=/dev/nvidia[0-2,5]\n");
    free(out);
    gpu_list_fini(&l);

    fake("2", "FAKE_NVML_NVLINK=0-1", NULL);
    gpu_detect(&s, &l);
    out = print(&l);
    assert_string_equal(out, "NodeName=node01 AutoDetect=nvml\n"
                             "NodeName=node01 Name=gpu Type=h200 "
                             "File=/dev/nvidia0 Links=-1,1\n"
                             "NodeName=node01 Name=gpu Type=h200 "
                             "File=/dev/nvidia1 Links=1,-1\n");
    free(out);
    gpu_list_fini(&l);

    g = gc("Name=gpu Type=a Count=2\nName=gpu Count=1\n");
    s.gc = g;
    gpu_detect(&s, &l);
    out = print(&l);
    assert_string_equal(out, "NodeName=node01 Name=gpu Type=a Count=2\n"
                             "NodeName=node01 Name=gpu Count=1\n");
    free(out);
    gpu_list_fini(&l);
    gresconf_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_from_name),
        cmocka_unit_test(test_nvml_devices),
        cmocka_unit_test(test_nvml_failures),
        cmocka_unit_test(test_detect_nvml),
        cmocka_unit_test(test_detect_notes),
        cmocka_unit_test(test_print_gresconf),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
