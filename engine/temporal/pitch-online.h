/* Kaldi's online pitch tracker (OnlinePitchFeature) and its online
 * processing (OnlineProcessPitch): chunks in, frames out as they are ready.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "pitch.h"

#include <random>
#include <vector>

namespace afet {

/* How many input samples one of Kaldi's chunks holds (frames_per_chunk
 * frames' worth, Kaldi's float product). */
long long pitch_chunk_samples (const PitchConfig &c);

/* One utterance of Kaldi's OnlinePitchFeature. accept () is Kaldi's
 * AcceptWaveform (the caller cuts the input into Kaldi's chunks:
 * pitch_chunk_samples () each, the last one shorter), finish () its
 * InputFinished. The resampling runs on the host where the device has
 * fp64 (the kernel's sums, bit for bit: PitchStage::resample_part), the
 * NCCF of the new frames over the measured lags and its upsampling to the
 * lag grid on the device, in one launch with the chunks of the other
 * streams that arrive at the same time (PitchChunkCombiner); the Viterbi
 * forward pass (float, the offline kernel's arithmetic),
 * RecomputeBacktraces, the traceback and max-frames-latency on the host. A frame's value can change
 * until the end: frame () gives it as the current traceback has it.
 * Memory: per frame, the backpointers and POV NCCF of every lag (about
 * 2.5 KB with the default 417 lags) until every path passes through a
 * later frame (then 12 bytes: the frame cannot change any more; Kaldi
 * keeps them all). */
class OnlinePitch
{
public:
  /* stage: built (init) for the same options; it must outlive this */
  void init (PitchStage *stage);
  /* a new utterance */
  void reset ();

  Status accept (const float *wave, long long n);
  Status finish ();

  bool finished () const { return finished_; }
  /* Kaldi's NumFramesReady: the frames less the traceback's latency */
  int frames_ready () const { return (int) path_.size () - latency_; }
  /* frame t as the current traceback has it: (nccf, pitch in Hz) */
  void frame (int t, float *nccf, float *pitch) const;
  int lag (int t) const { return path_[t]; }
  /* chunks whose NCCF went in a launch with other streams' chunks (since
   * init) */
  long long combined_chunks () const { return combined_chunks_; }

  /* One Viterbi step on the host: each lag's best predecessor into bp
   * (the lowest index of the least cost), the forward costs less their
   * least into cur, from the previous frame's (prev) and this frame's
   * NCCF (public for tests/engine/test_pitch_online.cc, which checks it
   * against a search of every lag). */
  void viterbi_step (const float *nccf, const float *prev, float *cur,
      unsigned short *bp) const;

private:
  void traceback ();
  int latency () const;
  void recompute ();
  void prune ();
  int n_frames () const { return base_ + (int) (bp_.size () / S_); }

  PitchStage *stage_ = nullptr;
  PitchConfig c_;
  int S_ = 0, M_ = 0, basic_ = 0, shift_ = 0, full_ = 0, lag1_ = 0;
  float factor_ = 0.0f;
  std::vector<float> lags_, trans_;    /* trans_[d]: a jump of d lags */

  /* input from sample wave_base_ on, resampled signal from ds_base_ on */
  std::vector<float> wave_, ds_;
  long long wave_base_ = 0, wave_n_ = 0, ds_base_ = 0, ds_n_ = 0;
  double sum_ = 0.0, sum2_ = 0.0;       /* of the whole resampled signal */
  long long ms_pos_ = 0;                /* online ballast: sums up to here */
  double ms_sum_ = 0.0, ms_sum2_ = 0.0;
  bool finished_ = false, recomputed_ = false;

  /* per frame: frames base_ .. on held whole, the earlier ones settled */
  int base_ = 0, held_after_prune_ = 0;
  std::vector<float> settled_;          /* base_ x (nccf, pitch) */
  std::vector<unsigned short> bp_;      /* (T - base_) x S */
  std::vector<float> pov_;              /* (T - base_) x S */
  std::vector<float> early_;            /* frames < recompute-frame: nccf */
  std::vector<float> avg_norm_, mean_sq_;
  std::vector<float> fwd_;
  mutable std::vector<float> bmin_;     /* viterbi_step's block minima */
  std::vector<int> path_;
  int latency_ = 0;
  long long combined_chunks_ = 0;
};

/* OnlineProcessPitch over an OnlinePitch: rows come out as Kaldi's
 * NumFramesReady allows (all but the normalisation's right context, less
 * the delay, until the end), each computed from the frames as they stand
 * when it comes out. */
class OnlinePitchProcess
{
public:
  void init (const ProcessPitchConfig &c);
  void reset ();
  /* rows ready now (Kaldi's NumFramesReady) */
  int rows_ready (const OnlinePitch &src) const;
  /* rows r0 .. r1 - 1 (r1 <= rows_ready) into out, c.dims () each */
  void rows (const OnlinePitch &src, int r0, int r1, float *out);

private:
  ProcessPitchConfig c_;
  std::mt19937 gen_;
  std::normal_distribution<double> nd_;
  std::vector<double> noise_;
};

/* Rows r0 .. r1 - 1 of process-kaldi-pitch-feats of the T raw frames
 * (nccf, pitch interleaved) as they stand; noise[t] is added to frame t's
 * delta (nullptr: none). */
void process_pitch_rows (const ProcessPitchConfig &c, const float *raw,
    int T, int r0, int r1, const double *noise, float *out);

}  /* namespace afet */
