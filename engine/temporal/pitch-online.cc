/* Kaldi's online pitch (pitch-online.h): OnlinePitch, OnlinePitchProcess,
 * and PitchStage's entries for parts of a signal.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Written from Kaldi's algorithm (feat/pitch-functions.cc:
 * OnlinePitchFeatureImpl, OnlineProcessPitch; its double-precision
 * restatement is tests/reference/afetref_pitch.c). Online, each chunk's
 * frames take their NCCF ballast from the energy of all the resampled
 * signal so far (or, with nccf-ballast-online, up to the frame's end); once
 * recompute-frame frames are in, or at the end if fewer, the early frames'
 * NCCFs are rescaled to the energy then known and their Viterbi is run
 * again (RecomputeBacktraces); the best path is traced back after every
 * chunk, and with max-frames-latency the last frames whose paths have not
 * met yet are held back. */

#include "pitch-online.h"
#include "clutil.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace afet {

long long
pitch_chunk_samples (const PitchConfig &c)
{
  return std::max<long long> (1, (long long) (int) (c.frames_per_chunk *
          c.samp_freq * c.frame_shift_ms / 1000.0f));
}

/* ---- PitchStage on parts of a signal ---- */

long long
PitchStage::resample_first_input (long long k0) const
{
  /* output k's taps start at ph_first[k % out_unit] + (k / out_unit)
   * in_unit; the lowest phase start is phase 0's */
  double width = cfg_.lowpass_filter_width / (2.0 * cfg_.lowpass_cutoff);
  long long first = (long long) std::ceil (-width * cfg_.samp_freq);
  long long back = first < 0 ? (-first + in_unit_ - 1) / in_unit_ : 0;
  long long unit = std::max<long long> (0, k0 / out_unit_ - back);
  return unit * in_unit_;
}

Status
PitchStage::resample_part (const float *wave, long long x0, long long n,
    long long k0, long long k1, float *ds)
{
  if (!fp64_)
    return resample_device (wave, x0, n, k0, k1, ds);
  resample_host (wave, x0, n, k0, k1, ds);
  return Status::Ok ();
}

/* afet_pitch_resample's loop for outputs k0 .. k1 - 1, counted as the
 * kernel counts them in resample_device (from the unit x0 starts) */
void
PitchStage::resample_host (const float *wave, long long x0, long long n,
    long long k0, long long k1, float *ds) const
{
  const PitchTables &tab = *tables_;
  long long kb = x0 / in_unit_ * out_unit_;
  for (long long k = k0; k < k1; k++) {
    long long r = k - kb, unit = r / out_unit_;
    int w = (int) (r - unit * out_unit_);
    long long base = tab.rs_first_h[w] + unit * in_unit_;
    const float *pw = tab.rs_w_h.data () + (size_t) w * rs_taps_;
    double acc = 0;
    for (int j = 0; j < tab.rs_n_h[w]; j++) {
      long long idx = base + j;
      if (idx >= 0 && idx < n)
        acc += (double) pw[j] * (double) wave[idx];
    }
    ds[k - k0] = (float) acc;
  }
}

Status
PitchStage::resample_device (const float *wave, long long x0, long long n,
    long long k0, long long k1, float *ds)
{
  if (k1 <= k0)
    return Status::Ok ();
  /* outputs counted from the unit x0 starts, inputs from x0 */
  long long u = x0 / in_unit_, kb = u * out_unit_, n_out = k1 - kb;
  cl_context ctx = device_->context ();
  ClMem x, y;
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_ONLY |
          CL_MEM_COPY_HOST_PTR, std::max<long long> (n, 1) * sizeof (float),
          (void *) wave, &x));
  AFET_RETURN_IF_ERROR (make_buffer (ctx, CL_MEM_READ_WRITE,
          n_out * sizeof (float), nullptr, &y));
  AFET_RETURN_IF_ERROR (launch_resample (x.get (), n, y.get (), n_out));
  cl_int err = clEnqueueReadBuffer (queue_, y.get (), CL_TRUE,
      (k0 - kb) * sizeof (float), (k1 - k0) * sizeof (float), ds, 0,
      nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("reading a chunk's resampled signal", err);
  return Status::Ok ();
}

