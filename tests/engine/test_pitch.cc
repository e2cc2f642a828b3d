/* The pitch stage's Viterbi search (engine/temporal/pitch.h) against a
 * search of every lag on the host, for one work-item and for a work-group.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The device searches each lag's predecessor by blocks of lags with a bound
 * (kernels/pitch.cl; one work-item, a CPU device's, searches 16 lags at
 * once); this checks that it picks what a search of every lag picks (the
 * lowest index of the least float cost, Kaldi's arithmetic) on NCCFs made
 * to stress the bound: all equal (every cost ties), a few values (many
 * ties), random, smooth tracks that jump, the extremes -1 and 1, and
 * predecessors of the same cost on either side of a lag. The paths, and
 * every lag's predecessor at a frame (one off the path would not change
 * the path). */

#include "enginecheck.h"
#include "pitch.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using enginecheck::check;

/* the host's Viterbi: every predecessor of every lag, float, Kaldi's order
 * of operations */
static std::vector<int>
viterbi_every_lag (const afet::PitchConfig &c, const std::vector<float> &
    nccf, int T, std::vector<unsigned short> *bp_out = nullptr)
{
  std::vector<float> lags = afet::pitch_lags (c);
  int S = (int) lags.size ();
  volatile float factor = (float) std::pow (std::log (1.0 + c.delta_pitch),
      2.0) * c.penalty_factor;
  std::vector<float> prev (S, 0.0f), cur (S);
  std::vector<unsigned short> bp ((size_t) T * S);
  for (int t = 0; t < T; t++) {
    float lo = FLT_MAX;
    for (int i = 0; i < S; i++) {
      float best = FLT_MAX;
      int bj = 0;
      for (int j = 0; j < S; j++) {
        volatile float tr = (float) ((j - i) * (j - i)) * factor;
        float v = tr + prev[j];
        if (v < best) {
          best = v;
          bj = j;
        }
      }
      float n = nccf[(size_t) t * S + i];
      volatile float m = c.soft_min_f0 * n;
      volatile float w = m * lags[i];
      volatile float lc = (1.0f - n) + w;
      best += lc;
      cur[i] = best;
      bp[(size_t) t * S + i] = (unsigned short) bj;
      lo = std::min (lo, best);
    }
    for (int i = 0; i < S; i++)
      prev[i] = cur[i] - lo;
  }
  std::vector<int> path (T);
  int s = 0;
  for (int i = 1; i < S; i++)
    if (prev[i] < prev[s])
      s = i;
  for (int t = T - 1; t >= 0; t--) {
    path[t] = s;
    s = bp[(size_t) t * S + s];
  }
  if (bp_out)
    bp_out->swap (bp);
  return path;
}

/* T frames of S NCCFs of one kind */
static std::vector<float>
make_nccf (int kind, int T, int S, std::mt19937 & gen)
{
  std::vector<float> v ((size_t) T * S);
  std::uniform_real_distribution<float> u (-1.0f, 1.0f);
  int track = S / 2;
  for (int t = 0; t < T; t++) {
    if (kind == 3 && gen () % 40 == 0)
      track = (int) (gen () % S);       /* a jump */
    else if (kind == 3)
      track = std::max (0, std::min (S - 1, track + (int) (gen () % 5) - 2));
    for (int i = 0; i < S; i++) {
      float &x = v[(size_t) t * S + i];
      switch (kind) {
        case 0:                /* silence: every cost ties */
          x = 0.0f;
          break;
        case 1:                /* a few values: many ties */
          x = (float) (gen () % 3) * 0.25f;
          break;
        case 2:
          x = u (gen);
          break;
        case 3:                /* a voiced track with its octaves */
          x = 0.9f * std::exp (-0.02f * (i - track) * (i - track)) +
              0.5f * std::exp (-0.02f * (i - track / 2) * (i - track / 2)) +
              0.05f * u (gen);
          break;
        case 4:                /* the extremes */
          x = gen () % 2 ? 1.0f : -1.0f;
          break;
        default:               /* 5, 6, 7 */
          /* after the last frame, equal costs (0) on a few lags and
           * higher ones on the others: a lag midway between two of the
           * few has two predecessors of the same cost, the lower one
           * Kaldi's (its search keeps the first least cost) */
          x = t < T - 1 || gen () % (kind == 5 ? 3 : kind == 6 ? 16 : 40)
              == 0 ? 0.0f : -1.0f;
      }
    }
  }
  return v;
}

/* Every lag's predecessor at frame T - 1 of nccf (T frames), through the
 * path: a frame T where lag s's NCCF is so high that the path must end
 * there has path[T - 1] = the predecessor of s at frame T, which depends
 * only on the frames before (the same for every s), and path[t] the
 * predecessors before it. For each s (every step-th lag), the device's
 * path against the host's backpointers; the number of lags whose path
 * differs. */
