/* An LD_PRELOAD shim for test_extract_direct.py: a full disk for
 * afet-extract's output files.  A write () to a file whose name holds
 * ".afet-part-" (an output being written) fails with ENOSPC once the file
 * would pass AFET_FAIL_WRITE_PAST bytes; every other write goes through.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t
write (int fd, const void *buf, size_t n)
{
  static ssize_t (*real) (int, const void *, size_t);
  if (!real)
    real = (ssize_t (*)(int, const void *, size_t)) dlsym (RTLD_NEXT,
        "write");
  const char *past = getenv ("AFET_FAIL_WRITE_PAST");
  if (past) {
    char link[64], path[4096];
    snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink (link, path, sizeof path - 1);
    if (len > 0) {
      path[len] = '\0';
      off_t at = lseek (fd, 0, SEEK_CUR);
      if (strstr (path, ".afet-part-") && at >= 0 &&
          (long long) at + (long long) n > atoll (past)) {
        errno = ENOSPC;
        return -1;
      }
    }
  }
  return real (fd, buf, n);
}
