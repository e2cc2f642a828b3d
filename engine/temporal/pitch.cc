/* The pitch stage (pitch.h): Kaldi's pitch tracker of a whole utterance on
 * the device, and process-kaldi-pitch-feats on the host.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Written from Kaldi's algorithm (feat/pitch-functions.cc, feat/resample.cc;
 * tests/reference/afetref_pitch.c restates it in double). Offline, Kaldi
 * takes the whole input, computes the frames whose lags lie inside what it
 * could resample without the end (their NCCF ballast from the energy of
 * that part), then, at the end of input, the last frames (ballast from the
 * energy of the whole resampled signal); if that energy differs from the
 * first by more than 1 % and the first part had fewer than recompute-frame
 * frames, the early frames' NCCFs are rescaled (RecomputeBacktraces). This
 * stage reproduces those ballasts frame by frame, so that every frame's
 * NCCF is Kaldi's. */

#include "pitch.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace afet {

Status
PitchConfig::validate () const
{
  auto bad = [](const char *m) { return Status (Status::BAD_CONFIG, m); };
  if (!(samp_freq > 0))
    return bad ("the sample rate must be positive");
  if (!(resample_freq > 0))
    return bad ("resample-frequency must be positive");
  if (!(min_f0 > 0) || !(max_f0 > min_f0))
    return bad ("min-f0 must be positive and below max-f0");
  if (!(lowpass_cutoff > 0) || 2 * lowpass_cutoff > resample_freq)
    return bad ("lowpass-cutoff must be positive and at most half "
        "resample-frequency (Kaldi's check)");
  if (2 * lowpass_cutoff > samp_freq)
    return bad ("lowpass-cutoff must be at most half the input's sample "
        "rate: for 8 kHz input keep it at or below 4000 Hz");
  if (lowpass_filter_width < 1 || upsample_filter_width < 1)
    return bad ("lowpass-filter-width and upsample-filter-width must be at "
        "least 1");
  if (!(delta_pitch > 0))
    return bad ("delta-pitch must be positive");
  if (!(frame_shift_ms > 0) || !(frame_length_ms > 0))
    return bad ("frame-shift and frame-length must be positive");
  if (!(penalty_factor >= 0) || !(soft_min_f0 >= 0) || !(nccf_ballast >= 0))
    return bad ("penalty-factor, soft-min-f0 and nccf-ballast must not be "
        "negative");
  if ((int) (resample_freq * frame_length_ms / 1000.0f) < 1 ||
      (int) (resample_freq * frame_shift_ms / 1000.0f) < 1)
    return bad ("frame-length and frame-shift are shorter than one sample "
        "at resample-frequency");
  if (std::floor ((double) samp_freq) != samp_freq ||
      std::floor ((double) resample_freq) != resample_freq)
    return bad ("the sample rate and resample-frequency must be whole Hz");
  if (recompute_frame < 0 || max_frames_latency < 0 || frames_per_chunk < 0)
    return bad ("recompute-frame, max-frames-latency and frames-per-chunk "
        "must not be negative");
  if (simulate_first_pass_online && frames_per_chunk == 0)
    return bad ("simulate-first-pass-online needs frames-per-chunk > 0 "
        "(Kaldi's check)");
  if (pitch_lags (*this).size () > 65535)
    return bad ("the lag grid has more than 65535 lags: raise min-f0 or "
        "delta-pitch");
  return Status::Ok ();
}

int
ProcessPitchConfig::dims () const
{
  return (add_pov_feature ? 1 : 0) + (add_normalized_log_pitch ? 1 : 0) +
      (add_delta_pitch ? 1 : 0) + (add_raw_log_pitch ? 1 : 0);
}

