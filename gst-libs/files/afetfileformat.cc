/* Feature file formats: HTK parameter kinds and headers, NumPy headers,
 * Kaldi archive entries (binary and text) as the writers make them
 * (afetfileformat.h says what each layout is; the reader is in
 * afetfilereader.cc).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the formats' published descriptions; nothing here depends on
 * a GStreamer element.
 */

#include "afetfileformat.h"
#include "afetfile-private.h"

#include <cmath>
#include <cstring>

#if defined (__SSE2__)
#include <emmintrin.h>
#elif defined (__ARM_NEON)
#include <arm_neon.h>
#endif

namespace afetfile
{

std::string
htk_kind_name (uint16_t kind)
{
  /* the caps library holds HTK's names, with the names of a stream's
   * layout (afet_features_info_htk_name) that share its qualifier table */
  gchar *name = afet_features_htk_kind_name (kind);
  std::string s (name);
  g_free (name);
  return s;
}

bool
htk_kind_for (const AfetFeaturesInfo & info, uint16_t * kind,
    int32_t * period, std::string * why)
{
  uint16_t k;
  switch (info.kind) {
    case AFET_FEATURES_KIND_MFCC:
      k = kHtkMfcc;
      break;
    case AFET_FEATURES_KIND_FBANK:
      k = kHtkFbank;
      break;
    case AFET_FEATURES_KIND_PLP:
      k = kHtkPlp;
      break;
    default:                   /* frames, traps, user */
      k = kHtkUser;
      break;
  }
  const int s = info.statics;
  if (info.dims > kHtkMaxDims) {
    *why = fmt ("HTK files hold at most %d values per frame (a 16-bit byte "
        "count); this stream has %d: use format=npy or kaldi", kHtkMaxDims,
        info.dims);
    return false;
  }
  if (info.energy_index >= 0) {
    if (info.energy_index != s - 1) {
      *why = fmt ("HTK's _E means the log energy is the last static column "
          "(%d); this stream has it in column %d (Kaldi's order: set "
          "htk-compat=true where it is made)", s - 1, info.energy_index);
      return false;
    }
    k |= kHtkE;
  }
  if (info.c0_index >= 0) {
    const int want = s - 1 - (info.energy_index >= 0 ? 1 : 0);
    if (info.c0_index != want) {
      *why = fmt ("HTK's _0 means c0 follows the other cepstra (column %d); "
          "this stream has it in column %d (Kaldi's order: set "
          "htk-compat=true where it is made)", want, info.c0_index);
      return false;
    }
    k |= kHtk0;
  }
  static const uint16_t dyn[] = { 0, kHtkD, kHtkD | kHtkA,
    kHtkD | kHtkA | kHtkT
  };
  if (info.delta_order < 0 || info.delta_order > 3) {
    *why = fmt ("delta-order %d has no HTK qualifier", info.delta_order);
    return false;
  }
  k |= dyn[info.delta_order];
  if (info.normalization != AFET_FEATURES_NORM_NONE) {
    const bool htk_columns =
        info.norm_columns == AFET_FEATURES_NORM_COLUMNS_HTK ||
        (info.norm_columns == AFET_FEATURES_NORM_COLUMNS_STATICS &&
        info.energy_index < 0);
    if (info.normalization != AFET_FEATURES_NORM_MEAN || !htk_columns) {
      *why = fmt ("HTK's only normalisation qualifier, _Z, means the mean "
          "removed from the static columns except the log energy "
          "(afetcmvn mode=mean columns=htk); this stream is normalised "
          "'%s' over '%s' columns, which an HTK header cannot say: use "
          "format=npy, kaldi or raw",
          afet_features_norm_to_string (info.normalization),
          afet_features_norm_columns_to_string (info.norm_columns));
      return false;
    }
    k |= kHtkZ;
  }
  /* the frame shift in 100 ns units; HTK keeps it as an integer */
  const double p = (double) info.frame_shift * 1e7 / info.rate;
  if (!(p >= 1.0) || p >= (double) G_MAXINT32 + 0.5) {
    *why = fmt ("a frame shift of %d samples at %d Hz is not a valid HTK "
        "sample period", info.frame_shift, info.rate);
    return false;
  }
  *kind = k;
  *period = (int32_t) std::lround (p);
  return true;
}

bool
htk_period_samples (int32_t period, int rate, int *shift)
{
  if (period <= 0 || rate <= 0)
    return false;
  const double samples = (double) period * rate / 1e7;
  const double n = std::floor (samples + 0.5);
  if (n < 1.0 || n > (double) G_MAXINT32)
    return false;
  /* compared in 100 ns units, HTK's resolution: adjacent whole shifts are
   * 1e7 / rate units apart, more than two below 5 MHz, so at most one fits */
  if (std::fabs (n * 1e7 / rate - (double) period) >= 1.0)
    return false;
  *shift = (int) n;
  return true;
}

std::string
htk_header (uint32_t frames, int32_t period, int dims, uint16_t kind)
{
  std::string h;
  put_u32_be (&h, frames);
  put_u32_be (&h, (uint32_t) period);
  const uint16_t size = (uint16_t) (dims * 4);
  h.push_back ((char) (size >> 8));
  h.push_back ((char) size);
  h.push_back ((char) (kind >> 8));
  h.push_back ((char) kind);
  return h;
}

std::string
npy_header (uint64_t frames, int dims)
{
  /* the frame count in a fixed-width field: the header keeps its length
   * when the count is rewritten at the end */
  std::string dict = fmt ("{'descr': '<f4', 'fortran_order': False, "
      "'shape': (%20" G_GUINT64_FORMAT ", %d), }", frames, dims);
  size_t total = 10 + dict.size () + 1;
  size_t pad = (64 - total % 64) % 64;
  dict.append (pad, ' ');
  dict.push_back ('\n');
  std::string h ("\x93NUMPY\x01\x00", 8);
  h.push_back ((char) (dict.size () & 0xff));
  h.push_back ((char) (dict.size () >> 8));
  return h + dict;
}

std::string
kaldi_entry_header (const std::string & key, int32_t rows, int32_t cols)
{
  std::string h = key;
  h.append (" \0BFM \x04", 7);
  put_u32_le (&h, (uint32_t) rows);
  h.push_back ('\x04');
  put_u32_le (&h, (uint32_t) cols);
  return h;
}

std::string
kaldi_text_open (const std::string & key)
{
  return key + "  [\n";
}

void
kaldi_text_row (const float *row, int dims, std::string * out)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  out->append ("  ");
  for (int i = 0; i < dims; i++) {
    /* 9 significant digits give back the same float32 */
    g_ascii_formatd (num, sizeof num, "%.9g", row[i]);
    out->append (num);
    out->push_back (' ');
  }
  out->push_back ('\n');
}

