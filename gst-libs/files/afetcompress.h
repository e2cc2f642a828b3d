/* Kaldi's compressed matrices (CM, CM2, CM3): compression as copy-feats
 * --compress=true --compression-method=N writes it, and decompression as
 * Kaldi's CompressedMatrix::CopyToMat reads it, float for float.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The layout, as Kaldi's src/matrix/compressed-matrix.{h,cc} define it
 * (all little-endian, as Kaldi writes on the machines it runs on):
 * - a token: "CM " (one byte a value with per-column headers), "CM2 " (two
 *   bytes a value), "CM3 " (one byte a value);
 * - the global header: float min_value, float range, int32 rows, int32
 *   cols (16 bytes; Kaldi keeps a format field before them, not written:
 *   the token says it);
 * - CM: cols per-column headers of four uint16 (the 0th, 25th, 75th and
 *   100th percentiles of the column, in 1/65535 of the range above
 *   min_value), then the columns one after the other, rows bytes each: 0 to
 *   64 span p0..p25, 64 to 192 p25..p75, 192 to 255 p75..p100;
 * - CM2: rows x cols uint16 row by row, min_value + range * v / 65535;
 * - CM3: rows x cols bytes row by row, min_value + range * v / 255.
 * An empty matrix is "CM " and a header of zeros.
 *
 * The arithmetic is Kaldi's to the last operation: float where Kaldi
 * computes in float, double where its constants are double (0.499,
 * 1/63.0, 1.0/65535.0), truncation to int as x86-64 does it (a value out of
 * int's range or NaN gives INT_MIN).  The file is built with
 * -ffp-contract=off so that no multiply-add is fused (Kaldi's x86-64
 * builds fuse none).
 */

#ifndef __AFET_COMPRESS_H__
#define __AFET_COMPRESS_H__

#include <cstddef>
#include <cstdint>
#include <string>

namespace afetfile
{

/* Kaldi's CompressionMethod numbers, as copy-feats --compression-method
 * takes them; 0: not compressed. */
enum : int
{
  kCompressNone = 0,
  kCompressAuto = 1,            /* SpeechFeature above 8 rows, else TwoByteAuto */
  kCompressSpeechFeature = 2,   /* CM */
  kCompressTwoByteAuto = 3,     /* CM2, the matrix's min and max */
  kCompressTwoByte = 4,         /* CM2, -32768 .. 32767 */
  kCompressOneByteAuto = 5,     /* CM3, the matrix's min and max */
  kCompressOneByte = 6,         /* CM3, 0 .. 255 */
  kCompressOneByteZeroOne = 7,  /* CM3, 0 .. 1 */
  kCompressMax = 7
};

/* Kaldi's name of a method ("kSpeechFeature"); "none" for 0 */
const char *kaldi_compression_name (int method);

/* The stored formats (Kaldi's DataFormat) */
enum : int
{
  kCmColHeaders = 1,            /* "CM" */
  kCmTwoByte = 2,               /* "CM2" */
  kCmOneByte = 3                /* "CM3" */
};

constexpr size_t kCmHeaderBytes = 16;

struct CmHeader
{
  int format = kCmColHeaders;
  float min_value = 0.0f;
  float range = 0.0f;
  int32_t rows = 0;
  int32_t cols = 0;
};

/* The bytes that follow the global header of a rows x cols matrix in
 * @format; -1 when rows or cols is negative or Kaldi's int32 count of the
 * whole (header included) cannot hold it. */
int64_t kaldi_cm_data_bytes (int format, int64_t rows, int64_t cols);

/* Reads the 16-byte global header at @p for a matrix in @format. */
CmHeader kaldi_cm_header (int format, const uint8_t * p);

/* Appends Kaldi's binary form of the rows x cols row-major matrix @m
 * compressed with @method (1 to 7) to @out: the token, the header, the
 * data, exactly as copy-feats --compress=true --compression-method=N
 * writes it.  False, with the reason in @why and nothing appended, for a
 * method out of range, a matrix too large for Kaldi's int32 sizes, NaN
 * anywhere (Kaldi's result is undefined behaviour) or, with the methods
 * that take the range from the matrix (1, 2, 3, 5), infinities (Kaldi
 * aborts on them). */
bool kaldi_compress (const float *m, int32_t rows, int32_t cols, int method,
    std::string * out, std::string * why);

/* Decompresses @n rows of a CM2 or CM3 matrix whose bytes (rows one after
 * the other) start at @data into @out (n x cols floats). */
void kaldi_cm_decode_rows (const CmHeader & h, const uint8_t * data,
    size_t n, float *out);

/* Decompresses rows @first to @first + @n - 1 of a CM matrix whose data
 * (per-column headers, then the columns) is all at @data into @out (n x
 * cols floats, row by row): a row has a byte in every column. */
void kaldi_cm_decode_columns (const CmHeader & h, const uint8_t * data,
    int32_t first, int32_t n, float *out);

}  /* namespace afetfile */

#endif /* __AFET_COMPRESS_H__ */