Status
PitchStage::nccf_part (const float *ds, long long d0, long long n_ds,
    const long long *start, int T, const float *ballast, float *pitch,
    float *pov, float *avg_norm, bool *combined)
{
  if (combined)
    *combined = false;
  if (T <= 0)
    return Status::Ok ();
  if (!chunks_)
    AFET_RETURN_IF_ERROR (PitchChunkCombiner::get (device_, tables_->chunk,
            opts_, lsz_, &chunks_));
  std::vector<long long> rel (T);
  for (int t = 0; t < T; t++)
    rel[t] = start[t] - d0;
  return chunks_->compute (ds, n_ds, rel.data (), T, ballast, pitch, pov,
      avg_norm, combined);
}

/* ---- OnlinePitch ---- */

void
OnlinePitch::init (PitchStage *stage)
{
  stage_ = stage;
  c_ = stage->config ();
  lags_ = stage->lags ();
  S_ = (int) lags_.size ();
  double half = c_.upsample_filter_width / (2.0 * c_.resample_freq);
  int lag0 = (int) std::ceil (c_.resample_freq * (1.0 / c_.max_f0 - half));
  lag1_ = (int) std::floor (c_.resample_freq * (1.0 / c_.min_f0 + half));
  M_ = lag1_ - lag0 + 1;
  basic_ = (int) (c_.resample_freq * c_.frame_length_ms / 1000.0);
  shift_ = (int) (c_.resample_freq * c_.frame_shift_ms / 1000.0);
  full_ = basic_ + lag1_;
  /* Kaldi: the squared log step in a float, times the penalty in float */
  factor_ = (float) std::pow (std::log (1.0 + c_.delta_pitch), 2.0) *
      c_.penalty_factor;
  /* the transition costs (float) (d d) factor, as the step computes them */
  trans_.resize (S_);
  for (int d = 0; d < S_; d++)
    trans_[d] = (float) (d * d) * factor_;
  reset ();
}

void
OnlinePitch::reset ()
{
  wave_.clear ();
  ds_.clear ();
  wave_base_ = wave_n_ = ds_base_ = ds_n_ = 0;
  sum_ = sum2_ = ms_sum_ = ms_sum2_ = 0.0;
  ms_pos_ = 0;
  finished_ = recomputed_ = false;
  bp_.clear ();
  pov_.clear ();
  base_ = 0;
  held_after_prune_ = 0;
  settled_.clear ();
  early_.clear ();
  avg_norm_.clear ();
  mean_sq_.clear ();
  fwd_.assign (S_, 0.0f);       /* frame -1: every lag costs 0 */
  path_.clear ();
  latency_ = 0;
}

/* Kaldi's Viterbi step on the host: each lag's best predecessor, the
 * lowest index of the least cost, the local cost, the forward cost less
 * its minimum (float, Kaldi's order of operations, without fused
 * multiply-adds, as the kernel with FP_CONTRACT OFF), as
 * afet_pitch_viterbi finds it on the device: by blocks of 16 lags, the
 * block of the previous lag's predecessor first (the predecessors rise
 * with the lag), then the blocks outward from the lag, a block skipped
 * where its least cost plus its least transition exceeds the best found
 * (float's rounding is monotone: no lag in it can reach the best), and
 * none further where the transition alone does (prev is at least 0: it is
 * a cost less the least). About one block a lag where a search outward
 * lag by lag went up to the whole grid on lags far from the least cost. */
