/* Kaldi's compressed matrices (afetcompress.h): the compression of
 * copy-feats --compress=true and the decompression of CopyToMat, written
 * from the arithmetic of Kaldi's src/matrix/compressed-matrix.cc.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "afetcompress.h"
#include "afetfile-private.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace afetfile
{

namespace
{

/* static_cast<int> of a double as x86-64 computes it (cvttsd2si): NaN and
 * values out of int's range give INT_MIN, where C++ leaves it undefined.
 * Kaldi's rounding relies on it in pathological columns (a percentile
 * span of zero width divides by zero). */
inline int
trunc_int (double x)
{
  if (!(x > -2147483649.0 && x < 2147483648.0))
    return G_MININT32;
  return (int) x;
}

/* FloatToUint16 and FloatToUint8: where a value lies in the global range,
 * as a whole number of top steps; f * top is a float product, + 0.499 a
 * double sum */
inline int
to_steps (const CmHeader & h, float value, float top)
{
  float f = (value - h.min_value) / h.range;
  if (f > 1.0f)
    f = 1.0f;
  if (f < 0.0f)
    f = 0.0f;
  const float scaled = f * top;
  return trunc_int ((double) scaled + 0.499);
}

inline uint16_t
to_u16 (const CmHeader & h, float value)
{
  return (uint16_t) to_steps (h, value, 65535.0f);
}

inline uint8_t
to_u8 (const CmHeader & h, float value)
{
  return (uint8_t) to_steps (h, value, 255.0f);
}

/* Uint16ToFloat: min + (range * (float) (1/65535)) * v, all in float */
inline float
u16_to_float (const CmHeader & h, uint16_t v)
{
  const float step = h.range * 1.52590218966964e-05f;
  const float off = step * (float) v;
  return h.min_value + off;
}

/* FloatToChar: three spans, 0..64, 64..192, 192..255 */
inline uint8_t
float_to_char (float p0, float p25, float p75, float p100, float value)
{
  int ans;
  if (value < p25) {
    const float f = (value - p0) / (p25 - p0);
    const float s = f * 64.0f;
    ans = trunc_int ((double) s + 0.5);
    ans = std::min (std::max (ans, 0), 64);
  } else if (value < p75) {
    const float f = (value - p25) / (p75 - p25);
    const float s = f * 128.0f;
    ans = 64 + trunc_int ((double) s + 0.5);
    ans = std::min (std::max (ans, 64), 192);
  } else {
    const float f = (value - p75) / (p100 - p75);
    const float s = f * 63.0f;
    ans = 192 + trunc_int ((double) s + 0.5);
    ans = std::min (std::max (ans, 192), 255);
  }
  return (uint8_t) ans;
}

/* CharToFloat: the span's width times the step in float, the scale and
 * the sum in double, the result rounded to float */
inline float
char_to_float (float p0, float p25, float p75, float p100, uint8_t v)
{
  if (v <= 64) {
    const float w = (p25 - p0) * (float) v;
    return (float) ((double) p0 + (double) w * (1 / 64.0));
  } else if (v <= 192) {
    const float w = (p75 - p25) * (float) (v - 64);
    return (float) ((double) p25 + (double) w * (1 / 128.0));
  }
  const float w = (p100 - p75) * (float) (v - 192);
  return (float) ((double) p75 + (double) w * (1 / 63.0));
}

struct ColHeader
{
  uint16_t p0, p25, p75, p100;
};

/* ComputeColHeader: the order statistics at 0, n/4, 3n/4 and n-1 (Kaldi
 * finds them with nth_element; sorting finds the same values), kept at
 * least one step apart */
ColHeader
col_header (const CmHeader & h, std::vector<float> &s)
{
  const int32_t n = (int32_t) s.size ();
  std::sort (s.begin (), s.end ());
  ColHeader c;
  if (n >= 5) {
    const int32_t q = n / 4;
    c.p0 = std::min<uint16_t> (to_u16 (h, s[0]), 65532);
    c.p25 = std::min<uint16_t> (std::max<uint16_t> (to_u16 (h, s[q]),
            (uint16_t) (c.p0 + 1)), 65533);
    c.p75 = std::min<uint16_t> (std::max<uint16_t> (to_u16 (h, s[3 * q]),
            (uint16_t) (c.p25 + 1)), 65534);
    c.p100 = std::max<uint16_t> (to_u16 (h, s[n - 1]),
        (uint16_t) (c.p75 + 1));
    return c;
  }
  /* fewer than five rows: the sorted values themselves */
  c.p0 = std::min<uint16_t> (to_u16 (h, s[0]), 65532);
  c.p25 = n > 1 ? std::min<uint16_t> (std::max<uint16_t> (to_u16 (h, s[1]),
          (uint16_t) (c.p0 + 1)), 65533) : (uint16_t) (c.p0 + 1);
  c.p75 = n > 2 ? std::min<uint16_t> (std::max<uint16_t> (to_u16 (h, s[2]),
          (uint16_t) (c.p25 + 1)), 65534) : (uint16_t) (c.p25 + 1);
  c.p100 = n > 3 ? std::max<uint16_t> (to_u16 (h, s[3]),
      (uint16_t) (c.p75 + 1)) : (uint16_t) (c.p75 + 1);
  return c;
}

