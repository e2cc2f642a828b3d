/* The pitch tables: what every pitch stage of one device and configuration
 * shares (the lag grid, the resampling and upsampling filters, on the host
 * and in device buffers), made once and kept while a stage holds them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "device.h"
#include "pitch-chunks.h"
#include "status.h"

#include <memory>
#include <string>
#include <vector>

namespace afet {

struct PitchConfig;

/* The frame's geometry at the resampled rate: S lags on the grid, the
 * measured lags lag0 .. lag1 (M of them), the basic window, the shift and
 * the full window a frame reads (basic + lag1). */
struct PitchGeometry
{
  int S = 0, M = 0, lag0 = 0, lag1 = 0, basic = 0, shift = 0, full = 0;
};
PitchGeometry pitch_geometry (const PitchConfig &c);

/* A live stream's stage used to compute these on its own (about 250 us of
 * sines and cosines on a CPU for the default 417 lags, and ten small
 * buffers uploaded): 500 afetpitch streams starting together spent the
 * first second on it. Nothing here depends on the stream: the stages of
 * one device, pitch program (options) and configuration (the fields the
 * tables are made of, bit for bit) share one PitchTables, made by the
 * first and released with the last (a process-wide registry of weak
 * pointers, thread-safe). Everything is read-only once made; the stages
 * keep their own cl_kernel objects (clSetKernelArg and a launch are not
 * safe on one kernel from several threads), made from the program that
 * get () has built. */
class PitchTables
{
public:
  /* The process' tables for the device, c and the pitch program built with
   * options (work-groups of lsz); cpu: the CPU device's NCCF kernels'
   * tables too. The program is built here (its errors reported here). */
  static Status get (const std::shared_ptr<Device> &device,
      const PitchConfig &c, const std::string &options, bool cpu,
      std::shared_ptr<const PitchTables> *out);
  /* tables made so far in this process (tests: stages of one
   * configuration share them) */
  static long long builds ();

  PitchGeometry g;
  std::vector<float> lags;      /* the lag grid, seconds (pitch_lags) */
  /* the resampling filter's phases: out_unit outputs take in_unit inputs;
   * phase w's taps start at input rs_first[w], rs_n[w] of them, weights
   * at w rs_taps */
  int out_unit = 1, in_unit = 1, rs_taps = 1;
  std::vector<int> rs_first_h, rs_n_h;
  std::vector<float> rs_w_h;
  /* the NCCF upsampler (measured lags to the grid), as the chunk combiner
   * takes it (its tap_first, tap_n, tap_w: up_taps = its max_taps) */
  int up_taps = 1;
  PitchChunkCombiner::Tables chunk;
  /* on the device: the above, the lag grid, and a CPU device's
   * afet_pitch_upsample_lags16 tables (the grid padded to 16 lags, tap j
   * of lag i at j Sp + i) */
  ClMem rs_first, rs_n, rs_w, up_first, up_n, up_w, lags_mem;
  ClMem up_first16, up_n16, up_wt16;

private:
  PitchTables () = default;
  Status build (Device &device, const PitchConfig &c, bool cpu);
  std::shared_ptr<Device> device_;
};

}  /* namespace afet */