void
OnlinePitch::viterbi_step (const float *nccf, const float *prev, float *cur,
    unsigned short *bp) const
{
  const int S = S_, B = 16, nb = (S + B - 1) / B;
  const float factor = factor_;
  std::vector<float> &bmin = bmin_;
  bmin.assign (nb, FLT_MAX);
  for (int j = 0; j < S; j++)
    bmin[j / B] = std::min (bmin[j / B], prev[j]);
  float lo = FLT_MAX;
  int last = 0;
  for (int i = 0; i < S; i++) {
    float best = prev[i];       /* d = 0: 0 * factor + prev[i] */
    int bj = i;
    /* a block's least cost (its lowest index among equals) against the
     * best so far: without a branch a lag, which mispredicted on every
     * block (the same choice as lag by lag) */
    auto scan = [&](int b) {
      int j0 = b * B, j1 = std::min (S, j0 + B);
      const float *tr = trans_.data ();
      float m = tr[std::abs (j0 - i)] + prev[j0];
      int mj = j0;
      for (int j = j0 + 1; j < j1; j++) {
        float v = tr[std::abs (j - i)] + prev[j];
        bool lower = v < m;
        m = lower ? v : m;
        mj = lower ? j : mj;
      }
      bool better = m < best || (m == best && mj < bj);
      best = better ? m : best;
      bj = better ? mj : bj;
    };
    const int bg = last / B, bi = i / B;
    scan (bg);
    for (int b = bi; b >= 0; b--) {
      int d = b == bi ? 0 : i - (b + 1) * B + 1;
      float tr = (float) (d * d) * factor;
      if (tr > best)
        break;                  /* none lower can */
      if (b != bg && tr + bmin[b] <= best)
        scan (b);
    }
    for (int b = bi + 1; b < nb; b++) {
      int d = b * B - i;
      float tr = (float) (d * d) * factor;
      if (tr > best)
        break;                  /* none higher can */
      if (b != bg && tr + bmin[b] <= best)
        scan (b);
    }
    float n = nccf[i];
    float lc = (1.0f - n) + c_.soft_min_f0 * n * lags_[i];
    best += lc;
    cur[i] = best;
    bp[i] = (unsigned short) bj;
    last = bj;
    lo = std::min (lo, best);
  }
  for (int i = 0; i < S; i++)
    cur[i] -= lo;
}

/* The best path back from the lowest final forward cost. Where it meets
 * the previous path (the same lag on a frame that path had), the earlier
 * frames are that path's: their backpointers have not changed (the
 * recomputation clears the path first), as Kaldi's SetBestState stops
 * there; a chunk's traceback costs its new frames and the frames whose
 * lag changed, not the utterance. */
void
OnlinePitch::traceback ()
{
  int T = n_frames (), old = (int) path_.size ();
  path_.resize (T);
  int s = 0;
  for (int i = 1; i < S_; i++)
    if (fwd_[i] < fwd_[s])
      s = i;
  for (int t = T - 1; t >= base_; t--) {
    if (t < old && path_[t] == s)
      break;
    path_[t] = s;
    s = bp_[(size_t) (t - base_) * S_ + s];
  }
}

/* Kaldi's ComputeLatency: follow the paths from the lowest and the highest
 * lag back until they meet, at most max-frames-latency frames */
int
OnlinePitch::latency () const
{
  if (c_.max_frames_latency <= 0 || finished_)
    return 0;
  int lat = 0, lo = 0, hi = S_ - 1, t = (int) path_.size () - 1;
  while (lat < c_.max_frames_latency) {
    /* frame -1, or a settled frame: every path passes there */
    if (t < base_)
      return lat;
    lo = bp_[(size_t) (t - base_) * S_ + lo];
    hi = bp_[(size_t) (t - base_) * S_ + hi];
    if (lo == hi)
      return lat;
    t--;
    lat++;
  }
  return lat;
}