void
put_f32 (std::string * s, float v)
{
  uint32_t u;
  memcpy (&u, &v, 4);
  put_u32_le (s, u);
}

void
put_u16 (std::string * s, uint16_t v)
{
  s->push_back ((char) (v & 0xff));
  s->push_back ((char) (v >> 8));
}

float
get_f32 (const uint8_t * p)
{
  const uint32_t u = get_u32 (p, false);
  float v;
  memcpy (&v, &u, 4);
  return v;
}

}  /* namespace */

const char *
kaldi_compression_name (int method)
{
  static const char *const names[] = {
    "none", "kAutomaticMethod", "kSpeechFeature", "kTwoByteAuto",
    "kTwoByteSignedInteger", "kOneByteAuto", "kOneByteUnsignedInteger",
    "kOneByteZeroOne"
  };
  return method >= 0 && method <= kCompressMax ? names[method] : "unknown";
}

int64_t
kaldi_cm_data_bytes (int format, int64_t rows, int64_t cols)
{
  if (rows < 0 || cols < 0 || rows > G_MAXINT32 || cols > G_MAXINT32)
    return -1;
  int64_t bytes;
  if (format == kCmColHeaders)
    bytes = cols * (8 + rows);
  else if (format == kCmTwoByte)
    bytes = 2 * rows * cols;
  else
    bytes = rows * cols;
  /* Kaldi's DataSize() is an int32 that counts a 20-byte header (the
   * format field too) */
  if (bytes > (int64_t) G_MAXINT32 - 20)
    return -1;
  return bytes;
}

CmHeader
kaldi_cm_header (int format, const uint8_t * p)
{
  CmHeader h;
  h.format = format;
  h.min_value = get_f32 (p);
  h.range = get_f32 (p + 4);
  h.rows = (int32_t) get_u32 (p + 8, false);
  h.cols = (int32_t) get_u32 (p + 12, false);
  return h;
}

