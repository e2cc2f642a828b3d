/* Feature file formats without GStreamer elements: what afetenc writes and
 * afetparse reads (HTK, NumPy, Kaldi archives, raw float32).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Feature file formats, without GStreamer elements: what afetenc writes
 * and afetparse reads.  HTK parameter files, NumPy .npy, Kaldi archives
 * (binary and text) and headerless float32.
 *
 * The layouts, as the formats define them:
 * - HTK: 12-byte big-endian header (frame count int32, sample period int32
 *   in 100 ns units, bytes per frame int16, parameter kind int16: base kind
 *   in the low 6 bits, qualifier flags above), then big-endian float32.
 * - NPY 1.0: "\x93NUMPY", 1, 0, header length uint16 LE, an ASCII Python
 *   dict ('descr', 'fortran_order', 'shape') padded with spaces to a
 *   multiple of 64 bytes ending in '\n', then the data (2.0/3.0: uint32
 *   header length).
 * - Kaldi binary archive entry: KEY, ' ', "\0B", "FM " (or "DM " for
 *   doubles), '\4' int32 rows, '\4' int32 cols (little-endian), then
 *   rows x cols little-endian values; or a compressed matrix, "CM ",
 *   "CM2 " or "CM3 " and what afetcompress.h describes.
 * - Kaldi text archive entry: KEY, "  [", newline, one line of numbers per
 *   row, "]" and a newline.
 */

#ifndef __AFET_FILE_FORMAT_H__
#define __AFET_FILE_FORMAT_H__

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "afetfeatures.h"
#include "afetcompress.h"

namespace afetfile
{

enum class Format
{
  Auto = 0, Htk, Npy, Kaldi, KaldiText, Raw
};

/* The HTK parameter kind codes and qualifier flags (HTK book, "Parameter
 * kinds"). */
enum : uint16_t
{
  kHtkWaveform = 0, kHtkLpc = 1, kHtkLpcepstra = 3, kHtkMfcc = 6,
  kHtkFbank = 7, kHtkMelspec = 8, kHtkUser = 9, kHtkDiscrete = 10,
  kHtkPlp = 11,
  kHtkE = 0x40, kHtkN = 0x80, kHtkD = 0x100, kHtkA = 0x200, kHtkC = 0x400,
  kHtkZ = 0x800, kHtkK = 0x1000, kHtk0 = 0x2000, kHtkV = 0x4000,
  kHtkT = 0x8000
};

constexpr size_t kHtkHeaderBytes = 12;
/* HTK stores bytes per frame in a signed 16-bit field */
constexpr int kHtkMaxDims = 32767 / 4;

/* HTK's name for a parameter kind with its qualifiers, e.g. "MFCC_0_D_A_Z" */
std::string htk_kind_name (uint16_t kind);

/* The HTK parameter kind and sample period (100 ns units) that describe
 * @info, or false with the reason in @why when HTK cannot express it. */
bool htk_kind_for (const AfetFeaturesInfo & info, uint16_t * kind,
    int32_t * period, std::string * why);

/* The frame shift in samples at @rate that an HTK sample period (100 ns
 * units) stands for.  HTK keeps the period as a whole number of units, so
 * a shift that is not one (220 samples at 22050 Hz: 99773.24) is written
 * rounded (afetenc) or cut (HCopy): a period less than one unit from a
 * whole number of samples is that number.  False when none is that close. */
bool htk_period_samples (int32_t period, int rate, int *shift);

/* The 12-byte header. */
std::string htk_header (uint32_t frames, int32_t period, int dims,
    uint16_t kind);

/* An NPY 1.0 header for float32 [frames, dims] whose length does not
 * depend on @frames, so that it can be rewritten in place. */
std::string npy_header (uint64_t frames, int dims);

/* A Kaldi binary archive entry's header (key, "\0BFM ", rows, cols); the
 * row count's four bytes end at rows_end (= size - 5). */
std::string kaldi_entry_header (const std::string & key, int32_t rows,
    int32_t cols);
/* offset of the row count within kaldi_entry_header(key, ...) */
inline size_t
kaldi_rows_offset (const std::string & key)
{
  return key.size () + 1 + 2 + 3 + 1;
}

/* Kaldi text: the entry's opening, one row, the closing. */
std::string kaldi_text_open (const std::string & key);
void kaldi_text_row (const float *row, int dims, std::string * out);
std::string kaldi_text_close ();

/* A Kaldi key: non-empty, any bytes but white space (space, \t, \n, \r,
 * \f, \v) and NUL: UTF-8 utterance ids as they are. */
bool kaldi_key_ok (const std::string & key);

/* Writes @n floats from host order into big-endian (HTK) bytes. */
void to_big_endian (const float *in, size_t n, uint8_t * out);

/* What a file (or an archive entry) says about the frames that follow. */
struct Entry
{
  Format format = Format::Auto;
  std::string key;              /* Kaldi: the entry's key */
  int compressed = 0;           /* Kaldi: kCmColHeaders, kCmTwoByte, kCmOneByte */
  int64_t rows = -1;            /* -1: until the end (raw) */
  int dims = 0;
  /* HTK only */
  uint16_t htk_kind = 0;
  int32_t htk_period = 0;
  bool htk_little_endian = false;
};

/* Fills the frame layout of @info (kind, statics, c0/energy index, delta
 * order, normalisation) from an HTK kind, or returns false with the reason. */
bool info_from_htk_kind (uint16_t kind, int dims, AfetFeaturesInfo * info,
    std::string * why);

/* An incremental reader: feed() it the bytes of a file in any pieces; it
 * reports each entry and its frames (as host-order float32) through the
 * callbacks and consumes complete items only.  Every error names the byte
 * offset in the file where it was found. */
class Reader
{
public:
  struct Options
  {
    Format format = Format::Auto;
    int raw_dims = 0;           /* raw: floats per frame */
    int64_t total_bytes = -1;   /* the file's size when known (HTK check) */
  };