/* Kaldi's RecomputeBacktraces */
void
OnlinePitch::recompute ()
{
  recomputed_ = true;
  int T = (int) mean_sq_.size ();
  if (T == 0)
    return;
  double m = sum_ / ds_n_;
  float ms = (float) (sum2_ / ds_n_ - m * m);
  bool must = false;
  for (int t = 0; t < T; t++) {
    float a = mean_sq_[t];
    if (!(a == ms || std::fabs (a - ms) <= 0.01f * (std::fabs (a) +
                std::fabs (ms))))
      must = true;
  }
  if (!must)
    return;
  float new_ballast = (float) (std::pow ((double) ms * basic_, 2.0) *
      c_.nccf_ballast);
  std::vector<float> prev (S_, 0.0f), cur (S_);
  for (int t = 0; t < T; t++) {
    float old_ballast = (float) (std::pow ((double) mean_sq_[t] * basic_,
            2.0) * c_.nccf_ballast);
    float scale = std::pow ((old_ballast + avg_norm_[t]) / (new_ballast +
            avg_norm_[t]), 0.5f);
    float *nc = early_.data () + (size_t) t * S_;
    for (int i = 0; i < S_; i++)
      nc[i] *= scale;
    /* nothing is settled before the recomputation: base_ is 0 */
    viterbi_step (nc, prev.data (), cur.data (), bp_.data () + (size_t) t *
        S_);
    prev.swap (cur);
  }
  /* the recomputed frames are all the frames there are (it runs at
   * recompute-frame's frame or at the end) */
  fwd_ = prev;
  path_.clear ();
  traceback ();
  latency_ = latency ();
}

Status
OnlinePitch::accept (const float *wave, long long n)
{
  /* the input so far, from the first sample the next resampling needs */
  wave_.insert (wave_.end (), wave, wave + n);
  wave_n_ += n;
  long long want = pitch_resampled_count (c_, wave_n_, finished_);
  if (want > ds_n_) {
    long long x0 = stage_->resample_first_input (ds_n_);
    std::vector<float> part (want - ds_n_);
    AFET_RETURN_IF_ERROR (stage_->resample_part (wave_.data () + (x0 -
                wave_base_), x0, wave_n_ - x0, ds_n_, want, part.data ()));
    for (float v : part) {
      sum_ += v;
      sum2_ += (double) v * v;
    }
    ds_.insert (ds_.end (), part.begin (), part.end ());
    ds_n_ = want;
    long long keep = stage_->resample_first_input (ds_n_);
    wave_.erase (wave_.begin (), wave_.begin () + (keep - wave_base_));
    wave_base_ = keep;
  }

  /* Kaldi's NumFramesAvailable */
  long long len = basic_ + (finished_ ? 0 : lag1_), end = 0;
  if (ds_n_ >= len) {
    if (c_.snip_edges)
      end = (ds_n_ - len) / shift_ + 1;
    else if (finished_)
      end = (long long) ((float) ds_n_ * 1.0f / shift_ + 0.5f);
    else
      end = (long long) ((float) (ds_n_ - len / 2) * 1.0f / shift_ + 0.5f);
  }
  int start = n_frames ();
  if (end <= start)
    return Status::Ok ();
  int T = (int) end - start;
  std::vector<long long> st (T);
  std::vector<float> ballast (T), ms_of (T);
  double m = sum_ / ds_n_, ms_all = sum2_ / ds_n_ - m * m;
  for (int k = 0; k < T; k++) {
    long long t = start + k;
    st[k] = c_.snip_edges ? t * shift_ :
        (long long) ((t + 0.5) * shift_) - full_ / 2;
    double ms = ms_all;
    if (c_.nccf_ballast_online) {
      long long e = std::min (st[k] + full_, ds_n_);
      for (; ms_pos_ < e; ms_pos_++) {
        double v = ds_[ms_pos_ - ds_base_];
        ms_sum_ += v;
        ms_sum2_ += v * v;
      }
      double mm = ms_pos_ > 0 ? ms_sum_ / ms_pos_ : 0.0;
      ms = ms_pos_ > 0 ? ms_sum2_ / ms_pos_ - mm * mm : 0.0;
    }
    ballast[k] = (float) (std::pow (ms * basic_, 2.0) * c_.nccf_ballast);
    ms_of[k] = (float) ms;
  }
  long long d0 = std::max<long long> (0, st[0]);
  std::vector<float> np ((size_t) T * S_), nv ((size_t) T * S_);
  std::vector<float> avg (T);
  bool combined = false;
  AFET_RETURN_IF_ERROR (stage_->nccf_part (ds_.data () + (d0 - ds_base_), d0,
          ds_n_ - d0, st.data (), T, ballast.data (), np.data (), nv.data (),
          avg.data (), &combined));
  combined_chunks_ += combined;

  std::vector<float> cur (S_);
  for (int k = 0; k < T; k++) {
    int t = start + k;
    bp_.resize (bp_.size () + S_);
    const float *nc = np.data () + (size_t) k * S_;
    viterbi_step (nc, fwd_.data (), cur.data (), bp_.data () + (size_t) (t -
            base_) * S_);
    fwd_.swap (cur);
    pov_.insert (pov_.end (), nv.begin () + (size_t) k * S_,
        nv.begin () + (size_t) (k + 1) * S_);
    if (t < c_.recompute_frame) {
      early_.insert (early_.end (), nc, nc + S_);
      avg_norm_.push_back (avg[k]);
      mean_sq_.push_back (ms_of[k]);
    }
    if (t == c_.recompute_frame - 1 && !c_.nccf_ballast_online &&
        !recomputed_) {
      recompute ();
      early_.clear ();
      early_.shrink_to_fit ();
    }
  }
  /* keep the resampled signal from the next frame's first sample on (the
   * online ballast's sums may still need the rest: they are ahead) */
  long long nt = end, keep = c_.snip_edges ? nt * shift_ :
      (long long) ((nt + 0.5) * shift_) - full_ / 2;
  if (c_.nccf_ballast_online)
    keep = std::min (keep, ms_pos_);
  keep = std::max (ds_base_, std::min (keep, ds_n_));
  ds_.erase (ds_.begin (), ds_.begin () + (keep - ds_base_));
  ds_base_ = keep;
  traceback ();
  latency_ = latency ();
  prune ();
  return Status::Ok ();
}

