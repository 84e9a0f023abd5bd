/*
 * open_mode.h: shared by the LD_PRELOAD shims of this directory (faultfs.c, powerloss.c), which
 * wrap open and openat and must pass on the mode argument of a call that creates a file.
 * Needs <fcntl.h>, <stdarg.h> and <sys/types.h>.
 */
#ifndef OCGRAPH_OPEN_MODE_H
#define OCGRAPH_OPEN_MODE_H

/* The mode argument of an open that creates a file. */
#define OPEN_MODE(flags)                                             \
    mode_t mode = 0;                                                 \
    if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) {   \
        va_list ap;                                                  \
        va_start(ap, flags);                                         \
        mode = (mode_t)va_arg(ap, int);                              \
        va_end(ap);                                                  \
    }

#endif