Status
ProcessPitchConfig::validate () const
{
  if (dims () == 0)
    return Status (Status::BAD_CONFIG, "no pitch feature selected: set one "
        "of add-pov-feature, add-normalized-log-pitch, add-delta-pitch, "
        "add-raw-log-pitch (Kaldi's check)");
  if (delta_window < 1)
    return Status (Status::BAD_CONFIG, "delta-window must be at least 1");
  if (normalization_left_context < 0 || normalization_right_context < 0 ||
      delay < 0)
    return Status (Status::BAD_CONFIG, "the normalisation contexts and the "
        "delay must not be negative");
  if (!(delta_pitch_noise_stddev >= 0))
    return Status (Status::BAD_CONFIG, "delta-pitch-noise-stddev must not "
        "be negative");
  return Status::Ok ();
}

std::vector<float>
pitch_lags (const PitchConfig &c)
{
  /* Kaldi keeps the lag in a float and multiplies by (1 + delta) in double
   * each step; the float rounding decides whether the last lag is in */
  std::vector<float> v;
  float min_lag = (float) (1.0 / c.max_f0), max_lag = (float) (1.0 / c.min_f0);
  for (float lag = min_lag; lag <= max_lag && v.size () <= 65536;
      lag = (float) (lag * (1.0 + c.delta_pitch)))
    v.push_back (lag);
  return v;
}

