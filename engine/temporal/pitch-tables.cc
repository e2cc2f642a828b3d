/* The pitch tables (pitch-tables.h): the lag grid, the resampling and
 * upsampling filters of a configuration, made once per device and shared.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pitch-tables.h"
#include "clutil.h"
#include "pitch.h"

#include "afet-kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

namespace afet {

namespace {

std::atomic<long long> table_builds { 0 };

/* the windowed sinc of both resamplers: cutoff fc, raised cosine reaching
 * zero at num_zeros / (2 fc) */
double
windowed_sinc (double t, double fc, int num_zeros)
{
  double w = 0.0;
  if (std::fabs (t) < num_zeros / (2.0 * fc))
    w = 0.5 * (1.0 + std::cos (2.0 * M_PI * fc / num_zeros * t));
  double f = t != 0.0 ? std::sin (2.0 * M_PI * fc * t) / (M_PI * t) :
      2.0 * fc;
  return f * w;
}

}  /* namespace */

PitchGeometry
pitch_geometry (const PitchConfig &c)
{
  PitchGeometry g;
  g.S = (int) pitch_lags (c).size ();
  double half = c.upsample_filter_width / (2.0 * c.resample_freq);
  g.lag0 = (int) std::ceil (c.resample_freq * (1.0 / c.max_f0 - half));
  g.lag1 = (int) std::floor (c.resample_freq * (1.0 / c.min_f0 + half));
  g.M = g.lag1 - g.lag0 + 1;
  g.basic = (int) (c.resample_freq * c.frame_length_ms / 1000.0);
  g.shift = (int) (c.resample_freq * c.frame_shift_ms / 1000.0);
  g.full = g.basic + g.lag1;
  return g;
}

long long
PitchTables::builds ()
{
  return table_builds.load ();
}

Status
PitchTables::get (const std::shared_ptr<Device> &device,
    const PitchConfig &c, const std::string &options, bool cpu,
    std::shared_ptr<const PitchTables> *out)
{
  /* the key: the fields the tables are made of, bit for bit (the others,
   * the Viterbi's costs and the online options among them, change none) */
  std::string key;
  const float floats[] = { c.samp_freq, c.resample_freq, c.lowpass_cutoff,
    c.min_f0, c.max_f0, c.delta_pitch, c.frame_length_ms, c.frame_shift_ms,
    c.preemph_coeff
  };
  const int ints[] = { c.lowpass_filter_width, c.upsample_filter_width,
    cpu ? 1 : 0
  };
  key.append ((const char *) floats, sizeof floats);
  key.append ((const char *) ints, sizeof ints);
  static std::mutex registry_lock;
  static std::map<std::tuple<Device *, std::string, std::string>,
      std::weak_ptr<const PitchTables>> registry;
  std::lock_guard<std::mutex> guard (registry_lock);
  auto k = std::make_tuple (device.get (), key, options);
  auto found = registry.find (k);
  if (found != registry.end () && (*out = found->second.lock ()))
    return Status::Ok ();
  /* the program first: a stage's kernels come from it, and its build
   * errors belong to the stage's init */
  cl_program prog = nullptr;
  AFET_RETURN_IF_ERROR (device->program ("pitch", kernels::pitch, options,
          &prog, kernels::pitch_sha256));
  std::shared_ptr<PitchTables> t (new PitchTables ());
  t->device_ = device;
  AFET_RETURN_IF_ERROR (t->build (*device, c, cpu));
  table_builds++;
  registry[k] = t;
  *out = std::move (t);
  for (auto it = registry.begin (); it != registry.end ();)
    it = it->second.expired () ? registry.erase (it) : std::next (it);
  return Status::Ok ();
}