bool
kaldi_compress (const float *m, int32_t rows, int32_t cols, int method,
    std::string * out, std::string * why)
{
  if (method < kCompressAuto || method > kCompressMax) {
    *why = fmt ("compression method %d is not one of Kaldi's (1 to 7)",
        method);
    return false;
  }
  if (rows < 0 || cols < 0) {
    *why = fmt ("a %d x %d matrix", rows, cols);
    return false;
  }
  if (rows == 0 || cols == 0) {
    /* Kaldi keeps an empty matrix as no data and writes it as "CM" with a
     * header of zeros, whatever the method */
    out->append ("CM ");
    out->append (kCmHeaderBytes, '\0');
    return true;
  }
  if (method == kCompressAuto)
    method = rows > 8 ? kCompressSpeechFeature : kCompressTwoByteAuto;
  CmHeader h;
  h.format = method == kCompressSpeechFeature ? kCmColHeaders :
      method == kCompressTwoByteAuto || method == kCompressTwoByte ?
      kCmTwoByte : kCmOneByte;
  h.rows = rows;
  h.cols = cols;
  const int64_t bytes = kaldi_cm_data_bytes (h.format, rows, cols);
  if (bytes < 0) {
    *why = fmt ("a compressed %d x %d matrix is larger than Kaldi's 32-bit "
        "sizes can hold", rows, cols);
    return false;
  }
  const size_t n = (size_t) rows * cols;
  const bool auto_range = method == kCompressSpeechFeature ||
      method == kCompressTwoByteAuto || method == kCompressOneByteAuto;
  float lo = m[0], hi = m[0];
  for (size_t i = 0; i < n; i++) {
    const float v = m[i];
    if (std::isnan (v) || (auto_range && std::isinf (v))) {
      *why = fmt ("row %" G_GSIZE_FORMAT " column %" G_GSIZE_FORMAT " is %s, "
          "which %s", i / cols, i % cols, std::isnan (v) ? "NaN" :
          v > 0 ? "+Inf" : "-Inf", auto_range ? "Kaldi refuses to compress "
          "(the range comes from the matrix's minimum and maximum)" :
          "no compressed value stands for (Kaldi's result is undefined)");
      return false;
    }
    if (v < lo)
      lo = v;
    if (v > hi)
      hi = v;
  }
  if (auto_range) {
    /* a constant matrix gets a range anyway (1 + |min|, computed in
     * double as Kaldi does, then kept as float) */
    if (hi == lo)
      hi = (float) ((double) lo + (1.0 + std::fabs ((double) lo)));
    h.min_value = lo;
    h.range = hi - lo;
    if (!(h.range > 0.0f) || std::isinf (h.range)) {
      *why = fmt ("its values span %g to %g, a range float cannot hold",
          (double) lo, (double) hi);
      return false;
    }
  } else if (method == kCompressTwoByte) {
    h.min_value = -32768.0f;
    h.range = 65535.0f;
  } else if (method == kCompressOneByte) {
    h.min_value = 0.0f;
    h.range = 255.0f;
  } else {
    h.min_value = 0.0f;
    h.range = 1.0f;
  }

  std::string s;
  s.reserve (4 + kCmHeaderBytes + (size_t) bytes);
  s.append (h.format == kCmColHeaders ? "CM " : h.format == kCmTwoByte ?
      "CM2 " : "CM3 ");
  put_f32 (&s, h.min_value);
  put_f32 (&s, h.range);
  put_u32_le (&s, (uint32_t) rows);
  put_u32_le (&s, (uint32_t) cols);
  if (h.format == kCmColHeaders) {
    std::vector<ColHeader> heads (cols);
    std::vector<float> col (rows);
    for (int32_t c = 0; c < cols; c++) {
      for (int32_t r = 0; r < rows; r++)
        col[r] = m[(size_t) r * cols + c];
      heads[c] = col_header (h, col);
      put_u16 (&s, heads[c].p0);
      put_u16 (&s, heads[c].p25);
      put_u16 (&s, heads[c].p75);
      put_u16 (&s, heads[c].p100);
    }
    for (int32_t c = 0; c < cols; c++) {
      const float p0 = u16_to_float (h, heads[c].p0),
          p25 = u16_to_float (h, heads[c].p25),
          p75 = u16_to_float (h, heads[c].p75),
          p100 = u16_to_float (h, heads[c].p100);
      for (int32_t r = 0; r < rows; r++)
        s.push_back ((char) float_to_char (p0, p25, p75, p100,
                m[(size_t) r * cols + c]));
    }
  } else if (h.format == kCmTwoByte) {
    for (size_t i = 0; i < n; i++)
      put_u16 (&s, to_u16 (h, m[i]));
  } else {
    for (size_t i = 0; i < n; i++)
      s.push_back ((char) to_u8 (h, m[i]));
  }
  out->append (s);
  return true;
}

void
kaldi_cm_decode_rows (const CmHeader & h, const uint8_t * data, size_t n,
    float *out)
{
  const size_t vals = n * (size_t) h.cols;
  if (h.format == kCmTwoByte) {
    /* the step computed in double, kept as float; the sum in float */
    const float step = (float) ((double) h.range * (1.0 / 65535.0));
    for (size_t i = 0; i < vals; i++) {
      const float off = (float) get_u16 (data + 2 * i, false) * step;
      out[i] = h.min_value + off;
    }
  } else {
    const float step = (float) ((double) h.range * (1.0 / 255.0));
    for (size_t i = 0; i < vals; i++) {
      const float off = (float) data[i] * step;
      out[i] = h.min_value + off;
    }
  }
}

void
kaldi_cm_decode_columns (const CmHeader & h, const uint8_t * data,
    int32_t first, int32_t n, float *out)
{
  const uint8_t *bytes = data + 8 * (size_t) h.cols;
  for (int32_t c = 0; c < h.cols; c++) {
    const uint8_t *ch = data + 8 * (size_t) c;
    const float p0 = u16_to_float (h, get_u16 (ch, false)),
        p25 = u16_to_float (h, get_u16 (ch + 2, false)),
        p75 = u16_to_float (h, get_u16 (ch + 4, false)),
        p100 = u16_to_float (h, get_u16 (ch + 6, false));
    const uint8_t *col = bytes + (size_t) c * h.rows;
    for (int32_t r = 0; r < n; r++)
      out[(size_t) r * h.cols + c] = char_to_float (p0, p25, p75, p100,
          col[first + r]);
  }
}

}  /* namespace afetfile */