std::string
kaldi_text_close ()
{
  return " ]\n";
}

bool
kaldi_key_ok (const std::string & key)
{
  if (key.empty ())
    return false;
  for (unsigned char c:key)
    if (!is_key_char (c))
      return false;
  return true;
}

void
to_big_endian (const float *in, size_t n, uint8_t * out)
{
  size_t i = 0;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__SSE2__)
  /* four floats at a time: GCC does not vectorise the loop below, and
   * writing HTK files spent 6 % of afet-extract's CPU there (2400 short
   * files on an H200 host) */
  for (; i + 4 <= n; i += 4) {
    __m128i v = _mm_loadu_si128 ((const __m128i *) (in + i));
    /* the bytes of each 16-bit half swapped, then the halves */
    v = _mm_or_si128 (_mm_slli_epi16 (v, 8), _mm_srli_epi16 (v, 8));
    v = _mm_shufflelo_epi16 (v, _MM_SHUFFLE (2, 3, 0, 1));
    v = _mm_shufflehi_epi16 (v, _MM_SHUFFLE (2, 3, 0, 1));
    _mm_storeu_si128 ((__m128i *) (out + 4 * i), v);
  }
#elif G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__ARM_NEON)
  for (; i + 4 <= n; i += 4)
    vst1q_u8 (out + 4 * i, vrev32q_u8 (vld1q_u8 ((const uint8_t *) (in +
                    i))));
#endif
  for (; i < n; i++) {
    uint32_t v;
    memcpy (&v, &in[i], 4);
    v = GUINT32_TO_BE (v);
    memcpy (out + 4 * i, &v, 4);
  }
}

bool
info_from_htk_kind (uint16_t kind, int dims, AfetFeaturesInfo * info,
    std::string * why)
{
  const unsigned base = kind & 0x3f;
  const std::string name = htk_kind_name (kind);
  if (kind & kHtkC) {
    *why = "compressed HTK files (" + name + ") are not supported: write "
        "them with SAVECOMPRESSED=F";
    return false;
  }
  if (kind & kHtkK) {
    *why = "HTK files with a checksum (" + name + ") are not supported: "
        "write them with SAVEWITHCRC=F";
    return false;
  }
  if (kind & (kHtkV | kHtkN)) {
    *why = "HTK kind " + name + " (_V or _N) has no fixed float layout";
    return false;
  }
  if (base == kHtkWaveform || base == kHtkDiscrete || base > kHtkPlp) {
    *why = "HTK kind " + name + " is not a float feature kind";
    return false;
  }
  const bool d = kind & kHtkD, a = kind & kHtkA, t = kind & kHtkT;
  if ((a && !d) || (t && !a)) {
    *why = "HTK kind " + name + " has _A or _T without the orders below it";
    return false;
  }
  const int order = t ? 3 : a ? 2 : d ? 1 : 0;
  if (dims % (order + 1) != 0) {
    *why = fmt ("%d values per frame do not split into %d equal blocks as "
        "%s says", dims, order + 1, name.c_str ());
    return false;
  }
  const int statics = dims / (order + 1);
  const bool e = kind & kHtkE, c0 = kind & kHtk0;
  if (statics < (e ? 1 : 0) + (c0 ? 1 : 0) || statics < 1) {
    *why = fmt ("%d static values cannot hold what %s says", statics,
        name.c_str ());
    return false;
  }
  info->kind = base == kHtkMfcc ? AFET_FEATURES_KIND_MFCC :
      base == kHtkFbank ? AFET_FEATURES_KIND_FBANK :
      base == kHtkPlp ? AFET_FEATURES_KIND_PLP : AFET_FEATURES_KIND_USER;
  info->dims = dims;
  info->statics = statics;
  info->delta_order = order;
  info->energy_index = e ? statics - 1 : -1;
  info->c0_index = c0 ? statics - 1 - (e ? 1 : 0) : -1;
  info->normalization = (kind & kHtkZ) ? AFET_FEATURES_NORM_MEAN :
      AFET_FEATURES_NORM_NONE;
  info->norm_columns = e ? AFET_FEATURES_NORM_COLUMNS_HTK :
      AFET_FEATURES_NORM_COLUMNS_STATICS;
  return true;
}

}  /* namespace afetfile */