namespace {

long long
gcd64 (long long a, long long b)
{
  while (b != 0) {
    long long r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* Kaldi's LinearResample: the outputs n_in inputs give (all of them with
 * flush; without, those whose filter lies inside the input) */
long long
resample_count (long long n_in, int rate_in, int rate_out, float cutoff,
    int num_zeros, bool flush)
{
  long long tick = (long long) rate_in / gcd64 (rate_in, rate_out) * rate_out;
  long long ticks = n_in * (tick / rate_in), per_out = tick / rate_out;
  if (!flush) {
    /* Kaldi holds the half width in a float */
    float width = (float) (num_zeros / (2.0 * cutoff));
    ticks -= (long long) std::floor (width * (float) tick);
  }
  if (ticks <= 0)
    return 0;
  long long last = ticks / per_out;
  if (last * per_out == ticks)
    last--;
  return last + 1;
}

/* compute ()'s name for the frame's geometry (pitch-tables.h) */
using Geometry = PitchGeometry;

Geometry
geometry (const PitchConfig &c)
{
  return pitch_geometry (c);
}

/* Kaldi's NumFramesAvailable for n resampled samples */
long long
frames_available (const PitchConfig &c, const Geometry &g, long long n,
    bool finished)
{
  long long len = g.basic + (finished ? 0 : g.lag1);
  if (n < len)
    return 0;
  if (c.snip_edges)
    return (n - len) / g.shift + 1;
  if (finished)
    return (long long) ((float) n * 1.0f / g.shift + 0.5f);
  return (long long) ((float) (n - len / 2) * 1.0f / g.shift + 0.5f);
}

long long
frame_start (const PitchConfig &c, const Geometry &g, long long t)
{
  if (c.snip_edges)
    return t * g.shift;
  return (long long) ((t + 0.5) * g.shift) - g.full / 2;
}

/* the variance of ds[0 .. end): what Kaldi calls the mean square */
double
variance_of (double sum, double sum2, long long end)
{
  if (end <= 0)
    return 0.0;
  double m = sum / end;
  return sum2 / end - m * m;
}

double
signal_variance (const std::vector<double> &sum, const std::vector<double> &
    sum2, long long end)
{
  return end <= 0 ? 0.0 : variance_of (sum[end], sum2[end], end);
}

}  /* namespace */

long long
pitch_resampled_count (const PitchConfig &c, long long n_in, bool flush)
{
  return resample_count (n_in, (int) c.samp_freq, (int) c.resample_freq,
      c.lowpass_cutoff, c.lowpass_filter_width, flush);
}

long long
pitch_frames (const PitchConfig &c, long long n)
{
  Geometry g = geometry (c);
  long long n_ds = resample_count (n, (int) c.samp_freq,
      (int) c.resample_freq, c.lowpass_cutoff, c.lowpass_filter_width, true);
  long long n1 = resample_count (n, (int) c.samp_freq, (int) c.resample_freq,
      c.lowpass_cutoff, c.lowpass_filter_width, false);
  return std::max (frames_available (c, g, n_ds, true),
      frames_available (c, g, n1, false));
}

Status
PitchStage::init (std::shared_ptr<Device> device, const PitchConfig &c,
    cl_command_queue queue)
{
  AFET_RETURN_IF_ERROR (c.validate ());
  device_ = std::move (device);
  cfg_ = c;
  chunks_.reset ();
  kernels_made_ = false;

  cl_device_fp_config fp = 0;
  clGetDeviceInfo (device_->device (), CL_DEVICE_DOUBLE_FP_CONFIG,
      sizeof fp, &fp, nullptr);
  fp64_ = fp != 0;
  lsz_ = pick_local_size (*device_);
  /* on a CPU device a work-group runs on one core, its work-items one
   * after the other: one work-item walks the lags in order, each lag's
   * search starting from its predecessor's (measured on PoCL: the
   * Viterbi in two thirds of the time) */
  cl_device_type type = 0;
  clGetDeviceInfo (device_->device (), CL_DEVICE_TYPE, sizeof type, &type,
      nullptr);
  cpu_ = (type & CL_DEVICE_TYPE_CPU) != 0;
  std::string opts = std::string (fp64_ ? "-DAFET_PITCH_DOUBLE " : "") +
      "-DAFET_LSZ=";
  opts_ = opts + std::to_string (lsz_);
  /* the lag grid, the filters and their buffers: shared with the device's
   * other stages of this configuration (pitch-tables.h) */
  AFET_RETURN_IF_ERROR (PitchTables::get (device_, c, opts_, cpu_,
          &tables_));
  const PitchGeometry &g = tables_->g;
  S_ = g.S;
  M_ = g.M;
  lag0_ = g.lag0;
  lag1_ = g.lag1;
  basic_ = g.basic;
  shift_ = g.shift;
  full_ = g.full;
  out_unit_ = tables_->out_unit;
  in_unit_ = tables_->in_unit;
  rs_taps_ = tables_->rs_taps;
  up_taps_ = tables_->up_taps;

  /* the Viterbi's work-group: as many work-items as lags, up to the
   * device's limit, a power of two for its reduction */
  size_t maxwg = std::max<size_t> (1, device_->info ().max_work_group_size);
  vlsz_ = 1;
  while (viterbi_items_ > 0 && vlsz_ * 2 <= std::min (viterbi_items_, maxwg))
    vlsz_ *= 2;                 /* a power of two for the reduction */
  while (viterbi_items_ == 0 && !cpu_ &&
      vlsz_ * 2 <= std::min<size_t> (maxwg, 1024) && vlsz_ < (size_t) S_)
    vlsz_ *= 2;
  if (device_->info ().local_mem_bytes &&
      (size_t) (2 * S_ + 2 * ((S_ + 15) / 16)) * sizeof (float) +
      2 * sizeof (int) >
      device_->info ().local_mem_bytes)
    return Status (Status::BAD_CONFIG, "the lag grid does not fit the "
        "device's local memory: raise min-f0 or delta-pitch");

  /* Kaldi: the squared log step in a float, times the penalty in float */
  float factor = (float) std::pow (std::log (1.0 + c.delta_pitch), 2.0) *
      c.penalty_factor;
  /* a long utterance's Viterbi in segments run at once where the device
   * has compute units to spare (pitch-batch.h); a CPU device's cores
   * are busy with the other utterances */
  int segment = viterbi_segment_ >= 0 ? viterbi_segment_ :
      cpu_ ? 0 : kViterbiSegment;
  AFET_RETURN_IF_ERROR (PitchViterbiCombiner::get (device_, tables_->lags,
          factor, c.soft_min_f0, vlsz_, segment, opts + std::to_string
          (vlsz_), &viterbi_));
  /* the kernels (make_kernels) and the chunk combiner (nccf_part) when
   * first used: a live stream's stage on a device with fp64 needs no
   * kernel of its own, an offline one no chunk combiner */
  return use_queue (*device_, queue, &own_queue_, &queue_);
}

/* The stage's own kernels, from the program PitchTables::get built, and
 * its references to the shared tables' buffers that compute () reads: made
 * at the first use (the resampling, compute ()), once. */
Status
PitchStage::make_kernels ()
{
  if (kernels_made_)
    return Status::Ok ();
  const char *names[] = { "afet_pitch_resample", "afet_pitch_resample16",
    "afet_pitch_output",
    /* the NCCF; a CPU device: 16 lags a work-item, their sums side by
     * side */
    "afet_pitch_frame_stats",
    cpu_ ? "afet_pitch_nccf_lags16" : "afet_pitch_nccf_lags",
    "afet_pitch_normalize",
    cpu_ ? "afet_pitch_upsample_lags16" : "afet_pitch_upsample_lags"
  };
  ClKernel *kernels[] = { &resample_, &resample16_, &output_, &frame_stats_,
    &nccf_lags_, &normalize_, &upsample_lags_
  };
  for (int i = 0; i < 7; i++)
    AFET_RETURN_IF_ERROR (make_kernel (*device_, "pitch", kernels::pitch,
            kernels::pitch_sha256, opts_, names[i], kernels[i]));
  const PitchTables &t = *tables_;
  const std::pair<ClMem *, const ClMem *> shared[] = {
    { &up_first_, &t.up_first }, { &up_n_, &t.up_n }, { &up_w_, &t.up_w },
    { &lags_mem_, &t.lags_mem }, { &up_first16_, &t.up_first16 },
    { &up_n16_, &t.up_n16 }, { &up_wt16_, &t.up_wt16 }
  };
  for (const auto &m : shared) {
    m.first->reset ();
    cl_mem h = m.second->get ();
    if (h) {
      cl_int err = clRetainMemObject (h);
      if (err != CL_SUCCESS)
        return cl_fail ("clRetainMemObject (the pitch tables)", err);
      m.first->reset (h);
    }
  }
  kernels_made_ = true;
  return Status::Ok ();
}

/* the resampling on the device, offline (the whole utterance) and online
 * where the device has no fp64 (resample_device) */
Status
PitchStage::launch_resample (cl_mem x, long long n, cl_mem y,
    long long n_out, bool s16)
{
  AFET_RETURN_IF_ERROR (make_kernels ());
  cl_kernel k = s16 ? resample16_.get () : resample_.get ();
  ArgSetter a (k);
  a (x) ((cl_long) n) (tables_->rs_first.get ()) (tables_->rs_n.get ())
      (tables_->rs_w.get ())
      ((cl_int) rs_taps_) ((cl_int) out_unit_) ((cl_int) in_unit_) (y)
      ((cl_long) n_out);
  AFET_RETURN_IF_ERROR (a.status ("afet_pitch_resample"));
  return launch (queue_, k, (n_out + lsz_ - 1) / lsz_, lsz_,
      s16 ? "afet_pitch_resample16" : "afet_pitch_resample");
}

/* The Viterbi and backtrace of T frames of NCCF through the device's
 * combiner, for a caller outside compute () */
Status
PitchStage::run_viterbi (cl_mem nccf, long long T, cl_mem path)
{
  viterbi_->enter ();
  return viterbi_->run (nccf, T, path, nullptr);
}

int
PitchStage::viterbi_rounds () const
{
  return viterbi_ ? viterbi_->last_rounds () : 0;
}

Status
PitchStage::viterbi_path (const float *nccf, long long T,
    std::vector<int> *lag)
{
  lag->clear ();
  if (T <= 0)
    return Status::Ok ();
  cl_context ctx = device_->context ();
  ClMem nm, path;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, (size_t) T * S_ * sizeof (float),
          (void *) nccf, &nm));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          (size_t) T * sizeof (cl_int), nullptr, &path));
  AFET_RETURN_IF_ERROR (run_viterbi (nm.get (), T, path.get ()));
  lag->resize (T);
  cl_int err = clEnqueueReadBuffer (queue_, path.get (), CL_TRUE, 0,
      (size_t) T * sizeof (cl_int), lag->data (), 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("reading the lags", err);
  return Status::Ok ();
}

