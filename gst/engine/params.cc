/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "params.h"

#include <cmath>
#include <string>

namespace afet {

int
frame_samples (double ms, int rate)
{
  double period = 1e7 / (double) rate;        /* 100 ns units */
  double v = (ms * 1e4) / period;
  /* HTK truncates; an exact integer such as 882 can land a hair below in
   * binary floating point, so allow for a relative 1e-9. */
  return (int) (v * (1.0 + 1e-9));
}

int
next_pow2 (int n)
{
  int p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

Status
check_fft_size (int W, int rate)
{
  if (W <= kMaxFftSize)
    return Status::Ok ();
  return Status (Status::BAD_CONFIG, "a frame of " + std::to_string (W) +
      " samples needs a " + std::to_string (next_pow2 (W)) + "-point FFT, "
      "above the " + std::to_string (kMaxFftSize) + " points afet computes: "
      "lower frame-length to at most " + std::to_string ((int) ((double)
          kMaxFftSize * 1000.0 / rate)) + " ms at " + std::to_string (rate) +
      " Hz");
}

Status
check_band (double low, double high, int rate)
{
  const double nyquist = rate / 2.0;
  if (low < 0 || high < 0)
    return Status (Status::BAD_CONFIG, "low-freq and high-freq must be >= 0");
  if (high > nyquist + 1e-9)
    return Status (Status::BAD_CONFIG, "high-freq " +
        std::to_string ((int) high) + " Hz is above the Nyquist frequency " +
        std::to_string ((int) nyquist) + " Hz of the input");
  if (low >= (high > 0 ? high : nyquist))
    return Status (Status::BAD_CONFIG, "low-freq must be below high-freq "
        "(or the Nyquist frequency)");
  return Status::Ok ();
}

std::vector<float>
make_window (Window w, int W)
{
  std::vector<float> out (W);
  double den = W > 1 ? (double) (W - 1) : 1.0;
  for (int i = 0; i < W; i++) {
    double a = 2.0 * M_PI * i / den;
    double v = 1.0;
    switch (w) {
      case Window::HAMMING:
        v = 0.54 - 0.46 * std::cos (a);
        break;
      case Window::HANN:
        v = 0.5 - 0.5 * std::cos (a);
        break;
      case Window::POVEY:
        v = std::pow (0.5 - 0.5 * std::cos (a), 0.85);
        break;
      case Window::RECTANGULAR:
        v = 1.0;
        break;
      case Window::BLACKMAN:
        v = 0.42 - 0.5 * std::cos (a) + 0.08 * std::cos (2.0 * a);
        break;
    }
    out[i] = (float) v;
  }
  return out;
}

void
FilterBank::reset (int M, int N)
{
  num_filters = M;
  fft_size = N;
  first.assign (M, 0);
  count.assign (M, 0);
  offset.assign (M, 0);
  centre_hz.assign (M, 0.0);
  weights.clear ();
  max_count = 0;
}

Status
FilterBank::set_channel (int c, double centre, int first_bin,
    const std::vector<float> &w, const char *kind)
{
  if (w.empty ())
    return Status (Status::BAD_CONFIG, std::string (kind) + " filter " +
        std::to_string (c + 1) + " of " + std::to_string (num_filters) +
        " covers no FFT bin: use fewer filters, a longer frame or a wider "
        "frequency range");
  centre_hz[c] = centre;
  first[c] = first_bin;
  count[c] = (int) w.size ();
  offset[c] = (int) weights.size ();
  weights.insert (weights.end (), w.begin (), w.end ());
  if (count[c] > max_count)
    max_count = count[c];
  return Status::Ok ();
}

double
mel (double hz)
{
  return 1127.0 * std::log (1.0 + hz / 700.0);
}

double
mel_to_hz (double m)
{
  return 700.0 * (std::exp (m / 1127.0) - 1.0);
}

double
design_rate (int rate, bool htk_period_quirk)
{
  double period = 1e7 / (double) rate;        /* 100 ns units */
  if (htk_period_quirk)
    period = (double) (long) period;
  return 1e7 / period;
}

double
htk_lifter (int j, int L)
{
  return L > 0 ? 1.0 + (L / 2.0) * std::sin (M_PI * j / L) : 1.0;
}

Status
design_htk_melbank (const MelDesign &d, FilterBank *out)
{
  const int N = d.fft_size;
  const int half = N / 2;
  const int M = d.num_filters;
  const double fs = design_rate (d.rate, d.htk_period_quirk);

  if (M < 1)
    return Status (Status::BAD_CONFIG, "num-filters must be at least 1");
  AFET_RETURN_IF_ERROR (check_band (d.low_freq, d.high_freq, d.rate));
  double hi = d.high_freq > 0 ? d.high_freq : 0.0;

  /* Bins in HTK's 1-based numbering: bin k is at (k - 1) fs / N Hz. */
  auto bin_mel = [&](int k) { return mel ((k - 1) * fs / N); };
  int klo = 2, khi = half;
  double mlo = 0.0, mhi = bin_mel (half + 1);
  if (d.low_freq > 0) {
    mlo = mel (d.low_freq);
    klo = (int) (d.low_freq * N / fs + 2.5);
    if (klo < 2)
      klo = 2;
  }
  if (hi > 0) {
    mhi = mel (hi);
    khi = (int) (hi * N / fs + 0.5);
    if (khi > half)
      khi = half;
  }
  if (mlo >= mhi)
    return Status (Status::BAD_CONFIG, "empty frequency range");

  /* Channel centres cf[0] = mlo .. cf[M + 1] = mhi. */
  std::vector<double> cf (M + 2);
  cf[0] = mlo;
  for (int c = 1; c <= M + 1; c++)
    cf[c] = (double) c / (double) (M + 1) * (mhi - mlo) + mlo;

  /* For each bin: its lower channel and the weight it gives that channel. */
  std::vector<std::vector<std::pair<int, double>>> taps (M + 1);
  for (int k = klo; k <= khi; k++) {
    double m = bin_mel (k);
    int c = 1;
    while (c <= M + 1 && cf[c] < m)
      c++;
    int lo = c - 1;          /* cf[lo] < m <= cf[lo + 1] */
    if (lo > M)
      continue;              /* beyond the last centre: contributes nothing */
    double w = (cf[lo + 1] - m) / (cf[lo + 1] - cf[lo]);
    /* 0-based FFT bin index k - 1 */
    if (lo >= 1)
      taps[lo].push_back ({ k - 1, w });
    if (lo + 1 <= M)
      taps[lo + 1].push_back ({ k - 1, 1.0 - w });
  }

  out->reset (M, N);
  for (int c = 1; c <= M; c++) {
    const auto &t = taps[c];
    /* bins of one channel are contiguous: fill densely */
    int first = t.empty () ? 0 : t.front ().first;
    std::vector<float> dense (t.empty () ? 0 : t.back ().first - first + 1,
        0.0f);
    for (auto &p : t)
      dense[p.first - first] = (float) p.second;
    AFET_RETURN_IF_ERROR (out->set_channel (c - 1, mel_to_hz (cf[c]), first,
            dense, "mel"));
  }
  return Status::Ok ();
}

std::vector<float>
make_htk_dct (int M, int num_ceps, int lifter, bool with_c0)
{
  int rows = num_ceps + (with_c0 ? 1 : 0);
  std::vector<float> D ((size_t) rows * M);
  double norm = std::sqrt (2.0 / M);
  for (int j = 1; j <= num_ceps; j++) {
    double lift = htk_lifter (j, lifter);
    for (int k = 1; k <= M; k++)
      D[(size_t) (j - 1) * M + (k - 1)] =
          (float) (norm * lift * std::cos (M_PI * j * (k - 0.5) / M));
  }
  if (with_c0)
    for (int k = 0; k < M; k++)
      D[(size_t) num_ceps * M + k] = (float) norm;
  return D;
}

}  /* namespace afet */
