/* The pitch stage: Kaldi's pitch tracker (compute-kaldi-pitch-feats) of a
 * whole utterance on the device, and its processing
 * (process-kaldi-pitch-feats) on the host.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "device.h"
#include "pitch-batch.h"
#include "pitch-chunks.h"
#include "pitch-tables.h"
#include "status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace afet {

/* Kaldi's PitchExtractionOptions, its names and defaults (samp_freq is the
 * input's rate). frames_per_chunk, simulate_first_pass_online and
 * max_frames_latency are Kaldi's online options: PitchStage::compute is
 * offline and ignores them, OnlinePitch (pitch-online.h) follows them. */
struct PitchConfig
{
  float samp_freq = 16000.0f;
  float frame_shift_ms = 10.0f;
  float frame_length_ms = 25.0f;
  float preemph_coeff = 0.0f;
  float min_f0 = 50.0f;
  float max_f0 = 400.0f;
  float soft_min_f0 = 10.0f;
  float penalty_factor = 0.1f;
  float lowpass_cutoff = 1000.0f;
  float resample_freq = 4000.0f;
  float delta_pitch = 0.005f;
  float nccf_ballast = 7000.0f;
  int lowpass_filter_width = 1;
  int upsample_filter_width = 5;
  int max_frames_latency = 0;
  int frames_per_chunk = 0;
  bool simulate_first_pass_online = false;
  int recompute_frame = 500;
  bool nccf_ballast_online = false;
  bool snip_edges = true;

  /* Kaldi's ranges (its own checks and the ones its arithmetic needs) */
  Status validate () const;
};

/* Kaldi's ProcessPitchOptions, its names and defaults. The delta-pitch
 * noise is Gaussian of that stddev from a generator seeded by srand (not
 * Kaldi's rand (): the values differ from Kaldi's, their distribution is
 * the same). */
struct ProcessPitchConfig
{
  float pitch_scale = 2.0f;
  float pov_scale = 2.0f;
  float pov_offset = 0.0f;
  float delta_pitch_scale = 10.0f;
  float delta_pitch_noise_stddev = 0.005f;
  int normalization_left_context = 75;
  int normalization_right_context = 75;
  int delta_window = 2;
  int delay = 0;
  bool add_pov_feature = true;
  bool add_normalized_log_pitch = true;
  bool add_delta_pitch = true;
  bool add_raw_log_pitch = false;
  unsigned srand = 0;

  int dims () const;
  Status validate () const;
};

/* The lag grid (seconds): 1 / max_f0 times (1 + delta_pitch)^i up to
 * 1 / min_f0, accumulated in float as Kaldi does (417 by default). */
std::vector<float> pitch_lags (const PitchConfig &c);

/* Outputs of Kaldi's LinearResample of n_in input samples to
 * c.resample_freq (all with flush; without, those whose filter lies inside
 * the input). */
long long pitch_resampled_count (const PitchConfig &c, long long n_in,
    bool flush);

/* Kaldi's probability of voicing of an NCCF value (its POV-weighted mean),
 * and its POV feature. */
double pitch_nccf_to_pov (double n);
double pitch_nccf_to_pov_feature (double n);

/* How many frames n input samples give (offline, after the end). */
long long pitch_frames (const PitchConfig &c, long long n);

/* process-kaldi-pitch-feats of T raw frames (nccf, pitch interleaved, as
 * the stage gives them): (T + delay) rows of c.dims () floats into out, in
 * double. */
void process_pitch (const ProcessPitchConfig &c, const float *raw, int T,
    float *out);

class PitchStage
{
public:
  PitchStage () = default;
  PitchStage (const PitchStage &) = delete;
  PitchStage &operator= (const PitchStage &) = delete;

  /* The fixed tables for c (resampling filter, lag grid, upsampling taps:
   * shared with the device's other stages of c, pitch-tables.h) and the
   * Viterbi's combiner; work goes on queue (or a queue of its own). The
   * stage's kernels are made at its first compute () or device
   * resampling, its chunk combiner at its first nccf_part (). */
  Status init (std::shared_ptr<Device> device, const PitchConfig &c,
      cl_command_queue queue = nullptr);

