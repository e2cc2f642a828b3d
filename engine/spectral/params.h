/* Host-side design of the analysis: frame sizes, windows, filter banks and
 * DCT matrices.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "status.h"

#include <vector>

/* Everything here is computed once per configuration, in
 * double precision, and uploaded; the kernels only apply it. */

namespace afet {

enum class Window
{
  HAMMING = 0,
  HANN,
  POVEY,
  RECTANGULAR,
  BLACKMAN,
  HANN_PERIODIC,        /* 0.5 - 0.5 cos (2 pi i / W): torch's, Whisper's */
};

/* Where frames lie at the edges of a run of audio.
 * SNIP: frame t covers samples t S .. t S + W - 1 and only whole frames are
 *   computed: (N - W) / S + 1 frames (HTK; Kaldi's snip-edges=true).
 * MIRROR: frame t starts at t S + S/2 - W/2; samples outside [0, N) are
 *   mirrored including the edge sample (-1 -> 0, N -> N - 1, repeatedly for
 *   short runs); (N + S/2) / S frames (Kaldi's snip-edges=false).
 * MIRROR_LHOTSE: the same, frame t starting at t S - (W - S) / 2 (lhotse's
 *   own extractors; one sample later than Kaldi's when W is even and S
 *   odd, as 1102 / 441 at 44.1 kHz).
 * REFLECT: frame t is centred on sample t S (starts at t S - W/2); samples
 *   outside [0, N) are reflected without the edge sample (-1 -> 1, N ->
 *   N - 2); N / S frames (torch's center=True with the last frame dropped,
 *   as Whisper does). */
enum class Edges
{
  SNIP = 0,
  MIRROR,
  REFLECT,
  MIRROR_LHOTSE,
};

/* Samples before sample 0 that frame 0 starts at, for the edge mode. */
int edge_lead (Edges e, int W, int S);

/* Frames of a run of n samples in the edge mode. */
long long edge_frames (Edges e, long long n, int W, int S);

/* The source index of sample i (any integer) of a run of n >= 1 samples:
 * i itself inside [0, n), else mirrored or reflected back into it. */
long long edge_source (Edges e, long long i, long long n);

/* W and S in samples, as HTK derives them: the sample period is held in
 * 100 ns units as a double (1e7 / rate) and the window and shift (ms) are
 * divided by it and truncated. 20 ms at 44.1 kHz is 882 samples. */
int frame_samples (double ms, int rate);

/* Number of complete frames of W samples every S in n samples (HTK: the
 * incomplete tail is dropped, the first frame starts at sample 0). */
inline long long
num_frames (long long n, int W, int S)
{
  return n < W ? 0 : (n - W) / S + 1;
}

/* Smallest power of two >= n. */
int next_pow2 (int n);

/* The largest FFT afet computes (frames of up to this many samples): VkFFT
 * plans of 131072 points and more crash on PoCL. */
constexpr int kMaxFftSize = 65536;

/* Checks that frames of W samples at rate Hz fit kMaxFftSize; the message
 * names the frame-length that does. */
Status check_fft_size (int W, int rate);

/* The most filters of a bank (the kernels' local arrays, given to them as
 * AFET_MAX_FILTERS). */
constexpr int kMaxFilters = 256;

/* Checks a band [low, high] Hz (high <= 0: that far below the Nyquist
 * frequency) against a rate; the message names low-freq or high-freq. */
Status check_band (double low, double high, int rate);

/* Window values w[0..W-1] (all windows use W - 1 in the denominator, as HTK
 * and Kaldi do). */
std::vector<float> make_window (Window w, int W);

/* HTK's (and Kaldi's) mel scale, mel = 1127 ln(1 + f / 700), and its
 * inverse. */
double mel (double hz);
double mel_to_hz (double m);

/* Slaney's mel scale (the Auditory Toolbox's, librosa's default): linear
 * below 1 kHz (3 mels per 200 Hz), logarithmic above (27 / ln 6.4 mels per
 * natural-log unit of f / 1000 Hz), and its inverse. */
double slaney_mel (double hz);
double slaney_mel_to_hz (double m);

/* The sample rate a filter bank is designed for. HTK holds the sample
 * period in 100 ns units and, where it designs the bank, truncates it to a
 * whole number (the quirk: 44.1 kHz becomes 1e7 / 226 = 44247.8 Hz, 32 kHz
 * 1e7 / 312 and 48 kHz 1e7 / 208; 8 and 16 kHz are unchanged). */
double design_rate (int rate, bool htk_period_quirk);

/* HTK's sinusoidal cepstral lifter for c_j, 1 + L/2 sin(pi j / L); 1 when
 * L = 0. */
double htk_lifter (int j, int L);

/* Sparse filter bank: filter c covers FFT bins [first[c], first[c] +
 * count[c]) with weights weights[offset[c] + i]; centre_hz[c] is its centre
 * frequency at the design rate. */
struct FilterBank
{
  int num_filters = 0;
  int fft_size = 0;
  std::vector<int> first, count, offset;
  std::vector<float> weights;
  std::vector<double> centre_hz;
  int max_count = 0;

