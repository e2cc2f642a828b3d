/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "status.h"

#include <vector>

/* Host-side design of the analysis: frame sizes, windows, filter banks and
 * DCT matrices. Everything here is computed once per configuration, in
 * double precision, and uploaded; the kernels only apply it. */

namespace afet {

enum class Window
{
  HAMMING = 0,
  HANN,
  POVEY,
  RECTANGULAR,
  BLACKMAN,
};

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

/* Checks a band [low, high] Hz (high 0: the Nyquist frequency) against a
 * rate; the message names low-freq or high-freq. */
Status check_band (double low, double high, int rate);

/* Window values w[0..W-1] (all windows use W - 1 in the denominator, as HTK
 * and Kaldi do). */
std::vector<float> make_window (Window w, int W);

/* HTK's mel scale, mel = 1127 ln(1 + f / 700), and its inverse. */
double mel (double hz);
double mel_to_hz (double m);

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

struct MelDesign
{
  int rate = 16000;
  int fft_size = 512;
  int num_filters = 23;
  double low_freq = 0.0;      /* Hz */
  double high_freq = 0.0;     /* Hz, 0 = Nyquist */
  bool htk_period_quirk = true;
};

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

}  /* namespace afet */
