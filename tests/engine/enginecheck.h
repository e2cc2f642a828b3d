/* What the engine tests share: the test device, one PASS/FAIL line a check,
 * the closing count ("N passed, N failed") that decides the exit status,
 * and a test signal (a pitch glide).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "device.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

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

/* n samples at rate in Kaldi's scale: a glide from f0 to 2 f0 with
 * harmonics, in noise, with a silent stretch in the middle */
inline std::vector<float>
glide (long long n, double rate, double f0, unsigned seed)
{
  std::mt19937 gen (seed);
  std::normal_distribution<double> noise (0.0, 30.0);
  std::vector<float> w (n);
  double ph = 0;
  for (long long i = 0; i < n; i++) {
    double t = (double) i / n;
    ph += 2 * M_PI * f0 * (1 + t) / rate;
    double v = 0;
    for (int h = 1; h <= 4; h++)
      v += std::sin (h * ph) / h;
    bool quiet = t > 0.4 && t < 0.55;
    w[i] = (float) ((quiet ? 0.0 : 3000.0 * v) + noise (gen));
  }
  return w;
}

}  /* namespace enginecheck */