  /* An empty bank of M channels for an N-point FFT. */
  void reset (int M, int N);
  /* Channel c (0-based) centred at centre_hz covers the 0-based bins
   * first .. first + w.size () - 1 with weights w; an empty w is refused
   * (the message names what to change). kind names the bank in it. */
  Status set_channel (int c, double centre, int first,
      const std::vector<float> &w, const char *kind);
};

/* How a mel filter bank is laid out.
 * HTK: see design_htk_melbank.
 * KALDI: Kaldi's MelBanks: M + 1 equal mel intervals over [mel(low),
 *   mel(high)]; bin k = 0 .. N/2 - 1 at k fs / N Hz weighs (m - left) /
 *   (centre - left) or (right - m) / (right - centre) where left < m <
 *   right, in mels; the Nyquist bin is not used.
 * SLANEY: librosa's filters.mel (htk=False, norm="slaney"): M + 2 points
 *   equally spaced on Slaney's mel scale over [low, high]; triangles linear
 *   in Hz over the bins k = 0 .. N/2 at k fs / N Hz, each scaled by 2 /
 *   (right - left) Hz (equal area). */
enum class MelLayout
{
  HTK = 0,
  KALDI,
  SLANEY,
};

struct MelDesign
{
  int rate = 16000;
  int fft_size = 512;
  int num_filters = 23;
  double low_freq = 0.0;      /* Hz */
  double high_freq = 0.0;     /* Hz; <= 0: that far below the Nyquist */
  bool htk_period_quirk = true;
  MelLayout layout = MelLayout::HTK;
  /* Vocal tract length normalisation; 1 = none. KALDI layout: the bank's
   * edges and centres are warped by vtln_warp_freq (Kaldi's vtln-warp,
   * vtln-low, vtln-high); HTK layout: its centres by htk_warp_freq
   * (HCopy's WARPFREQ, WARPLCUTOFF, WARPUCUTOFF). Not for SLANEY. */
  double warp = 1.0;
  double warp_low = 100.0;      /* Hz */
  double warp_high = -500.0;    /* Hz; <= 0: that far below the Nyquist */
};

/* HTK's warping of a frequency f (Hz) for VTLN: with s = 1 / warp and the
 * break points cl = 2 cut_low / (1 + s), cu = 2 cut_high / (1 + s), s f
 * between them and straight lines from (low, low) to (cl, s cl) and from
 * (cu, s cu) to (high, high), [low, high] being the bank's band. */
double htk_warp_freq (double cut_low, double cut_high, double low,
    double high, double warp, double f);

/* Kaldi's VTLN warping of a frequency: identity outside [low, high] (the
 * bank's edges); with l = warp_low max(1, warp) and h = warp_high
 * min(1, warp), f / warp between l and h, and straight lines from (low,
 * low) to l and from h to (high, high). */
double vtln_warp_freq (double warp_low, double warp_high, double low,
    double high, double warp, double f);

/* The upper edge in Hz of a band given as high (<= 0: an offset below the
 * Nyquist frequency, as Kaldi's high-freq). */
double band_high (double high, int rate);

/* The filter bank of the design's layout. */
Status design_melbank (const MelDesign &d, FilterBank *out);

/* HTK's mel filter bank: NUMCHANS + 1 equal mel intervals over [mel(low),
 * mel(high)], peak-1 triangles, each FFT bin 1 .. N/2 - 1 split between its
 * two neighbouring channels, designed at design_rate (rate, quirk). */
Status design_htk_melbank (const MelDesign &d, FilterBank *out);

/* DCT-II matrix for HTK cepstra, row-major (rows x M): rows 0..num_ceps-1
 * are c1..cN, sqrt(2/M) cos(pi j (k - 0.5) / M), multiplied by the lifter
 * 1 + L/2 sin(pi j / L) when L > 0; if with_c0 a last row sqrt(2/M)
 * (c0, not liftered). */
std::vector<float> make_htk_dct (int num_filters, int num_ceps, int lifter,
    bool with_c0);

/* The same rows in Kaldi's order and scale: c0 first, sqrt(1/M) (Kaldi's
 * orthonormal DCT; its lifter weight is 1), then c1..cN as above. */
std::vector<float> make_kaldi_dct (int num_filters, int num_ceps, int lifter,
    bool with_c0);

}  /* namespace afet */
