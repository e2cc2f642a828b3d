/* Host-side design of the analysis (params.h): frame sizes, edges, windows,
 * mel scales, filter banks and DCT matrices, in double precision.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "params.h"

#include <algorithm>
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

double
band_high (double high, int rate)
{
  return high > 0 ? high : rate / 2.0 + high;
}

Status
check_band (double low, double high, int rate)
{
  const double nyquist = rate / 2.0;
  if (low < 0)
    return Status (Status::BAD_CONFIG, "low-freq must be >= 0");
  if (high > nyquist + 1e-9)
    return Status (Status::BAD_CONFIG, "high-freq " +
        std::to_string ((int) high) + " Hz is above the Nyquist frequency " +
        std::to_string ((int) nyquist) + " Hz of the input");
  if (low >= band_high (high, rate))
    return Status (Status::BAD_CONFIG, "low-freq (" + std::to_string ((int)
            low) + " Hz) must be below high-freq (" + std::to_string ((int)
            band_high (high, rate)) + " Hz at " + std::to_string (rate) +
        " Hz; high-freq <= 0 counts down from the Nyquist frequency)");
  return Status::Ok ();
}

int
edge_lead (Edges e, int W, int S)
{
  switch (e) {
    case Edges::MIRROR:
      return W / 2 - S / 2;
    case Edges::MIRROR_LHOTSE:
      return (W - S) / 2;
    case Edges::REFLECT:
      return W / 2;
    default:
      return 0;
  }
}

long long
edge_frames (Edges e, long long n, int W, int S)
{
  switch (e) {
    case Edges::MIRROR:
    case Edges::MIRROR_LHOTSE:
      return n > 0 ? (n + S / 2) / S : 0;
    case Edges::REFLECT:
      return n / S;
    default:
      return num_frames (n, W, S);
  }
}

long long
edge_source (Edges e, long long i, long long n)
{
  if (n <= 1)
    return 0;
  /* the reflection of either kind repeats every 2 n (mirror) or 2 n - 2
   * (reflect) samples */
  const long long period = e == Edges::REFLECT ? 2 * n - 2 : 2 * n;
  i %= period;
  if (i < 0)
    i += period;
  if (i < n)
    return i;
  return e == Edges::REFLECT ? period - i : period - 1 - i;
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
      case Window::HANN_PERIODIC:
        v = 0.5 - 0.5 * std::cos (2.0 * M_PI * i / W);
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
slaney_mel (double hz)
{
  const double f_sp = 200.0 / 3.0;
  if (hz < 1000.0)
    return hz / f_sp;
  return 1000.0 / f_sp + std::log (hz / 1000.0) / (std::log (6.4) / 27.0);
}

