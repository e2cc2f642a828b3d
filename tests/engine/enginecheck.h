/* What the engine tests share: the test device, one PASS/FAIL line a check,
 * and the closing count ("N passed, N failed") that decides the exit status.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"

#include <cstdio>
#include <memory>
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

/* The test device ("auto": AFET_DEVICE or the first one), its description
 * printed; false (one failure printed with the count) when there is none. */
inline bool
open_device (std::shared_ptr<afet::Device> *device)
{
  afet::Status st = afet::acquire_device ("auto", device);
  if (!st.ok ()) {
    std::printf ("no OpenCL device: %s\n", st.message ().c_str ());
    failed++;
    finish ();
    return false;
  }
  std::printf ("device: %s\n", (*device)->info ().describe ().c_str ());
  return true;
}

}  /* namespace enginecheck */
