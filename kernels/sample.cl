/* What every framing kernel does to a sample and to a frame's energy, in one
 * place (framing.cl, vframes.cl and gframes.cl #include it).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A sample (the host's 16-bit integer, or a float in 16-bit scale) is
 * multiplied by scale (1, or 1/32768 for samples in [-1, 1]); with
 * dither != 0 a Gaussian value of that standard deviation is added, drawn
 * from a counter-based generator keyed on (seed, the sample's position in
 * the run), so that it does not depend on how the run was cut into
 * batches. A frame's log energy is taken from its sum of squares e by
 * afet_log_energy.
 */

/* the host's samples: 16-bit integers (AFET_SAMPLES_S16), or floats in
 * 16-bit scale; the conversion of a short to float is exact */
#ifdef AFET_SAMPLES_S16
typedef short afet_sample;
#else
typedef float afet_sample;
#endif

#define AFET_ZERO_ENERGY (-1.0e10f)

/* SplitMix64's finaliser: a bijective mix of 64 bits. */
static ulong
afet_mix (ulong z)
{
  z += 0x9E3779B97F4A7C15UL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

/* A standard normal value for (seed, position): Box-Muller on two 24-bit
 * uniforms of one hash. */
static float
afet_gauss (ulong seed, long pos)
{
  ulong h = afet_mix (seed ^ afet_mix ((ulong) pos));
  float u1 = ((float) (uint) (h >> 40) + 1.0f) * (1.0f / 16777216.0f);
  float u2 = (float) (uint) ((h >> 8) & 0xFFFFFFUL) * (1.0f / 16777216.0f);
  return sqrt (-2.0f * log (u1)) * cos (6.283185307179586f * u2);
}

/* The dither of the sample at run position pos (dither != 0). */
static float
afet_dither (float dither, ulong seed, long pos)
{
  return dither * afet_gauss (seed, pos);
}

/* Sample i of a frame whose sample 0 is at run position pos0: x[i] * scale,
 * plus afet_dither when dither != 0. */
static float
afet_load (__global const afet_sample *x, uint i, float scale, float dither,
    ulong seed, long pos0)
{
  float s = (float) x[i] * scale;
  if (dither != 0.0f)
    s += afet_dither (dither, seed, pos0 + (long) i);
  return s;
}

/* Point i < W of a frame (afet_frame's steps, which every GPU framing
 * kernel takes): its sample less the frame's mean, pre-emphasised within
 * the frame (HTK's: the point before the first is the first itself) and
 * times its window value w; *acc gains the point's part of the energy sum,
 * the square of that value (energy_windowed) or of the sample. */
static inline float
afet_frame_value (float s_raw, float prev_raw, float w, float mean,
    float preemph, int energy_windowed, float *acc)
{
  const float s = s_raw - mean;
  const float prev = prev_raw - mean;
  const float v = (s - preemph * prev) * w;
  *acc += energy_windowed ? v * v : s * s;
  return v;
}

static inline float
afet_frame_point (__global const afet_sample *x, uint i, float w,
    float scale, float dither, ulong seed, long pos0, float mean,
    float preemph, int energy_windowed, float *acc)
{
  const float s = afet_load (x, i, scale, dither, seed, pos0);
  const float prev = i == 0 ? s : afet_load (x, i - 1, scale, dither, seed,
      pos0);
  return afet_frame_value (s, prev, w, mean, preemph, energy_windowed, acc);
}

/* The log energy of a frame whose sum of squares is e: energy_mode 0 (HTK)
 * ln(e), -1e10 for an all-zero frame; 1 (Kaldi) ln(max(e, FLT_EPSILON)),
 * 2 (lhotse) ln(e + 1e-15), then at least log_energy_floor. */
static float
afet_log_energy (float e, int energy_mode, float log_energy_floor)
{
  if (energy_mode == 0)
    return e > 0.0f ? log (e) : AFET_ZERO_ENERGY;
  return fmax (energy_mode == 1 ? log (fmax (e, FLT_EPSILON)) :
      log (e + 1e-15f), log_energy_floor);
}
