/*
 * faultfs: an LD_PRELOAD shim that makes one libc file call fail, for the fault suites
 * (crates/ocgraph-cli/tests/faults.rs, crates/ocgraph-core/tests/update_crash.rs).
 * Build: cc -shared -fPIC -o faultfs.so faultfs.c -ldl
 *
 * Configuration (environment; without FAULT_OP the shim only passes calls through):
 *   FAULT_OP           write     write, pwrite, pwrite64, writev, pwritev, pwritev64
 *                      fsync     fsync, fdatasync
 *                      read      read, pread, pread64, readv, preadv, preadv64
 *                      rename    rename (matched on either path)
 *                      open      open, open64, openat, openat64 (any flags)
 *                      mkdir     mkdir, mkdirat
 *                      unlink    unlink, unlinkat, rmdir
 *                      truncate  ftruncate, ftruncate64
 *                      (a path relative to a directory descriptor is matched as the
 *                      directory's path, '/', and the name)
 *   FAULT_PATH_SUBSTR  only calls on a file whose path (readlink /proc/self/fd/N) contains
 *                      this string count; a trailing '$' means "ends with" (a directory).
 *   FAULT_KIND         eio | enospc | short | kill. A short write or read moves half the bytes
 *                      (at least one) and returns that count; for the other calls, short is eio.
 *                      kill (rename only) makes the rename, then kills the process with SIGKILL:
 *                      a crash right after that step.
 *   FAULT_NTH          the matching call to fail, counting from 1 (default 1).
 *   FAULT_STICKY       when "1", every matching call from the Nth on fails (a disk that stays
 *                      full); otherwise only the Nth fails and later calls behave normally
 *                      (a transient error: the engine must not carry on as if it succeeded).
 *   FAULT_LOG          a file to which "op path nth kind" is appended each time a fault fires,
 *                      and "count N" (the matching calls seen) when the process exits normally:
 *                      with FAULT_NTH=0 nothing fails and the count tells how often a site is hit.
 *
 * Not reachable: mmap'ed reads and writes (page faults, not calls), io_uring submissions,
 * and calls made by the kernel on the process's behalf.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "open_mode.h"

enum op { OP_NONE, OP_WRITE, OP_FSYNC, OP_READ, OP_RENAME, OP_OPEN, OP_MKDIR, OP_UNLINK, OP_TRUNCATE };
enum kind { K_EIO, K_ENOSPC, K_SHORT, K_KILL };

static int cfg_loaded;
static enum op cfg_op;
static enum kind cfg_kind;
static const char *cfg_substr;
static long cfg_nth = 1;
static int cfg_sticky;
static const char *cfg_log;
static long counter;

static void load(void) {
    if (__atomic_load_n(&cfg_loaded, __ATOMIC_ACQUIRE)) return;
    const char *op = getenv("FAULT_OP");
    const char *kind = getenv("FAULT_KIND");
    const char *nth = getenv("FAULT_NTH");
    const char *sticky = getenv("FAULT_STICKY");
    enum op o = OP_NONE;
    if (op && !strcmp(op, "write")) o = OP_WRITE;
    else if (op && !strcmp(op, "fsync")) o = OP_FSYNC;
    else if (op && !strcmp(op, "read")) o = OP_READ;
    else if (op && !strcmp(op, "rename")) o = OP_RENAME;
    else if (op && !strcmp(op, "open")) o = OP_OPEN;
    else if (op && !strcmp(op, "mkdir")) o = OP_MKDIR;
    else if (op && !strcmp(op, "unlink")) o = OP_UNLINK;
    else if (op && !strcmp(op, "truncate")) o = OP_TRUNCATE;
    enum kind k = K_EIO;
    if (kind && !strcmp(kind, "enospc")) k = K_ENOSPC;
    else if (kind && !strcmp(kind, "short")) k = K_SHORT;
    else if (kind && !strcmp(kind, "kill")) k = K_KILL;
    cfg_op = o;
    cfg_kind = k;
    cfg_substr = getenv("FAULT_PATH_SUBSTR");
    cfg_nth = nth ? atol(nth) : 1;
    cfg_sticky = sticky && !strcmp(sticky, "1");
    cfg_log = getenv("FAULT_LOG");
    __atomic_store_n(&cfg_loaded, 1, __ATOMIC_RELEASE);
}

static int path_matches(const char *path) {
    if (!cfg_substr || !*cfg_substr) return 1;
    size_t n = strlen(cfg_substr);
    if (cfg_substr[n - 1] == '$') {
        size_t p = strlen(path);
        return p >= n - 1 && !strncmp(path + p - (n - 1), cfg_substr, n - 1);
    }
    return strstr(path, cfg_substr) != NULL;
}

static const char *kind_name(void) {
    return cfg_kind == K_ENOSPC ? "enospc" : cfg_kind == K_SHORT ? "short" : cfg_kind == K_KILL ? "kill" : "eio";
}

static const char *op_name(enum op o) {
    switch (o) {
    case OP_WRITE: return "write";
    case OP_FSYNC: return "fsync";
    case OP_READ: return "read";
    case OP_RENAME: return "rename";
    case OP_OPEN: return "open";
    case OP_MKDIR: return "mkdir";
    case OP_UNLINK: return "unlink";
    case OP_TRUNCATE: return "truncate";
    default: return "none";
    }
}

/* Appends one line to FAULT_LOG with raw syscalls (the wrappers below must not recurse). */
static void log_fault(enum op o, const char *path, long nth) {
    if (!cfg_log) return;
    char line[4200];
    int len = snprintf(line, sizeof line, "%s %s %ld %s\n", op_name(o), path, nth, kind_name());
    if (len <= 0) return;
    if (len >= (int)sizeof line) len = sizeof line - 1;
    long fd = syscall(SYS_openat, AT_FDCWD, cfg_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    syscall(SYS_write, fd, line, (size_t)len);
    syscall(SYS_close, fd);
}

/* At a normal exit: how many matching calls there were. */
__attribute__((destructor)) static void log_count(void) {
    load();
    if (!cfg_log || cfg_op == OP_NONE) return;
    char line[64];
    int len = snprintf(line, sizeof line, "count %ld\n", __atomic_load_n(&counter, __ATOMIC_SEQ_CST));
    long fd = syscall(SYS_openat, AT_FDCWD, cfg_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    syscall(SYS_write, fd, line, (size_t)len);
    syscall(SYS_close, fd);
}

/* Whether this call is the one to fail: 0 = pass through, 1 = fail it. */
static int should_fail(enum op o, const char *path) {
    load();
    if (cfg_op != o || !path_matches(path)) return 0;
    long nth = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
    if (nth == cfg_nth || (cfg_sticky && nth > cfg_nth)) {
        log_fault(o, path, nth);
        return 1;
    }
    return 0;
}

static int fd_fails(enum op o, int fd) {
    load();
    if (cfg_op != o) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = 0;
    return should_fail(o, path);
}

/* The errno of a failing call (short is an error only where no short count exists). */
static int fault_errno(void) { return cfg_kind == K_ENOSPC ? ENOSPC : EIO; }

#define REAL(name) \
    static __typeof__(name) *real; \
    if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static size_t half(size_t n) { return n > 1 ? n / 2 : n; }

/* An iovec array cut to its first `limit` bytes (at most 64 entries kept). */
static int cut_iov(const struct iovec *iov, int cnt, struct iovec *out, size_t limit) {
    int k = 0;
    for (int i = 0; i < cnt && k < 64 && limit > 0; i++) {
        out[k] = iov[i];
        if (out[k].iov_len > limit) out[k].iov_len = limit;
        limit -= out[k].iov_len;
        k++;
    }
    return k;
}

static size_t iov_total(const struct iovec *iov, int cnt) {
    size_t t = 0;
    for (int i = 0; i < cnt; i++) t += iov[i].iov_len;
    return t;
}

ssize_t write(int fd, const void *buf, size_t n) {
    REAL(write);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n));
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    REAL(pwrite);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n), off);
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
    REAL(pwrite64);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n), off);
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    REAL(writev);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))));
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    REAL(pwritev);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))), off);
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off) {
    REAL(pwritev64);
    if (fd_fails(OP_WRITE, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))), off);
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt, off);
}