  using EntryFunc = std::function < bool (const Entry &, std::string * why) >;
  using FramesFunc = std::function < bool (const float *frames, size_t n) >;

  explicit Reader (const Options & opt);

  /* Parses what it can of @data; returns the bytes consumed (the caller
   * keeps the rest and passes it again with more).  @eos: nothing follows.
   * Returns (size_t) -1 on error, with @why set. */
  size_t feed (const uint8_t * data, size_t len, bool eos,
      const EntryFunc & on_entry, const FramesFunc & on_frames,
      std::string * why);

  /* true when the input ended at a boundary (call after feed(..., eos)) */
  bool complete () const;
  uint64_t offset () const { return offset_; }

private:
  enum class State
  { Detect, Header, Frames, TextRows, Done };

  size_t detect (const uint8_t * d, size_t n, bool eos, std::string * why);
  size_t header (const uint8_t * d, size_t n, bool eos,
      const EntryFunc & on_entry, std::string * why);
  size_t htk_header_ (const uint8_t * d, size_t n, std::string * why);
  size_t npy_header_ (const uint8_t * d, size_t n, std::string * why);
  size_t kaldi_header_ (const uint8_t * d, size_t n, bool eos,
      std::string * why);
  size_t frames (const uint8_t * d, size_t n, bool eos,
      const FramesFunc & on_frames, std::string * why);
  size_t kaldi_cm_header_ (const uint8_t * d, size_t n, size_t i,
      const std::string & key, std::string * why);
  size_t cm_columns (const uint8_t * d, size_t n,
      const FramesFunc & on_frames, std::string * why);
  size_t text_rows (const uint8_t * d, size_t n, bool eos,
      const EntryFunc & on_entry, const FramesFunc & on_frames,
      std::string * why);
  std::string at (uint64_t extra = 0) const;

  Options opt_;
  State state_ = State::Detect;
  Entry entry_;
  bool swap_ = false;           /* values are big-endian */
  bool f64_ = false;            /* values are doubles */
  CmHeader cm_;                 /* a Kaldi compressed matrix's header */
  bool compressed_ = false;     /* the entry is one */
  int64_t rows_left_ = 0;
  uint64_t offset_ = 0;
  std::vector<float> row_buf_;
};

} /* namespace afetfile */

#endif /* __AFET_FILE_FORMAT_H__ */