Status
PitchStage::scratch (int slot, size_t bytes, cl_mem *out)
{
  if (scratch_bytes_[slot] < bytes) {
    scratch_[slot].reset ();
    scratch_bytes_[slot] = 0;
    AFET_RETURN_IF_ERROR (make_buffer (device_->context (),
            CL_MEM_READ_WRITE, bytes, nullptr, &scratch_[slot]));
    scratch_bytes_[slot] = bytes;
  }
  *out = scratch_[slot].get ();
  return Status::Ok ();
}

void
PitchStage::drop_scratch ()
{
  size_t host = (dsh_.capacity () * sizeof (float)) + (sum_.capacity () +
      sum2_.capacity ()) * sizeof (double);
  size_t kept = host;
  for (int i = 0; i < kScratch; i++)
    kept += scratch_bytes_[i];
  if (cpu_ && kept <= kKeepBytes)
    return;
  for (int i = 0; i < kScratch; i++) {
    scratch_[i].reset ();
    scratch_bytes_[i] = 0;
  }
  if (host <= kKeepBytes)
    return;
  std::vector<float> ().swap (dsh_);
  std::vector<double> ().swap (sum_);
  std::vector<double> ().swap (sum2_);
}

Status
PitchStage::compute (const float *wave, long long n, std::vector<float> *raw,
    std::vector<int> *lag)
{
  return compute_samples (wave, false, n, raw, lag);
}

