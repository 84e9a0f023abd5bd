/*
 * powerloss: an LD_PRELOAD shim that records what a process has made durable in one directory
 * tree, for the power-loss trials (crates/ocgraph-core/tests/update_crash.rs). After the process
 * dies, the test builds from the record the tree a power loss at that moment could leave (the
 * pessimistic case: everything not made durable is gone).
 * Build: cc -shared -fPIC -o powerloss.so powerloss.c -ldl -lpthread
 *
 * Configuration (environment; without both variables the shim only passes calls through):
 *   POWERLOSS_ROOT    the directory tree to model (a canonical path, as /proc/self/fd shows it)
 *   POWERLOSS_SHADOW  an existing directory holding the record (outside the tree):
 *     f/INO.GEN       the content of a regular file as of its last fsync or fdatasync
 *     d/INO.GEN       the entries of a directory as of its last fsync, one a line:
 *                     "f INO GEN NAME" (a regular file) or "d INO GEN NAME" (a directory)
 *     tmp/            records being written (each is renamed into place when complete, so a
 *                     SIGKILL during a copy leaves the previous record)
 *     root            the root directory's "INO.GEN"
 *     loaded          created when the shim, loaded, finds this configuration
 *   The caller records the tree as it is before the process starts (GEN 0 for every inode).
 *
 * INO.GEN names one file: GEN tells apart the files that reuse an inode number, so that a
 * directory entry made durable before its file was deleted keeps the deleted file's content.
 * An inode gets a new generation when this process creates it (open with O_CREAT of a missing
 * path, creat, mkdir) under the root; files created elsewhere and renamed into the tree are not
 * told apart from an earlier file with their inode number.
 *
 * Calls modelled:
 *   fsync, fdatasync  on a regular file under the root: its content is recorded, as read just
 *                     before the call (what was written before the call is durable after it);
 *                     on a directory under the root: its entries, likewise. The record is
 *                     published only when the call succeeds. Calls are serialised (one lock), so
 *                     records of one file never go back in time.
 *   sync, syncfs      every file and directory under the root is recorded.
 *   sync_file_range   passed through, nothing recorded: it starts or waits for write-back of
 *                     data pages but makes neither the file's size nor its entries durable.
 *   msync             aborts the process when the mapping is a file under the root (writes
 *                     through shared mappings are not modelled; the engine maps files read-only).
 * O_SYNC and O_DSYNC writes are not modelled (they would be durable on return; the engine does
 * not use them). Symbolic links and other special files are left out of directory records.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "open_mode.h"

static char root[4096];
static size_t root_len;
static char shadow[4096];
static int enabled;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void load_once(void) {
    const char *r = getenv("POWERLOSS_ROOT");
    const char *s = getenv("POWERLOSS_SHADOW");
    if (!r || !*r || !s || !*s || strlen(r) >= sizeof root || strlen(s) + 64 >= sizeof shadow) return;
    strcpy(root, r);
    root_len = strlen(root);
    while (root_len > 1 && root[root_len - 1] == '/') root[--root_len] = 0;
    strcpy(shadow, s);
    enabled = 1;
    /* Tells the caller that the shim was loaded and found its configuration. */
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/loaded", shadow);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) syscall(SYS_close, fd);
}

static int load(void) {
    pthread_once(&once, load_once);
    return enabled;
}

/* At load time, so that "loaded" exists once the program runs. */
__attribute__((constructor)) static void load_at_start(void) { load(); }

/* Dies with a message: a record that cannot be written would make the trial's verdict wrong. */
static void die(const char *what, const char *path) {
    char msg[4400];
    int len = snprintf(msg, sizeof msg, "powerloss shim: %s %s: %s\n", what, path, strerror(errno));
    if (len > 0) syscall(SYS_write, 2, msg, (size_t)(len < (int)sizeof msg ? len : (int)sizeof msg - 1));
    abort();
}

static int under_root(const char *path) {
    return !strncmp(path, root, root_len) && (path[root_len] == 0 || path[root_len] == '/');
}

/* The path of descriptor `fd` (as the kernel resolves it), or -1. */
static int fd_path(int fd, char *out, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    if (n < 0) return -1;
    out[n] = 0;
    return 0;
}

/* Generations of the inodes this process created (an open-addressing table; the lock held). */
#define GEN_SLOTS (1u << 16)
static struct {
    uint64_t ino;
    uint64_t gen;
} gens[GEN_SLOTS];
static uint64_t next_gen;