  /* compute-kaldi-pitch-feats of one whole utterance: n samples in Kaldi's
   * scale (16-bit values) at c.samp_freq; raw gets pitch_frames () rows of
   * (nccf, pitch in Hz), as Kaldi computes them offline (its ballast from
   * the energy of the input, the early frames rescaled as its
   * RecomputeBacktraces does). lag (optional) gets each frame's index into
   * the lag grid. */
  Status compute (const float *wave, long long n, std::vector<float> *raw,
      std::vector<int> *lag = nullptr);
  /* The same from 16-bit samples, uploaded as they are (half the bytes of
   * floats; the kernel widens each to the same float): the same rows bit
   * for bit. */
  Status compute (const int16_t *wave, long long n, std::vector<float> *raw,
      std::vector<int> *lag = nullptr);

  /* The Viterbi search and backtrace alone, as compute () runs them: T
   * frames of NCCF on the lag grid (T x n_lags () floats) to each frame's
   * lag index (tests/engine/test_pitch.cc checks it against a search of
   * every lag). */
  Status viterbi_path (const float *nccf, long long T, std::vector<int> *lag);

  /* The Viterbi's work-group size (0, the default: one work-item on a CPU
   * device, up to the lag count on others); set before init (). */
  void set_viterbi_work_items (size_t n) { viterbi_items_ = n; }
  /* Frames of the segments a long utterance's Viterbi is cut into
   * (pitch-batch.h; -1, the default: kViterbiSegment on a device that is
   * not a CPU, none on a CPU device; 0: none); set before init (). */
  void set_viterbi_segment (int frames) { viterbi_segment_ = frames; }
  static constexpr int kViterbiSegment = 1000;
  /* rounds of segments run again in the last Viterbi launch */
  int viterbi_rounds () const;

  int n_lags () const { return S_; }
  const PitchConfig &config () const { return cfg_; }
  /* whether the last compute ()'s Viterbi launch served other utterances
   * (of streams sharing the device) too */
  bool last_combined () const { return combined_; }
  const std::vector<float> &lags () const { return tables_->lags; }
  /* the tables this stage shares (tests: the same object for stages of
   * one configuration); whether it has made its kernels and joined its
   * chunk combiner yet */
  const std::shared_ptr<const PitchTables> &tables () const
  {
    return tables_;
  }
  bool kernels_made () const { return kernels_made_; }
  bool has_chunk_combiner () const { return chunks_ != nullptr; }