int fsync(int fd) {
    REAL(fsync);
    if (fd_fails(OP_FSYNC, fd)) {
        errno = fault_errno();
        return -1;
    }
    return real(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fd_fails(OP_FSYNC, fd)) {
        errno = fault_errno();
        return -1;
    }
    return real(fd);
}

ssize_t read(int fd, void *buf, size_t n) {
    REAL(read);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n));
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
    REAL(pread);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n), off);
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
    REAL(pread64);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) return real(fd, buf, half(n), off);
        errno = fault_errno();
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
    REAL(readv);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))));
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off) {
    REAL(preadv);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))), off);
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off) {
    REAL(preadv64);
    if (fd_fails(OP_READ, fd)) {
        if (cfg_kind == K_SHORT) {
            struct iovec cut[64];
            return real(fd, cut, cut_iov(iov, cnt, cut, half(iov_total(iov, cnt))), off);
        }
        errno = fault_errno();
        return -1;
    }
    return real(fd, iov, cnt, off);
}

int rename(const char *from, const char *to) {
    REAL(rename);
    load();
    if (cfg_op == OP_RENAME && (path_matches(from) || path_matches(to))) {
        if (should_fail(OP_RENAME, path_matches(to) ? to : from)) {
            if (cfg_kind == K_KILL) {
                real(from, to);
                kill(getpid(), SIGKILL);
            }
            errno = fault_errno();
            return -1;
        }
    }
    return real(from, to);
}