static uint64_t *gen_slot(uint64_t ino, int insert) {
    for (uint32_t i = 0, h = (uint32_t)(ino * 0x9E3779B97F4A7C15ull >> 48); i < GEN_SLOTS; i++, h = (h + 1) % GEN_SLOTS) {
        if (gens[h].ino == ino && gens[h].gen) return &gens[h].gen;
        if (!gens[h].gen) {
            if (!insert) return NULL;
            gens[h].ino = ino;
            return &gens[h].gen;
        }
    }
    errno = ENOSPC;
    die("too many files created under", root);
    return NULL;
}

static uint64_t gen_of(uint64_t ino) {
    uint64_t *g = gen_slot(ino, 0);
    return g ? *g : 0;
}

/* Writes `len` bytes with raw calls. */
static void write_all(int fd, const char *buf, size_t len, const char *path) {
    while (len > 0) {
        ssize_t n = syscall(SYS_write, fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("write", path);
        buf += n;
        len -= (size_t)n;
    }
}

/* Opens a temporary record file; its path is left in `tmp`. */
static int open_tmp(char *tmp, size_t size) {
    static uint64_t seq;
    snprintf(tmp, size, "%s/tmp/%d.%lu", shadow, getpid(), (unsigned long)++seq);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) die("create", tmp);
    return fd;
}

static void publish(const char *tmp, char kind, uint64_t ino, uint64_t gen) {
    char dest[4200];
    snprintf(dest, sizeof dest, "%s/%c/%lu.%lu", shadow, kind, (unsigned long)ino, (unsigned long)gen);
    if (syscall(SYS_renameat, AT_FDCWD, tmp, AT_FDCWD, dest) < 0) die("rename to", dest);
}

/* Copies the content of the regular file open at `fd` (any access mode) to a temporary record. */
static void copy_file(int fd, char *tmp, size_t size) {
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int in = (int)syscall(SYS_openat, AT_FDCWD, self, O_RDONLY | O_CLOEXEC);
    if (in < 0) die("reopen", self);
    int out = open_tmp(tmp, size);
    static char buf[1 << 16]; /* the lock is held */
    for (;;) {
        ssize_t n = syscall(SYS_read, in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("read", self);
        if (n == 0) break;
        write_all(out, buf, (size_t)n, tmp);
    }
    syscall(SYS_close, in);
    syscall(SYS_close, out);
}

/* Lists the entries of the directory open at `fd` to a temporary record. */
static void list_dir(int fd, char *tmp, size_t size) {
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int dfd = (int)syscall(SYS_openat, AT_FDCWD, self, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) die("reopen", self);
    DIR *d = fdopendir(dfd);
    if (!d) die("list", self);
    int out = open_tmp(tmp, size);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue; /* removed meanwhile */
        char kind = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : 0;
        if (!kind) continue;
        char line[400];
        int len = snprintf(line, sizeof line, "%c %lu %lu %s\n", kind, (unsigned long)st.st_ino,
                           (unsigned long)gen_of(st.st_ino), e->d_name);
        if (len <= 0 || len >= (int)sizeof line) continue;
        write_all(out, line, (size_t)len, tmp);
    }
    closedir(d);
    syscall(SYS_close, out);
}

/* What a sync of `fd` will record, prepared before the call: 0 = nothing. */
struct pending {
    char kind;
    uint64_t ino, gen;
    char tmp[4200];
};

static void prepare(int fd, struct pending *p) {
    p->kind = 0;
    char path[4096];
    if (fd_path(fd, path, sizeof path) < 0 || !under_root(path)) return;
    struct stat st;
    if (fstat(fd, &st) < 0) return;
    if (S_ISREG(st.st_mode)) {
        copy_file(fd, p->tmp, sizeof p->tmp);
        p->kind = 'f';
    } else if (S_ISDIR(st.st_mode)) {
        list_dir(fd, p->tmp, sizeof p->tmp);
        p->kind = 'd';
    } else {
        return;
    }
    p->ino = st.st_ino;
    p->gen = gen_of(st.st_ino);
}

static void finish(struct pending *p, int ok) {
    if (!p->kind) return;
    if (ok) publish(p->tmp, p->kind, p->ino, p->gen);
    else syscall(SYS_unlinkat, AT_FDCWD, p->tmp, 0);
}

#define REAL(name) \
    static __typeof__(name) *real; \
    if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* fsync or fdatasync of `fd` through `call`, recorded. */
