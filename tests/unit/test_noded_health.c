/*
 * Whether a node's GPUs are fenced (src/noded/health.c), judged from what
 * the node found: its cgroup, ConstrainDevices, the GPUs' device files,
 * /dev/nvidia*, and on v2 whether a BPF device program loads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "noded/health.h"

struct fence_case {
    const char *name;
    struct health_fence_facts f;
    enum health_fence want;
    const char *why; /* a part of the reason, or NULL */
};

static const struct fence_case fence_cases[] = {
    {"no GPUs at all",
     {.version = CGROUP_V2, .devices = true},
     HEALTH_FENCE_NONE,
     NULL},
    {"count-only GPUs on a machine without GPUs",
     {.version = CGROUP_V2, .devices = true, .gpus = 4},
     HEALTH_FENCE_NONE,
     NULL},
    {"count-only GPUs on a machine with GPUs",
     {.version = CGROUP_V2,
      .devices = true,
      .constrain = true,
      .gpus = 4,
      .dev_nvidia = 8},
     HEALTH_FENCE_OFF,
     "by count only, but this machine has 8 /dev/nvidia*"},
    {"no GPUs reported on a machine with GPUs (the gres check's business)",
     {.version = CGROUP_V2, .devices = true, .dev_nvidia = 8},
     HEALTH_FENCE_NONE,
     NULL},
    {"device files, ConstrainDevices=no",
     {.version = CGROUP_V2,
      .devices = true,
      .gpus = 4,
      .gpu_files = 4,
      .dev_nvidia = 4},
     HEALTH_FENCE_OFF,
     "ConstrainDevices=no in cgroup.conf: every job can "
     "open all 4 GPUs"},
    {"device files, no cgroup",
     {.version = CGROUP_NONE,
      .constrain = true,
      .cgroup_why = "read-only",
      .gpus = 2,
      .gpu_files = 2},
     HEALTH_FENCE_OFF,
     "there is no cgroup (read-only)"},
    {"device files, v1 without a devices hierarchy",
     {.version = CGROUP_V1, .constrain = true, .gpus = 2, .gpu_files = 2},
     HEALTH_FENCE_OFF,
     "no writable devices hierarchy"},
    {"device files, v2, BPF refused",
     {.version = CGROUP_V2,
      .devices = true,
      .constrain = true,
      .gpus = 2,
      .gpu_files = 2,
      .bpf_errno = EPERM},
     HEALTH_FENCE_OFF,
     "cannot be loaded (Operation not permitted"},
    {"device files, v2, BPF loads",
     {.version = CGROUP_V2,
      .devices = true,
      .constrain = true,
      .gpus = 2,
      .gpu_files = 2},
     HEALTH_FENCE_ON,
     NULL},
    {"device files, v1 with devices",
     {.version = CGROUP_V1,
      .devices = true,
      .constrain = true,
      .gpus = 2,
      .gpu_files = 2},
     HEALTH_FENCE_ON,
     NULL},
};

static void test_fence_judge(void **state)
{
    char why[400];

    (void)state;
    for (size_t i = 0; i < sizeof(fence_cases) / sizeof(fence_cases[0]); i++) {
        const struct fence_case *c = &fence_cases[i];
        enum health_fence got = health_fence_judge(&c->f, why, sizeof(why));
        if (got != c->want)
            fail_msg("%s: got %s, want %s (%s)", c->name,
                     health_fence_name(got), health_fence_name(c->want), why);
        if (c->why != NULL && strstr(why, c->why) == NULL)
            fail_msg("%s: reason \"%s\" lacks \"%s\"", c->name, why, c->why);
        if (c->want != HEALTH_FENCE_OFF && why[0] != '\0')
            fail_msg("%s: a reason without a problem: %s", c->name, why);
    }
    assert_string_equal(health_fence_name(HEALTH_FENCE_OFF), "off");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fence_judge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