static int
every_lag_predecessor (afet::PitchStage &stage, const afet::PitchConfig &c,
    const std::vector<float> &nccf, int T, int step, afet::Status *st)
{
  int S = stage.n_lags ();
  std::vector<float> forced (nccf);
  forced.resize ((size_t) (T + 1) * S, 0.0f);
  std::vector<unsigned short> bp;
  viterbi_every_lag (c, forced, T + 1, &bp);
  int wrong = 0;
  for (int s = 0; s < S && st->ok (); s += step) {
    forced[(size_t) T * S + s] = 1e4f;
    std::vector<int> got;
    *st = stage.viterbi_path (forced.data (), T + 1, &got);
    forced[(size_t) T * S + s] = 0.0f;
    int want = s;
    bool same = st->ok () && (int) got.size () == T + 1;
    for (int t = T; t >= 0 && same; t--) {
      same = got[t] == want;
      want = bp[(size_t) t * S + want];
    }
    wrong += !same;
  }
  return wrong;
}

int
main ()
{
  std::shared_ptr<afet::Device> device;
  afet::Status st = afet::acquire_device ("auto", &device);
  if (!st.ok ()) {
    std::printf ("no OpenCL device: %s\n", st.message ().c_str ());
    return 77;
  }
  const char *kinds[] = { "all zero", "three values", "random",
    "tracks with jumps", "-1 and 1", "equidistant ties (a lag in 3)",
    "equidistant ties (a lag in 16)", "equidistant ties (a lag in 40)"
  };
  afet::PitchConfig c;
  /* the lag grid is the same at any rate; the stage's tables are not.
   * A high transition penalty keeps the paths apart for longer: the
   * segments' runs take longer to agree */
  const struct { int rate; float penalty; } configs[] = {
    { 16000, 0.1f }, { 8000, 0.1f }, { 16000, 50.0f }
  };
  for (const auto &cf : configs) {
    c.samp_freq = (float) cf.rate;
    c.penalty_factor = cf.penalty;
    /* one work-item (a CPU device's default) and work-groups of 64 and
     * 512 (a GPU's): the search differs, the predecessors must not */
    for (size_t items : { (size_t) 1, (size_t) 64, (size_t) 512 })
    /* whole, and in segments of 7 and 50 frames (guessed, then run again
     * until they agree: pitch-batch.h) */
    for (int segment : { 0, 7, 50 }) {
      afet::PitchStage stage;
      stage.set_viterbi_work_items (items);
      stage.set_viterbi_segment (segment);
      std::string how = std::to_string (cf.rate) + " Hz, penalty " +
          std::to_string (cf.penalty) + ", " + std::to_string (items) +
          " work-items, " +
          (segment ? "segments of " + std::to_string (segment) + " frames" :
          std::string ("whole"));
      st = stage.init (device, c);
      check (st.ok (), "init, " + how + (st.ok () ? std::string () : ": " +
              st.message ()));
      if (!st.ok ())
        continue;
      int most_rounds = 0;
      int S = stage.n_lags ();
      std::mt19937 gen (20261128);
      for (int k = 0; k < 8; k++) {
        int T = 300;
        std::vector<float> nccf = make_nccf (k, T, S, gen);
        std::vector<int> got;
        st = stage.viterbi_path (nccf.data (), T, &got);
        std::vector<int> want = viterbi_every_lag (c, nccf, T);
        int same = 0;
        for (int t = 0; t < T && st.ok () && (int) got.size () == T; t++)
          same += got[t] == want[t];
        check (st.ok () && same == T, std::string (kinds[k]) + ", " + how +
            ": the lags of a search of every lag on " + std::to_string (same) +
            " of " + std::to_string (T) + " frames");
        most_rounds = std::max (most_rounds, stage.viterbi_rounds ());
      }
      /* short segments of random costs rarely agree at once: the rounds
       * after the first are exercised too */
      if (segment == 7)
        check (most_rounds >= 2, how + ": " + std::to_string (most_rounds) +
            " rounds at most (2 or more expected)");
      else if (segment == 0)
        check (most_rounds == 0, how + ": no rounds");
      /* every lag's predecessor (a wrong one off the path would not show
       * above): every lag with one work-item (a CPU device's search),
       * every 7th with a work-group; a few frames of each kind; whole
       * utterances (segments search the same way) */
      for (int k = 0; k < 8 && st.ok () && segment == 0; k++) {
        int T = 9;
        std::vector<float> nccf = make_nccf (k, T, S, gen);
        int wrong = every_lag_predecessor (stage, c, nccf, T,
            items == 1 ? 1 : 7, &st);
        check (st.ok () && wrong == 0, std::string (kinds[k]) + ", " +
            std::to_string (items) + " work-items: every lag's predecessor "
            "as a search of every lag's (" + std::to_string (wrong) +
            " lags differ)" + (st.ok () ? std::string () : ": " +
                st.message ()));
      }
    }
  }
  return enginecheck::finish ();
}