static int synced(int (*call)(int), int fd) {
    if (!load()) return call(fd);
    pthread_mutex_lock(&lock);
    struct pending p;
    prepare(fd, &p);
    int r = call(fd);
    int saved = errno;
    finish(&p, r == 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return r;
}

int fsync(int fd) {
    REAL(fsync);
    return synced(real, fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    return synced(real, fd);
}

/* Records every file and directory below the directory open at `dfd` (the lock held). */
static void record_tree(int dfd) {
    struct pending p;
    prepare(dfd, &p);
    finish(&p, 1);
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", dfd);
    int lfd = (int)syscall(SYS_openat, AT_FDCWD, self, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lfd < 0) return;
    DIR *d = fdopendir(lfd);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int fd = (int)syscall(SYS_openat, lfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            record_tree(fd);
        } else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            prepare(fd, &p);
            finish(&p, 1);
        }
        syscall(SYS_close, fd);
    }
    closedir(d);
}

static void record_root(void) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    record_tree(fd);
    syscall(SYS_close, fd);
}

void sync(void) {
    REAL(sync);
    if (!load()) return real();
    pthread_mutex_lock(&lock);
    real();
    record_root();
    pthread_mutex_unlock(&lock);
}

int syncfs(int fd) {
    REAL(syncfs);
    if (!load()) return real(fd);
    pthread_mutex_lock(&lock);
    int r = real(fd);
    int saved = errno;
    if (r == 0) record_root();
    pthread_mutex_unlock(&lock);
    errno = saved;
    return r;
}

int msync(void *addr, size_t len, int flags) {
    REAL(msync);
    if (load()) {
        /* The mapping's file, from /proc/self/maps: "start-end perms offset dev inode path". */
        FILE *maps = fopen("/proc/self/maps", "re");
        char line[4400];
        while (maps && fgets(line, sizeof line, maps)) {
            unsigned long lo, hi;
            int at = 0;
            if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) < 2 || !at) continue;
            if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi) continue;
            line[strcspn(line, "\n")] = 0;
            if (under_root(line + at)) {
                errno = ENOSYS;
                die("msync of a mapping is not modelled:", line + at);
            }
        }
        if (maps) fclose(maps);
    }
    return real(addr, len, flags);
}

/* Gives the inode at `fd` a new generation if `existed` is false and it lies under the root. */
static void created(int fd, int existed) {
    if (existed || fd < 0) return;
    char path[4096];
    if (fd_path(fd, path, sizeof path) < 0 || !under_root(path)) return;
    struct stat st;
    if (fstat(fd, &st) < 0) return;
    pthread_mutex_lock(&lock);
    *gen_slot(st.st_ino, 1) = ++next_gen;
    pthread_mutex_unlock(&lock);
}

static int exists_at(int dirfd, const char *path) {
    struct stat st;
    return fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

#define OPEN_AT(call, dirfd, path, flags)                                    \
    do {                                                                     \
        if (!((flags) & O_CREAT) || !load()) return call;                    \
        int existed = exists_at(dirfd, path);                                \
        int fd = call;                                                       \
        int saved = errno;                                                   \
        created(fd, existed);                                                \
        errno = saved;                                                       \
        return fd;                                                           \
    } while (0)

int open(const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(open);
    OPEN_AT(real(path, flags, mode), AT_FDCWD, path, flags);
}

int open64(const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(open64);
    OPEN_AT(real(path, flags, mode), AT_FDCWD, path, flags);
}

int openat(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(openat);
    OPEN_AT(real(dirfd, path, flags, mode), dirfd, path, flags);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags);
    REAL(openat64);
    OPEN_AT(real(dirfd, path, flags, mode), dirfd, path, flags);
}

int creat(const char *path, mode_t mode) {
    REAL(creat);
    OPEN_AT(real(path, mode), AT_FDCWD, path, O_CREAT);
}

int creat64(const char *path, mode_t mode) {
    REAL(creat64);
    OPEN_AT(real(path, mode), AT_FDCWD, path, O_CREAT);
}

/* A directory just made at `path` (relative to `dirfd`) gets a new generation. */
static void made_dir(int dirfd, const char *path) {
    int fd = (int)syscall(SYS_openat, dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    created(fd, 0);
    syscall(SYS_close, fd);
}

int mkdir(const char *path, mode_t mode) {
    REAL(mkdir);
    int r = real(path, mode);
    if (r == 0 && load()) {
        int saved = errno;
        made_dir(AT_FDCWD, path);
        errno = saved;
    }
    return r;
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    REAL(mkdirat);
    int r = real(dirfd, path, mode);
    if (r == 0 && load()) {
        int saved = errno;
        made_dir(dirfd, path);
        errno = saved;
    }
    return r;
}