double
slaney_mel_to_hz (double m)
{
  const double f_sp = 200.0 / 3.0;
  const double m_break = 1000.0 / f_sp;
  if (m < m_break)
    return m * f_sp;
  return 1000.0 * std::exp ((std::log (6.4) / 27.0) * (m - m_break));
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
  /* 0: HTK's default, the top bin; below 0: counted from the Nyquist */
  double hi = d.high_freq != 0 ? band_high (d.high_freq, d.rate) : 0.0;

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

  /* Channel centres cf[0] = mlo .. cf[M + 1] = mhi; with WARPFREQ the
   * centres (not the lower edge) move by htk_warp_freq in Hz. */
  std::vector<double> cf (M + 2);
  cf[0] = mlo;
  const double flo = mel_to_hz (mlo), fhi = mel_to_hz (mhi);
  if (d.warp != 1.0) {
    const double s = 1.0 / d.warp, wl = d.warp_low,
        wh = band_high (d.warp_high, d.rate);
    const double cl = 2.0 * wl / (1.0 + s), cu = 2.0 * wh / (1.0 + s);
    if (!(d.warp > 0 && flo < cl && cl < cu && cu < fhi && s * cu < fhi &&
            s * cl > flo))
      return Status (Status::BAD_CONFIG, "HTK's frequency warping (warp-"
          "factor " + std::to_string (d.warp) + ") needs its cut-offs well "
          "inside the band: low-freq < 2 warp-low / (1 + 1/warp) < 2 "
          "warp-high / (1 + 1/warp) < high-freq, and the middle piece's "
          "ends, those over warp, inside it too (here warp-low " +
          std::to_string ((int) wl) + " Hz, warp-high " +
          std::to_string ((int) wh) + " Hz, band " + std::to_string ((int)
              flo) + ".." + std::to_string ((int) fhi) + " Hz)");
  }
  for (int c = 1; c <= M + 1; c++) {
    cf[c] = (double) c / (double) (M + 1) * (mhi - mlo) + mlo;
    if (d.warp != 1.0)
      cf[c] = mel (htk_warp_freq (d.warp_low, band_high (d.warp_high,
                  d.rate), flo, fhi, d.warp, mel_to_hz (cf[c])));
  }

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

/* Fills channel c of a bank from its weights over bins 0 .. nbins - 1,
 * keeping the span of the non-zero ones. */
static Status
set_dense_channel (FilterBank *out, int c, double centre,
    const std::vector<double> &w, const char *kind)
{
  int a = 0, b = (int) w.size () - 1;
  while (a <= b && w[a] == 0.0)
    a++;
  while (b >= a && w[b] == 0.0)
    b--;
  std::vector<float> span;
  for (int k = a; k <= b; k++)
    span.push_back ((float) w[k]);
  return out->set_channel (c, centre, a, span, kind);
}

double
htk_warp_freq (double cut_low, double cut_high, double low, double high,
    double warp, double f)
{
  const double s = 1.0 / warp;
  const double cl = 2.0 * cut_low / (1.0 + s), cu = 2.0 * cut_high / (1.0 + s);
  if (f > cu)
    return s * cu + (high - s * cu) / (high - cu) * (f - cu);
  if (f < cl)
    return low + (s * cl - low) / (cl - low) * (f - low);
  return s * f;
}

double
vtln_warp_freq (double warp_low, double warp_high, double low, double high,
    double warp, double f)
{
  if (f < low || f > high)
    return f;
  const double l = warp_low * std::max (1.0, warp);
  const double h = warp_high * std::min (1.0, warp);
  const double scale = 1.0 / warp;
  if (f < l)
    return low + (scale * l - low) / (l - low) * (f - low);
  if (f < h)
    return scale * f;
  return high + (high - scale * h) / (high - h) * (f - high);
}

/* Kaldi's MelBanks (see MelLayout::KALDI). */
static Status
design_kaldi_melbank (const MelDesign &d, FilterBank *out)
{
  const int N = d.fft_size, M = d.num_filters;
  const double fs = d.rate;
  const double low = d.low_freq, high = band_high (d.high_freq, d.rate);
  const double mlo = mel (low), mhi = mel (high);
  const double step = (mhi - mlo) / (M + 1);
  const double wlo = d.warp_low, whi = band_high (d.warp_high, d.rate);
  if (d.warp != 1.0 && !(d.warp > 0 && wlo > low && whi < high && wlo < whi))
    return Status (Status::BAD_CONFIG, "VTLN needs warp-factor > 0 and "
        "low-freq < warp-low < warp-high < high-freq (here " +
        std::to_string ((int) low) + " < " + std::to_string ((int) wlo) +
        " < " + std::to_string ((int) whi) + " < " + std::to_string ((int)
            high) + " Hz)");
  auto warped = [&](double m) {
    return d.warp == 1.0 ? m : mel (vtln_warp_freq (wlo, whi, low, high,
            d.warp, mel_to_hz (m)));
  };
  out->reset (M, N);
  for (int c = 0; c < M; c++) {
    const double left = warped (mlo + c * step),
        centre = warped (mlo + (c + 1) * step),
        right = warped (mlo + (c + 2) * step);
    std::vector<double> w (N / 2, 0.0);
    for (int k = 0; k < N / 2; k++) {
      double m = mel (k * fs / N);
      if (m > left && m < right)
        w[k] = m <= centre ? (m - left) / (centre - left) :
            (right - m) / (right - centre);
    }
    AFET_RETURN_IF_ERROR (set_dense_channel (out, c, mel_to_hz (centre), w,
            "mel"));
  }
  return Status::Ok ();
}

/* librosa's slaney-normalised bank (see MelLayout::SLANEY). */
static Status
design_slaney_melbank (const MelDesign &d, FilterBank *out)
{
  const int N = d.fft_size, M = d.num_filters;
  const double fs = d.rate;
  const double mlo = slaney_mel (d.low_freq),
      mhi = slaney_mel (band_high (d.high_freq, d.rate));
  std::vector<double> f (M + 2);
  for (int i = 0; i < M + 2; i++)
    f[i] = slaney_mel_to_hz (mlo + (mhi - mlo) * i / (M + 1));
  out->reset (M, N);
  for (int c = 0; c < M; c++) {
    const double area = 2.0 / (f[c + 2] - f[c]);
    std::vector<double> w (N / 2 + 1, 0.0);
    for (int k = 0; k <= N / 2; k++) {
      double hz = k * fs / N;
      double rise = (hz - f[c]) / (f[c + 1] - f[c]);
      double fall = (f[c + 2] - hz) / (f[c + 2] - f[c + 1]);
      w[k] = std::max (0.0, std::min (rise, fall)) * area;
    }
    AFET_RETURN_IF_ERROR (set_dense_channel (out, c, f[c + 1], w, "mel"));
  }
  return Status::Ok ();
}

Status
design_melbank (const MelDesign &d, FilterBank *out)
{
  if (d.num_filters < 1)
    return Status (Status::BAD_CONFIG, "num-filters must be at least 1");
  AFET_RETURN_IF_ERROR (check_band (d.low_freq, d.high_freq, d.rate));
  switch (d.layout) {
    case MelLayout::KALDI:
      return design_kaldi_melbank (d, out);
    case MelLayout::SLANEY:
      return design_slaney_melbank (d, out);
    default:
      return design_htk_melbank (d, out);
  }
}

std::vector<float>
make_kaldi_dct (int M, int num_ceps, int lifter, bool with_c0)
{
  std::vector<float> htk = make_htk_dct (M, num_ceps, lifter, false);
  std::vector<float> D;
  if (with_c0)
    D.assign (M, (float) std::sqrt (1.0 / M));
  D.insert (D.end (), htk.begin (), htk.end ());
  return D;
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
