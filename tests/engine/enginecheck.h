/* What the engine tests share: one PASS/FAIL line a check, and the closing
 * count ("N passed, N failed") that decides the exit status.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cstdio>
#include <string>

namespace enginecheck {

inline int passed = 0, failed = 0, skipped = 0;

inline void
check (bool ok, const std::string &what)
{
  std::printf ("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str ());
  std::fflush (stdout);
  (ok ? passed : failed)++;
}

inline void
skip (const std::string &what)
{
  std::printf ("SKIP: %s\n", what.c_str ());
  skipped++;
}

/* Prints the count; the exit status for main. */
inline int
finish ()
{
  std::printf ("%d passed, %d failed, %d skipped\n", passed, failed,
      skipped);
  return failed ? 1 : 0;
}

}  /* namespace enginecheck */