/* Whether a call on `path` relative to the directory descriptor `dirfd` is the one to fail. */
static int at_fails(enum op o, int dirfd, const char *path) {
    load();
    if (cfg_op != o) return 0;
    if (path[0] == '/' || dirfd == AT_FDCWD) return should_fail(o, path);
    char link[64], full[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, full, sizeof full - 1);
    if (n < 0) return 0;
    full[n] = 0;
    snprintf(full + n, sizeof full - (size_t)n, "/%s", path);
    return should_fail(o, full);
}

int open(const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(open);
    if (at_fails(OP_OPEN, AT_FDCWD, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(open64);
    if (at_fails(OP_OPEN, AT_FDCWD, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(openat);
    if (at_fails(OP_OPEN, dirfd, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(openat64);
    if (at_fails(OP_OPEN, dirfd, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(dirfd, path, flags, mode);
}

int mkdir(const char *path, mode_t mode) {
    REAL(mkdir);
    if (at_fails(OP_MKDIR, AT_FDCWD, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(path, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    REAL(mkdirat);
    if (at_fails(OP_MKDIR, dirfd, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(dirfd, path, mode);
}

int unlink(const char *path) {
    REAL(unlink);
    if (at_fails(OP_UNLINK, AT_FDCWD, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(path);
}

int unlinkat(int dirfd, const char *path, int flags) {
    REAL(unlinkat);
    if (at_fails(OP_UNLINK, dirfd, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(dirfd, path, flags);
}

int rmdir(const char *path) {
    REAL(rmdir);
    if (at_fails(OP_UNLINK, AT_FDCWD, path)) {
        errno = fault_errno();
        return -1;
    }
    return real(path);
}

int ftruncate(int fd, off_t len) {
    REAL(ftruncate);
    if (fd_fails(OP_TRUNCATE, fd)) {
        errno = fault_errno();
        return -1;
    }
    return real(fd, len);
}

int ftruncate64(int fd, off64_t len) {
    REAL(ftruncate64);
    if (fd_fails(OP_TRUNCATE, fd)) {
        errno = fault_errno();
        return -1;
    }
    return real(fd, len);
}