  /* The online tracker's work on a part of the signal (defined in
   * pitch-online.cc, used by OnlinePitch).
   *
   * resample_part: outputs k0 .. k1 - 1 of Kaldi's LinearResample of the
   * signal whose samples x0 .. x0 + n - 1 are wave (x0 a multiple of the
   * input's period unit low enough for every tap of output k0: see
   * resample_first_input; zeros past n) into ds. On the host where the
   * device has fp64 (resample_host: the kernel's sums in double, bit for
   * bit), else with the kernel (resample_device): a chunk's few hundred
   * outputs cost less there than a launch and a read. */
  long long resample_first_input (long long k0) const;
  Status resample_part (const float *wave, long long x0, long long n,
      long long k0, long long k1, float *ds);
  /* afet_pitch_resample's arithmetic on the host: taps in the kernel's
   * order, products and sum in double. float x float products are exact
   * in double, so this equals the kernel's ACC = double output bit for bit
   * (tests/engine/test_pitch_online.cc); with ACC = float it would not. */
  void resample_host (const float *wave, long long x0, long long n,
      long long k0, long long k1, float *ds) const;
  Status resample_device (const float *wave, long long x0, long long n,
      long long k0, long long k1, float *ds);
  bool fp64 () const { return fp64_; }
  /* nccf_part: T frames whose windows start at start[t] (indices into ds,
   * which holds samples d0 .. d0 + n_ds - 1 of the resampled signal, zeros
   * outside): their NCCF on the lag grid with the frame's ballast (pitch,
   * T x n_lags ()), without (pov, T x n_lags ()), and the mean of e1 e2 over
   * the measured lags (avg_norm, T). Through the device's
   * PitchChunkCombiner (pitch-chunks.h): the chunks of the streams calling
   * at the same time go in one launch; combined (if not null) is set when
   * this one's did. */
  Status nccf_part (const float *ds, long long d0, long long n_ds,
      const long long *start, int T, const float *ballast, float *pitch,
      float *pov, float *avg_norm, bool *combined = nullptr);

private:
  std::shared_ptr<Device> device_;
  PitchConfig cfg_;
  ClQueue own_queue_;
  cl_command_queue queue_ = nullptr;
  /* the pitch program's options (AFET_LSZ = lsz_) */
  std::string opts_;
  std::shared_ptr<const PitchTables> tables_;
  /* the stage's own kernels (a cl_kernel's arguments are per object: the
   * stages' threads cannot share one), made on first use */
  bool kernels_made_ = false;
  Status make_kernels ();
  ClKernel resample_, resample16_, output_;
  /* the NCCF (the online path's: in PitchChunkCombiner, the same kernels
   * but the last) */
  ClKernel frame_stats_, nccf_lags_, normalize_, upsample_lags_;
  /* the online chunks' NCCF, shared with the device's other streams (made
   * at the first chunk) */
  std::shared_ptr<PitchChunkCombiner> chunks_;
  /* afet_pitch_resample of n samples in x (floats, or 16-bit with s16) to
   * n_out outputs in y */
  Status launch_resample (cl_mem x, long long n, cl_mem y, long long n_out,
      bool s16 = false);
  /* compute () of n floats or, with s16, 16-bit samples */
  Status compute_samples (const void *wave, bool s16, long long n,
      std::vector<float> *raw, std::vector<int> *lag);
  /* the Viterbi and backtrace, shared with the device's other streams */
  std::shared_ptr<PitchViterbiCombiner> viterbi_;
  size_t lsz_ = 64, vlsz_ = 64;
  size_t viterbi_items_ = 0;
  int viterbi_segment_ = -1;
  Status run_viterbi (cl_mem nccf, long long T, cl_mem path);
  bool fp64_ = false;
  bool cpu_ = false;            /* a CPU device: its own NCCF kernels */
  bool combined_ = false;
  int S_ = 0, M_ = 0, lag0_ = 0, lag1_ = 0, basic_ = 0, shift_ = 0;
  int full_ = 0;
  int out_unit_ = 1, in_unit_ = 1, rs_taps_ = 1, up_taps_ = 1;
  /* the shared tables' buffers compute () reads (references of its own,
   * taken with its kernels) */
  ClMem up_first_, up_n_, up_w_, lags_mem_;
  /* compute ()'s buffers, kept from one utterance to the next on a CPU
   * device while they hold at most kKeepBytes (drop_scratch () at the end
   * of each: others, or more, are released); on other devices the host's
   * (dsh_, sum_, sum2_) are kept while they hold at most kKeepBytes (a
   * job's next utterance writes the same pages, not new ones) */
  enum { kX, kDs, kInner, kNorm, kNccf, kPath, kOut, kMean, kE1, kNv,
    kScratch };
  static constexpr size_t kKeepBytes = (size_t) 256 << 20;
  ClMem scratch_[kScratch];
  size_t scratch_bytes_[kScratch] = { };
  std::vector<float> dsh_;
  std::vector<double> sum_, sum2_;
  Status scratch (int slot, size_t bytes, cl_mem *out);
  void drop_scratch ();
  /* a CPU device's upsampling tables (afet_pitch_upsample_lags16) */
  ClMem up_first16_, up_n16_, up_wt16_;
};

}  /* namespace afet */
