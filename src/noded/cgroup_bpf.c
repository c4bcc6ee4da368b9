/*
 * Device fencing on cgroup v2, which has no devices.deny: a small
 * BPF_PROG_TYPE_CGROUP_DEVICE program, assembled here and loaded with the
 * bpf(2) system call (no libbpf), refuses the listed character devices
 * and allows everything else; it is attached to the job's cgroup with
 * BPF_F_ALLOW_MULTI, so what an outer cgroup refuses stays refused.
 */
#include "noded/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/xalloc.h"

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off,
                            int32_t imm)
{
    struct bpf_insn i;

    memset(&i, 0, sizeof(i));
    i.code = code;
    i.dst_reg = dst & 0xf;
    i.src_reg = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

/*
 * r2 = type, r3 = major, r4 = minor (struct bpf_cgroup_dev_ctx); then per
 * refused device "if (r2 == CHAR && r3 == M && r4 == m) return 0"; at the
 * end "return 1".  *n gets the instruction count; caller frees.
 */
static struct bpf_insn *assemble(const dev_t *deny, size_t n_deny, size_t *n)
{
    struct bpf_insn *p = xcalloc(n_deny * 5 + 6, sizeof(*p));
    size_t k = 0;

    p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0);
    p[k++] = insn(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
    p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 4, 0);
    p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1, 8, 0);
    for (size_t i = 0; i < n_deny; i++) {
        p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4,
                      BPF_DEVCG_DEV_CHAR);
        p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3,
                      (int32_t)major(deny[i]));
        p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2,
                      (int32_t)minor(deny[i]));
        p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
        p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    }
    p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
    p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    *n = k;
    return p;
}

static int bpf(int cmd, union bpf_attr *attr)
{
    return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* Load the program refusing deny; its descriptor, or -1 with e. */
static int load(const dev_t *deny, size_t n, const char *what, struct err *e)
{
    static char license[] = "GPL";
    char log[1024] = "";
    union bpf_attr attr;
    struct bpf_insn *prog;
    size_t count;
    int pfd, saved;

    prog = assemble(deny, n, &count);
    memset(&attr, 0, sizeof(attr));
    attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    attr.insns = (uint64_t)(uintptr_t)prog;
    attr.insn_cnt = (uint32_t)count;
    attr.license = (uint64_t)(uintptr_t)license;
    attr.log_buf = (uint64_t)(uintptr_t)log;
    attr.log_size = sizeof(log);
    attr.log_level = 1;
    pfd = bpf(BPF_PROG_LOAD, &attr);
    saved = errno;
    free(prog);
    if (pfd < 0) {
        errno = saved;
        log[strcspn(log, "\n")] = '\0';
        return err_set(e, "cannot load the device program for %s: %s%s%s", what,
                       strerror(saved), log[0] ? ": " : "", log);
    }
    return pfd;
}

int cgroup_bpf_probe(struct err *e)
{
    int pfd = load(NULL, 0, "a probe", e);

    if (pfd < 0)
        return -1;
    close(pfd);
    return 0;
}

int cgroup_bpf_devices(const char *dir, const dev_t *deny, size_t n,
                       struct err *e)
{
    union bpf_attr attr;
    int pfd, dfd, rc, saved;

    if ((pfd = load(deny, n, dir, e)) < 0)
        return -1;
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        saved = errno;
        close(pfd);
        errno = saved;
        return err_set(e, "cannot open %s: %s", dir, strerror(saved));
    }
    memset(&attr, 0, sizeof(attr));
    attr.target_fd = (uint32_t)dfd;
    attr.attach_bpf_fd = (uint32_t)pfd;
    attr.attach_type = BPF_CGROUP_DEVICE;
    attr.attach_flags = BPF_F_ALLOW_MULTI;
    rc = bpf(BPF_PROG_ATTACH, &attr);
    saved = errno;
    close(dfd);
    close(pfd); /* the attachment keeps the program */
    if (rc < 0) {
        errno = saved;
        return err_set(e, "cannot attach the device program to %s: %s", dir,
                       strerror(saved));
    }
    return 0;
}