Status
PitchTables::build (Device &device, const PitchConfig &c, bool cpu)
{
  g = pitch_geometry (c);
  lags = pitch_lags (c);
  const int S = g.S, M = g.M;

  /* the resampling filter's phases */
  int rin = (int) c.samp_freq, rout = (int) c.resample_freq;
  int gg = std::gcd (rin, rout);
  out_unit = rout / gg;
  in_unit = rin / gg;
  double cutoff = c.lowpass_cutoff, width = c.lowpass_filter_width /
      (2.0 * cutoff);
  std::vector<int> rf (out_unit), rn (out_unit);
  std::vector<std::vector<double>> rw (out_unit);
  rs_taps = 1;
  for (int w = 0; w < out_unit; w++) {
    double t_out = (double) w / rout;
    long long i0 = (long long) std::ceil ((t_out - width) * rin);
    long long i1 = (long long) std::floor ((t_out + width) * rin);
    rf[w] = (int) i0;
    rn[w] = (int) (i1 - i0 + 1);
    for (long long i = i0; i <= i1; i++)
      rw[w].push_back (windowed_sinc ((double) i / rin - t_out, cutoff,
              c.lowpass_filter_width) / rin);
    rs_taps = std::max (rs_taps, rn[w]);
  }
  std::vector<float> rwf ((size_t) out_unit * rs_taps, 0.0f);
  for (int w = 0; w < out_unit; w++)
    for (int j = 0; j < rn[w]; j++)
      rwf[(size_t) w * rs_taps + j] = (float) rw[w][j];
  rs_first_h = rf;
  rs_n_h = rn;
  rs_w_h = rwf;

  /* the NCCF upsampler: measured lags lag0 .. lag1 to the grid */
  double rate = c.resample_freq, upcut = rate * 0.5;
  std::vector<int> uf (S), un (S);
  std::vector<std::vector<double>> uw (S);
  up_taps = 1;
  for (int i = 0; i < S; i++) {
    double t = (double) lags[i] - g.lag0 / rate;
    double half = c.upsample_filter_width / (2.0 * upcut);
    int a = (int) std::ceil (rate * (t - half)),
        b = (int) std::floor (rate * (t + half));
    a = std::max (a, 0);
    b = std::min (b, M - 1);
    uf[i] = a;
    un[i] = std::max (0, b - a + 1);
    for (int j = 0; j < un[i]; j++)
      uw[i].push_back (windowed_sinc (t - (a + j) / rate, upcut,
              c.upsample_filter_width) / rate);
    up_taps = std::max (up_taps, un[i]);
  }
  std::vector<float> uwf ((size_t) S * up_taps, 0.0f);
  for (int i = 0; i < S; i++)
    for (int j = 0; j < un[i]; j++)
      uwf[(size_t) i * up_taps + j] = (float) uw[i][j];

  cl_context ctx = device.context ();
  const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, rf.size () * sizeof (int),
          rf.data (), &rs_first));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, rn.size () * sizeof (int),
          rn.data (), &rs_n));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, rwf.size () * sizeof (float),
          rwf.data (), &rs_w));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, uf.size () * sizeof (int),
          uf.data (), &up_first));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, un.size () * sizeof (int),
          un.data (), &up_n));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, uwf.size () * sizeof (float),
          uwf.data (), &up_w));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, lags.size () * sizeof (float),
          lags.data (), &lags_mem));
  if (cpu) {
    /* afet_pitch_upsample_lags16's tables: the grid padded to a multiple
     * of 16 lags (no taps), the weights of tap j of lag i at j Sp + i */
    size_t sp = (S + 15) / 16 * 16;
    std::vector<int> ufp (sp, 0), unp (sp, 0);
    std::vector<float> uwt (sp * up_taps, 0.0f);
    for (int i = 0; i < S; i++) {
      ufp[i] = uf[i];
      unp[i] = un[i];
      for (int j = 0; j < un[i]; j++)
        uwt[j * sp + i] = uwf[(size_t) i * up_taps + j];
    }
    AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, sp * sizeof (int),
            ufp.data (), &up_first16));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, sp * sizeof (int),
            unp.data (), &up_n16));
    AFET_RETURN_IF_ERROR (make_buffer (ctx, ro, uwt.size () * sizeof (float),
            uwt.data (), &up_wt16));
  }
  chunk.S = S;
  chunk.M = M;
  chunk.lag0 = g.lag0;
  chunk.basic = g.basic;
  chunk.max_taps = up_taps;
  chunk.preemph = c.preemph_coeff;
  chunk.tap_first = std::move (uf);
  chunk.tap_n = std::move (un);
  chunk.tap_w = std::move (uwf);
  return Status::Ok ();
}

}  /* namespace afet */
