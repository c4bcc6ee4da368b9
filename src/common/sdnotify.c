/*
 * The notification half of sd_notify(3), the documented and stable
 * protocol systemd uses for Type=notify services: a SOCK_DGRAM unix
 * socket named by $NOTIFY_SOCKET, one datagram per notification, an
 * address starting with '@' in the abstract namespace.  Kept here so that
 * the daemons need no libsystemd.
 */
#include "common/sdnotify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_un sd_addr;
static socklen_t sd_addr_len; /* 0: no address */

int sdnotify_init(struct err *e)
{
    const char *v = getenv("NOTIFY_SOCKET");
    size_t n;

    sd_addr_len = 0;
    if (v == NULL)
        return 0;
    n = strlen(v);
    if ((v[0] != '/' && v[0] != '@') || n < 2 ||
        n > sizeof(sd_addr.sun_path) - (v[0] == '/')) {
        err_set(e,
                "NOTIFY_SOCKET=%.200s is not a unix socket path or "
                "@abstract name; systemd will not hear that the daemon "
                "is ready",
                v);
        unsetenv("NOTIFY_SOCKET");
        errno = EINVAL;
        return -1;
    }
    memset(&sd_addr, 0, sizeof(sd_addr));
    sd_addr.sun_family = AF_UNIX;
    memcpy(sd_addr.sun_path, v, n);
    if (v[0] == '@')
        sd_addr.sun_path[0] = '\0';
    /* an abstract name is exactly its bytes; a path ends with its NUL */
    sd_addr_len =
        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (v[0] == '/'));
    unsetenv("NOTIFY_SOCKET");
    return 0;
}

bool sdnotify_enabled(void)
{
    return sd_addr_len > 0;
}

int sdnotify_send(const char *state)
{
    size_t len = strlen(state);
    ssize_t n;
    int fd, saved;

    if (sd_addr_len == 0)
        return 0;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    n = sendto(fd, state, len, MSG_NOSIGNAL, (struct sockaddr *)&sd_addr,
               sd_addr_len);
    saved = errno;
    close(fd);
    errno = saved;
    if (n < 0)
        return -1;
    if ((size_t)n != len) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}
