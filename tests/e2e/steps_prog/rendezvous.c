/*
 * rendezvous: the start of a distributed training job, in miniature, for
 * the job step tests.  Run as the tasks of one srun step, it finds its
 * place the way torch.distributed's env:// method does: rank from
 * SLURM_PROCID, world size from SLURM_NTASKS, MASTER_ADDR and MASTER_PORT
 * from the environment.  Rank 0 listens there and every other rank
 * connects (retrying for 10 s, as rank 0 may start later); each rank sends
 * "hello from rank N on NODE" and prints the line it receives:
 *
 *   rank 0 prints "hello from rank R on NODE" for every other rank R,
 *   in rank order; every other rank prints rank 0's greeting.
 *
 * Exit 0 when every greeting went both ways; 1 with a message naming the
 * rank and what failed otherwise.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* How long rank 0 waits for the others and a rank for a line. */
#define WAIT_MS 30000
/* How long a rank retries connecting to rank 0. */
#define CONNECT_MS 10000
#define LINE_MAX_LEN 256
#define MAX_RANKS 64

static long rank = -1;

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "rendezvous: rank %ld: ", rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* env_long: the environment variable name as a number in [lo, hi]. */
static long env_long(const char *name, long lo, long hi)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (s == NULL || s[0] == '\0')
        die("%s is not set", name);
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        die("%s=%s is not a number from %ld to %ld", name, s, lo, hi);
    return v;
}

static const char *env_str(const char *name)
{
    const char *s = getenv(name);

    if (s == NULL || s[0] == '\0')
        die("%s is not set", name);
    return s;
}

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct addrinfo *resolve(const char *host, const char *port,
                                bool passive)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = passive ? AI_PASSIVE : 0};
    struct addrinfo *ai;
    int rc = getaddrinfo(host, port, &hints, &ai);

    if (rc != 0)
        die("cannot resolve %s:%s: %s", host, port, gai_strerror(rc));
    return ai;
}

/* wait_fd: poll fd for events within the time left until deadline. */
static void wait_fd(int fd, short events, long deadline, const char *what)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    long left = deadline - now_ms();
    int rc;

    do {
        rc = poll(&pfd, 1, left > 0 ? (int)left : 0);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0)
        die("poll while %s: %s", what, strerror(errno));
    if (rc == 0)
        die("timed out after %d s %s", WAIT_MS / 1000, what);
}

/* read_line: one line from fd (without its newline) into buf. */
static void read_line(int fd, char *buf, size_t len, const char *from)
{
    long deadline = now_ms() + WAIT_MS;
    size_t n = 0;
    char what[64];

    snprintf(what, sizeof(what), "reading from %s", from);
    for (;;) {
        ssize_t got;
        wait_fd(fd, POLLIN, deadline, what);
        got = read(fd, buf + n, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            die("%s: %s", what, strerror(errno));
        if (got == 0)
            die("%s: connection closed before a whole line", what);
        if (buf[n] == '\n')
            break;
        if (++n == len - 1)
            die("%s: line over %zu bytes", what, len - 2);
    }
    buf[n] = '\0';
}

static void write_all(int fd, const char *s, const char *to)
{
    size_t len = strlen(s);

    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("writing to %s: %s", to, strerror(errno));
        s += n;
        len -= (size_t)n;
    }
}

/* serve: rank 0 takes a connection from each other rank, answers its
 * greeting, and prints the greetings in rank order. */
static void serve(const char *addr, const char *port, long size,
                  const char *hello)
{
    static char greeting[MAX_RANKS][LINE_MAX_LEN];
    struct addrinfo *ai = resolve(addr, port, true);
    long deadline = now_ms() + WAIT_MS;
    int one = 1, lfd;

    lfd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (lfd < 0)
        die("socket: %s", strerror(errno));
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(lfd, 64) < 0)
        die("cannot listen on %s:%s: %s", addr, port, strerror(errno));
    freeaddrinfo(ai);
    /* the others say who they are first, so the order they connect in
     * does not matter */
    for (long k = 1; k < size; k++) {
        char line[LINE_MAX_LEN];
        long from;
        int fd;
        wait_fd(lfd, POLLIN, deadline, "waiting for the other ranks");
        if ((fd = accept(lfd, NULL, NULL)) < 0)
            die("accept: %s", strerror(errno));
        read_line(fd, line, sizeof(line), "a rank");
        if (sscanf(line, "hello from rank %ld", &from) != 1 || from < 1 ||
            from >= size || greeting[from][0] != '\0')
            die("unexpected greeting \"%s\"", line);
        snprintf(greeting[from], LINE_MAX_LEN, "%s", line);
        write_all(fd, hello, "a rank");
        close(fd);
    }
    close(lfd);
    for (long k = 1; k < size; k++)
        printf("%s\n", greeting[k]);
}

/* dial: connect to rank 0, retrying while it is not listening yet. */
static int dial(const char *addr, const char *port)
{
    long deadline = now_ms() + CONNECT_MS;
    int err;

    for (;;) {
        struct addrinfo *ai = resolve(addr, port, false);
        int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            die("socket: %s", strerror(errno));
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            freeaddrinfo(ai);
            return fd;
        }
        err = errno;
        close(fd);
        freeaddrinfo(ai);
        if (now_ms() >= deadline)
            break;
        usleep(100 * 1000);
    }
    die("cannot connect to rank 0 at %s:%s for %d s: %s", addr, port,
        CONNECT_MS / 1000, strerror(err));
}

/* join: any other rank greets rank 0 and prints rank 0's answer. */
static void join(const char *addr, const char *port, const char *hello)
{
    char line[LINE_MAX_LEN];
    int fd = dial(addr, port);

    write_all(fd, hello, "rank 0");
    read_line(fd, line, sizeof(line), "rank 0");
    close(fd);
    printf("%s\n", line);
}

int main(void)
{
    const char *addr, *port, *node;
    char host[256], hello[LINE_MAX_LEN];
    long size;

    rank = env_long("SLURM_PROCID", 0, MAX_RANKS - 1);
    size = env_long("SLURM_NTASKS", 1, MAX_RANKS);
    if (rank >= size)
        die("SLURM_PROCID is not below SLURM_NTASKS=%ld", size);
    addr = env_str("MASTER_ADDR");
    port = env_str("MASTER_PORT");
    node = getenv("SLURMD_NODENAME");
    if (node == NULL || node[0] == '\0') {
        if (gethostname(host, sizeof(host)) < 0)
            die("gethostname: %s", strerror(errno));
        host[sizeof(host) - 1] = '\0';
        node = host;
    }
    snprintf(hello, sizeof(hello), "hello from rank %ld on %.128s\n", rank,
             node);
    if (rank == 0)
        serve(addr, port, size, hello);
    else
        join(addr, port, hello);
    return fflush(stdout) == 0 ? 0 : 1;
}