/* Frames every path passes through can no longer change: where the
 * predecessors of all the last frame's lags have narrowed to one lag, that
 * frame and those before it are settled; their (nccf, pitch) are kept
 * (8 bytes a frame) and their backpointers and POV NCCFs (2 S values a
 * frame) dropped. Not before the recomputation (it rewrites the early
 * frames' backpointers). Run when the frames held have doubled since the
 * last time, so that its cost (S a held frame) stays a constant per frame
 * even where the paths do not meet for long (silence). */
void
OnlinePitch::prune ()
{
  if (!recomputed_ && !c_.nccf_ballast_online)
    return;
  int T = n_frames (), held = T - base_;
  if (held < std::max (64, 2 * held_after_prune_))
    return;
  std::vector<char> live (S_, 1), prev (S_);
  int settle = -1;
  for (int t = T - 1; t > base_ && settle < 0; t--) {
    std::fill (prev.begin (), prev.end (), 0);
    int count = 0;
    const unsigned short *bp = bp_.data () + (size_t) (t - base_) * S_;
    for (int i = 0; i < S_; i++)
      if (live[i] && !prev[bp[i]]) {
        prev[bp[i]] = 1;
        count++;
      }
    live.swap (prev);
    if (count == 1)
      settle = t - 1;
  }
  if (settle >= base_) {
    for (int t = base_; t <= settle; t++) {
      float nccf, pitch;
      frame (t, &nccf, &pitch);
      settled_.push_back (nccf);
      settled_.push_back (pitch);
    }
    size_t drop = (size_t) (settle + 1 - base_) * S_;
    bp_.erase (bp_.begin (), bp_.begin () + drop);
    pov_.erase (pov_.begin (), pov_.begin () + drop);
    base_ = settle + 1;
  }
  held_after_prune_ = T - base_;
}

Status
OnlinePitch::finish ()
{
  if (finished_)
    return Status::Ok ();
  finished_ = true;
  AFET_RETURN_IF_ERROR (accept (nullptr, 0));
  int T = n_frames ();
  if (T < c_.recompute_frame && !c_.nccf_ballast_online && !recomputed_)
    recompute ();
  latency_ = 0;
  return Status::Ok ();
}