Status
PitchStage::compute (const int16_t *wave, long long n,
    std::vector<float> *raw, std::vector<int> *lag)
{
  return compute_samples (wave, true, n, raw, lag);
}

Status
PitchStage::compute_samples (const void *wave, bool s16, long long n,
    std::vector<float> *raw, std::vector<int> *lag)
{
  const PitchConfig &c = cfg_;
  Geometry g = geometry (c);
  raw->clear ();
  if (lag)
    lag->clear ();
  combined_ = false;
  AFET_RETURN_IF_ERROR (make_kernels ());
  int rin = (int) c.samp_freq, rout = (int) c.resample_freq;
  long long n2 = resample_count (n, rin, rout, c.lowpass_cutoff,
      c.lowpass_filter_width, true);
  long long n1 = resample_count (n, rin, rout, c.lowpass_cutoff,
      c.lowpass_filter_width, false);
  long long T1 = frames_available (c, g, n1, false);
  long long T = std::max (T1, frames_available (c, g, n2, true));
  if (T == 0)
    return Status::Ok ();
  /* on its way to the Viterbi: a launch gathering utterances waits for
   * this one (pitch-batch.h); left if it fails before */
  struct Entered
  {
    PitchViterbiCombiner *c;
    bool ran = false;
    ~Entered () { if (!ran) c->leave (); }
  } entered { viterbi_.get () };
  viterbi_->enter ();
  size_t acc = fp64_ ? sizeof (double) : sizeof (float);
  if ((unsigned long long) T * std::max (S_, M_) * std::max<size_t> (acc, 4) >
      device_->info ().max_alloc_bytes && device_->info ().max_alloc_bytes)
    return Status (Status::BAD_CONFIG, "the utterance is too long for one "
        "buffer of this device (" + std::to_string (T) + " frames): split "
        "it (a DISCONT starts a new utterance)");

  cl_context ctx = device_->context ();
  /* the utterance's buffers: kept for the next one on a CPU device (up to
   * kKeepBytes), where a new buffer is new pages, each zeroed by the
   * kernel at its first touch */
  struct Drop
  {
    PitchStage *s;
    ~Drop () { s->drop_scratch (); }
  } drop { this };
  cl_mem x, ds;
  const size_t bytes = s16 ? sizeof (int16_t) : sizeof (float);
  AFET_RETURN_IF_ERROR (scratch (kX, std::max<long long> (n, 1) * bytes,
          &x));
  AFET_RETURN_IF_ERROR (scratch (kDs, std::max<long long> (n2, 1) *
          sizeof (float), &ds));
  cl_int err = clEnqueueWriteBuffer (queue_, x, CL_TRUE, 0, n * bytes,
      wave, 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("writing the samples", err);
  AFET_RETURN_IF_ERROR (launch_resample (x, n, ds, n2, s16));
  /* the energy of the resampled signal, for the ballast, on the host, in
   * double and sample order: offline, the sums of the first n1 and of all
   * n2 samples; with nccf-ballast-online every frame's end's, from prefix
   * sums (the same additions: the same values). Two arrays of n2 doubles
   * for every utterance, fresh pages each, took 0.15 s of 1.2 for 10 h in
   * 32 jobs on an H200. */
  std::vector<float> &dsh = dsh_;
  dsh.resize (n2);
  err = clEnqueueReadBuffer (queue_, ds, CL_TRUE, 0, n2 * sizeof (float),
      dsh.data (), 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("reading the resampled signal", err);
  std::vector<double> &sum = sum_, &sum2 = sum2_;
  double ms1, ms2;
  if (c.nccf_ballast_online) {
    sum.assign (n2 + 1, 0.0);
    sum2.assign (n2 + 1, 0.0);
    for (long long k = 0; k < n2; k++) {
      sum[k + 1] = sum[k] + dsh[k];
      sum2[k + 1] = sum2[k] + (double) dsh[k] * dsh[k];
    }
    ms1 = signal_variance (sum, sum2, n1);
    ms2 = signal_variance (sum, sum2, n2);
  } else {
    double s = 0.0, s2 = 0.0;
    long long k = 0;
    for (; k < std::min (n1, n2); k++) {
      s = s + dsh[k];
      s2 = s2 + (double) dsh[k] * dsh[k];
    }
    ms1 = variance_of (s, s2, n1);
    for (; k < n2; k++) {
      s = s + dsh[k];
      s2 = s2 + (double) dsh[k] * dsh[k];
    }
    ms2 = variance_of (s, s2, n2);
  }
  std::vector<long long> start (T);
  std::vector<float> ballast (T), old_ballast (T);
  auto ballast_of = [&](double ms) {
    return std::pow (ms * basic_, 2.0) * c.nccf_ballast;
  };
  for (long long t = 0; t < T; t++) {
    start[t] = frame_start (c, g, t);
    double ms;
    if (c.nccf_ballast_online)
      ms = signal_variance (sum, sum2, std::min (start[t] + full_,
              t < T1 ? n1 : n2));
    else
      ms = t < T1 ? ms1 : ms2;
    ballast[t] = (float) ballast_of (ms);
    old_ballast[t] = (float) ballast_of ((float) ms);
  }
  /* RecomputeBacktraces: when the first part had fewer frames than
   * recompute-frame and its energy (kept in a float) differs from the
   * whole signal's by more than 1 %, the frames before recompute-frame are
   * rescaled to the final ballast */
  bool rescale = false;
  float f1 = (float) ms1, f2 = (float) ms2;
  if (!c.nccf_ballast_online && T1 > 0 && T1 < c.recompute_frame &&
      !(f1 == f2 || std::fabs (f1 - f2) <= 0.01 * (std::fabs (f1) +
              std::fabs (f2))))
    rescale = true;
  float new_ballast = (float) ballast_of (f2);
  if (rescale)
    for (long long t = c.recompute_frame; t < T; t++)
      old_ballast[t] = new_ballast;     /* scale 1: after the recomputation */

  ClMem startm, bal, oldb;
  cl_mem inner, norm, nccf, path, out, fmean, fe1, nv;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, T * sizeof (cl_long), start.data (), &startm));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, T * sizeof (float), ballast.data (), &bal));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, T * sizeof (float), old_ballast.data (),
          &oldb));
  AFET_RETURN_IF_ERROR (scratch (kInner, (size_t) T * M_ * acc, &inner));
  AFET_RETURN_IF_ERROR (scratch (kNorm, (size_t) T * M_ * acc, &norm));
  AFET_RETURN_IF_ERROR (scratch (kNccf, (size_t) T * S_ * sizeof (float),
          &nccf));
  AFET_RETURN_IF_ERROR (scratch (kPath, (size_t) T * sizeof (cl_int),
          &path));
  AFET_RETURN_IF_ERROR (scratch (kOut, (size_t) T * 2 * sizeof (float),
          &out));
  AFET_RETURN_IF_ERROR (scratch (kMean, (size_t) T * acc, &fmean));
  AFET_RETURN_IF_ERROR (scratch (kE1, (size_t) T * acc, &fe1));
  AFET_RETURN_IF_ERROR (scratch (kNv, (size_t) T * M_ * acc, &nv));
  {
    ArgSetter a (frame_stats_.get ());
    a (ds) ((cl_long) n2) (startm.get ()) ((cl_int) T)
        ((cl_int) basic_) (c.preemph_coeff) (fmean) (fe1);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_frame_stats"));
    AFET_RETURN_IF_ERROR (launch (queue_, frame_stats_.get (),
            (T + lsz_ - 1) / lsz_, lsz_, "afet_pitch_frame_stats"));
  }
  {
    ArgSetter a (nccf_lags_.get ());
    a (ds) ((cl_long) n2) (startm.get ()) ((cl_int) T) ((cl_int) M_)
        ((cl_int) basic_) ((cl_int) lag0_) (c.preemph_coeff) (fmean)
        (fe1) (inner) (norm);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_nccf_lags"));
    size_t items = cpu_ ? (size_t) T * ((M_ + 15) / 16) : (size_t) T * M_;
    AFET_RETURN_IF_ERROR (launch (queue_, nccf_lags_.get (),
            (items + lsz_ - 1) / lsz_, lsz_, "afet_pitch_nccf_lags"));
  }
  {
    ArgSetter a (normalize_.get ());
    a (inner) (norm) ((cl_int) T) ((cl_int) M_) (bal.get ())
        (nv);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_normalize"));
    AFET_RETURN_IF_ERROR (launch (queue_, normalize_.get (),
            ((size_t) T * M_ + lsz_ - 1) / lsz_, lsz_,
            "afet_pitch_normalize"));
  }
  {
    ArgSetter a (upsample_lags_.get ());
    a (nv) (norm) ((cl_int) T) ((cl_int) M_) ((cl_int) S_)
        (cpu_ ? up_first16_.get () : up_first_.get ())
        (cpu_ ? up_n16_.get () : up_n_.get ())
        (cpu_ ? up_wt16_.get () : up_w_.get ()) ((cl_int) up_taps_)
        (oldb.get ()) (new_ballast) ((cl_int) (rescale ? 1 : 0))
        (nccf);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_upsample_lags"));
    size_t items = cpu_ ? (size_t) T * ((S_ + 15) / 16) : (size_t) T * S_;
    AFET_RETURN_IF_ERROR (launch (queue_, upsample_lags_.get (),
            (items + lsz_ - 1) / lsz_, lsz_, "afet_pitch_upsample_lags"));
  }
  /* the Viterbi and backtrace: with the device's other utterances ready
   * now, once the NCCF is complete */
  err = clFinish (queue_);
  if (err != CL_SUCCESS)
    return cl_fail ("the pitch NCCF", err);
  entered.ran = true;
  AFET_RETURN_IF_ERROR (viterbi_->run (nccf, T, path,
          &combined_));
  {
    ArgSetter a (output_.get ());
    a (inner) (norm) ((cl_int) T) ((cl_int) M_)
        (up_first_.get ()) (up_n_.get ()) (up_w_.get ()) ((cl_int) up_taps_)
        (lags_mem_.get ()) (path) (out);
    AFET_RETURN_IF_ERROR (a.status ("afet_pitch_output"));
    AFET_RETURN_IF_ERROR (launch (queue_, output_.get (),
            (T + lsz_ - 1) / lsz_, lsz_, "afet_pitch_output"));
  }
  raw->resize ((size_t) T * 2);
  err = clEnqueueReadBuffer (queue_, out, CL_TRUE, 0,
      (size_t) T * 2 * sizeof (float), raw->data (), 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("reading the pitch", err);
  if (lag) {
    lag->resize (T);
    err = clEnqueueReadBuffer (queue_, path, CL_TRUE, 0,
        (size_t) T * sizeof (cl_int), lag->data (), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("reading the lags", err);
  }
  return Status::Ok ();
}

/* ---- processing (host, double) ---- */

double
pitch_nccf_to_pov_feature (double n)
{
  n = std::min (1.0, std::max (-1.0, n));
  return std::pow (1.0001 - n, 0.15) - 1.0;
}

double
pitch_nccf_to_pov (double n)
{
  double a = std::min (std::fabs (n), 1.0);
  double r = -5.2 + 5.4 * std::exp (7.5 * (a - 1.0)) + 4.8 * a -
      2.0 * std::exp (-10.0 * a) + 4.2 * std::exp (20.0 * (a - 1.0));
  return 1.0 / (1.0 + std::exp (-r));
}

void
process_pitch (const ProcessPitchConfig &c, const float *raw, int T,
    float *out)
{
  const int dims = c.dims ();
  if (T <= 0)
    return;
  std::vector<double> lp (T), w (T), csw (T + 1, 0.0), cswl (T + 1, 0.0),
      noise (T, 0.0);
  for (int t = 0; t < T; t++) {
    lp[t] = std::log ((double) raw[2 * t + 1]);
    w[t] = pitch_nccf_to_pov (raw[2 * t]);
  }
  /* the POV-weighted sums over the normalisation span, from running sums
   * (double: their rounding stays far below the features' 1e-4) */
  for (int t = 0; t < T; t++) {
    csw[t + 1] = csw[t] + w[t];
    cswl[t + 1] = cswl[t] + w[t] * lp[t];
  }
  if (c.delta_pitch_noise_stddev != 0.0f) {
    std::mt19937 gen (c.srand);
    std::normal_distribution<double> nd (0.0, c.delta_pitch_noise_stddev);
    for (int t = 0; t < T; t++)
      noise[t] = nd (gen);
  }
  for (int r = 0; r < T + c.delay; r++) {
    int t = std::max (0, r - c.delay), k = 0;
    float *o = out + (size_t) r * dims;
    if (c.add_pov_feature)
      o[k++] = (float) (c.pov_scale * pitch_nccf_to_pov_feature (raw[2 * t]) +
          c.pov_offset);
    if (c.add_normalized_log_pitch) {
      int b = std::max (0, t - c.normalization_left_context),
          e = std::min (t + c.normalization_right_context + 1, T);
      double sw = csw[e] - csw[b], swl = cswl[e] - cswl[b];
      o[k++] = (float) ((lp[t] - swl / sw) * c.pitch_scale);
    }
    if (c.add_delta_pitch) {
      /* the first-order delta of the log pitch, the ends repeated */
      int N = c.delta_window;
      double num = 0.0, den = 0.0;
      for (int j = 1; j <= N; j++) {
        int fp = std::min (t + j, T - 1), fm = std::max (t - j, 0);
        num += j * (lp[fp] - lp[fm]);
        den += 2.0 * j * j;
      }
      o[k++] = (float) ((num / den + noise[t]) * c.delta_pitch_scale);
    }
    if (c.add_raw_log_pitch)
      o[k++] = (float) lp[t];
  }
}

}  /* namespace afet */
