/*
 * libcrypto loaded on first use (see libcrypto.h for why): dlopen, then
 * one dlsym per function of the table.
 */
#include "common/libcrypto.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define LIBCRYPTO_SONAME "libcrypto.so." STR(OPENSSL_SHLIB_VERSION)

/* Process-wide, like the library it describes; written once. */
static struct libcrypto table;
static void *handle;

static int resolve(void *h, struct err *e)
{
    void *p;

#define LIBCRYPTO_RESOLVE(name)                                                \
    if ((p = dlsym(h, #name)) == NULL)                                         \
        return err_set(e, "cannot load %s: it has no %s", LIBCRYPTO_SONAME,    \
                       #name);                                                 \
    *(void **)&table.name = p;
    LIBCRYPTO_FUNCS(LIBCRYPTO_RESOLVE)
#undef LIBCRYPTO_RESOLVE
    return 0;
}

const struct libcrypto *libcrypto_load(struct err *e)
{
    void *h;

    if (handle != NULL)
        return &table;
    h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        errno = ELIBACC;
        err_set(e, "cannot load %s: %s", LIBCRYPTO_SONAME, dlerror());
        return NULL;
    }
    if (resolve(h, e) < 0) {
        dlclose(h);
        errno = ELIBACC;
        return NULL;
    }
    handle = h;
    return &table;
}