void
OnlinePitch::frame (int t, float *nccf, float *pitch) const
{
  if (t < base_) {
    *nccf = settled_[2 * t];
    *pitch = settled_[2 * t + 1];
    return;
  }
  int s = path_[t];
  *nccf = pov_[(size_t) (t - base_) * S_ + s];
  *pitch = (float) (1.0 / (double) lags_[s]);
}

/* ---- processing ---- */

void
process_pitch_rows (const ProcessPitchConfig &c, const float *raw, int T,
    int r0, int r1, const double *noise, float *out)
{
  const int dims = c.dims ();
  for (int r = r0; r < r1; r++) {
    int t = std::max (0, r - c.delay), k = 0;
    float *o = out + (size_t) (r - r0) * dims;
    double lp = std::log ((double) raw[2 * t + 1]);
    if (c.add_pov_feature)
      o[k++] = (float) (c.pov_scale * pitch_nccf_to_pov_feature (raw[2 * t]) +
          c.pov_offset);
    if (c.add_normalized_log_pitch) {
      int b = std::max (0, t - c.normalization_left_context),
          e = std::min (t + c.normalization_right_context + 1, T);
      double sw = 0.0, swl = 0.0;
      for (int f = b; f < e; f++) {
        double w = pitch_nccf_to_pov (raw[2 * f]);
        sw += w;
        swl += w * std::log ((double) raw[2 * f + 1]);
      }
      o[k++] = (float) ((lp - swl / sw) * c.pitch_scale);
    }
    if (c.add_delta_pitch) {
      int N = c.delta_window;
      double num = 0.0, den = 0.0;
      for (int j = 1; j <= N; j++) {
        int fp = std::min (t + j, T - 1), fm = std::max (t - j, 0);
        num += j * (std::log ((double) raw[2 * fp + 1]) -
            std::log ((double) raw[2 * fm + 1]));
        den += 2.0 * j * j;
      }
      o[k++] = (float) ((num / den + (noise ? noise[t] : 0.0)) *
          c.delta_pitch_scale);
    }
    if (c.add_raw_log_pitch)
      o[k++] = (float) lp;
  }
}

void
OnlinePitchProcess::init (const ProcessPitchConfig &c)
{
  c_ = c;
  reset ();
}

void
OnlinePitchProcess::reset ()
{
  /* the offline processing's generator, drawn in the same order */
  gen_.seed (c_.srand);
  nd_ = std::normal_distribution<double> (0.0, c_.delta_pitch_noise_stddev);
  noise_.clear ();
}

int
OnlinePitchProcess::rows_ready (const OnlinePitch &src) const
{
  int T = src.frames_ready ();
  if (T == 0)
    return 0;
  if (src.finished ())
    return T + c_.delay;
  return std::max (0, T - c_.normalization_right_context + c_.delay);
}

void
OnlinePitchProcess::rows (const OnlinePitch &src, int r0, int r1, float *out)
{
  int T = src.frames_ready ();
  if (r1 <= r0)
    return;
  /* the frames rows r0 .. r1 - 1 read: from the first row's frame less its
   * left context (normalisation or delta window) to the last ready frame;
   * counted from lo, which changes no window's clipping (lo is 0 or at
   * most a window's start) */
  int lo = std::max (0, std::max (0, r0 - c_.delay) -
      std::max (c_.normalization_left_context, c_.delta_window));
  std::vector<float> raw ((size_t) (T - lo) * 2);
  for (int t = lo; t < T; t++)
    src.frame (t, &raw[2 * (t - lo)], &raw[2 * (t - lo) + 1]);
  bool noisy = c_.delta_pitch_noise_stddev != 0.0f;
  while (noisy && (int) noise_.size () < T)
    noise_.push_back (nd_ (gen_));
  process_pitch_rows (c_, raw.data (), T - lo, r0 - lo, r1 - lo, noisy ?
      noise_.data () + lo : nullptr, out);
}

}  /* namespace afet */
