/* The incremental reader of feature files behind afetparse: format found
 * from the content (HTK, NumPy, Kaldi binary or text, Kaldi's compressed
 * matrices too), header, frames.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "afetfileformat.h"
#include "afetfile-private.h"

#include <cmath>
#include <cstring>

namespace afetfile
{

/* ---------------------------------------------------------------- reader */

Reader::Reader (const Options & opt):opt_ (opt)
{
  entry_.format = opt.format;
}

std::string
Reader::at (uint64_t extra) const
{
  return fmt ("at byte offset %" G_GUINT64_FORMAT, offset_ + extra);
}

bool
Reader::complete () const
{
  return state_ == State::Done ||
      (state_ == State::Header && (entry_.format == Format::Kaldi ||
          entry_.format == Format::KaldiText) && offset_ > 0);
}

size_t
Reader::feed (const uint8_t * data, size_t len, bool eos,
    const EntryFunc & on_entry, const FramesFunc & on_frames,
    std::string * why)
{
  size_t used = 0;
  for (;;) {
    const uint8_t *d = data + used;
    const size_t n = len - used;
    const State before = state_;
    size_t k = 0;
    switch (state_) {
      case State::Detect:
        k = detect (d, n, eos, why);
        break;
      case State::Header:
        k = header (d, n, eos, on_entry, why);
        break;
      case State::Frames:
        k = frames (d, n, eos, on_frames, why);
        break;
      case State::TextRows:
        k = text_rows (d, n, eos, on_entry, on_frames, why);
        break;
      case State::Done:
        if (n > 0) {
          *why = fmt ("%" G_GSIZE_FORMAT " bytes after the last frame %s: "
              "the header's frame count is wrong or the file was "
              "appended to", n, at ().c_str ());
          return (size_t) - 1;
        }
        return used;
    }
    if (k == (size_t) - 1)
      return k;
    used += k;
    offset_ += k;
    if (k == 0 && before == state_)
      break;
  }
  if (eos && (used < len || !complete ())) {
    static const char *const names[] = {
      "", "HTK", "NumPy", "Kaldi archive", "Kaldi text archive", "raw"
    };
    if (state_ == State::Detect && len == 0 && offset_ == 0)
      *why = "the file is empty (at byte offset 0)";
    else if (state_ == State::Detect)
      *why = fmt ("the file ends after %" G_GUINT64_FORMAT " bytes, too "
          "short for any feature file header (at byte offset %"
          G_GUINT64_FORMAT ")", offset_ + (len - used), offset_ + (len - used));
    else if (state_ == State::Header)
      *why = fmt ("the file ends inside the %s header that starts at byte "
          "offset %" G_GUINT64_FORMAT " (%" G_GSIZE_FORMAT " bytes of it)",
          names[(int) entry_.format], offset_, len - used);
    else if (state_ == State::TextRows)
      *why = "the text archive ends inside a matrix (no ']'), " + at ();
    else if (compressed_ && cm_.format == kCmColHeaders)
      *why = fmt ("truncated: the CM matrix of entry %s needs %" G_GINT64_FORMAT
          " bytes of data, the file ends after %" G_GSIZE_FORMAT " of them, %s",
          shown (entry_.key).c_str (), kaldi_cm_data_bytes (cm_.format,
              cm_.rows, cm_.cols), len - used, at ().c_str ());
    else if (entry_.rows >= 0)
      *why = fmt ("truncated: the header says %" G_GINT64_FORMAT " frames, "
          "the file ends after %" G_GINT64_FORMAT " %s",
          entry_.rows, entry_.rows - rows_left_, at ().c_str ());
    else
      *why = "the file ends inside a frame, " + at ();
    return (size_t) - 1;
  }
  return used;
}

size_t
Reader::detect (const uint8_t * d, size_t n, bool eos, std::string * why)
{
  if (entry_.format != Format::Auto) {
    state_ = State::Header;
    return 0;
  }
  /* NPY: the magic string */
  if (n >= 6 && memcmp (d, "\x93NUMPY", 6) == 0) {
    entry_.format = Format::Npy;
    state_ = State::Header;
    return 0;
  }
  /* Kaldi: a key of printable characters, then " \0B" (binary) or
   * spaces and '[' (text) */
  size_t i = 0;
  while (i < n && i < 65536 && is_key_char (d[i]))
    i++;
  /* all key characters so far, or a key and a space with the marker not
   * here yet: wait for more before judging (a key can look like an HTK
   * header) */
  if (!eos && i < 65536 && (i == n || (d[i] == ' ' && i + 2 >= n)))
    return 0;
  if (i > 0 && i < n && d[i] == ' ') {
    if (i + 2 < n && d[i + 1] == 0 && d[i + 2] == 'B') {
      entry_.format = Format::Kaldi;
      state_ = State::Header;
      return 0;
    }
    size_t j = i;
    while (j < n && (d[j] == ' ' || d[j] == '\t'))
      j++;
    if (j < n && d[j] == '[') {
      entry_.format = Format::KaldiText;
      state_ = State::Header;
      return 0;
    }
  }
  /* HTK: a header that agrees with the file size (or, without a size,
   * one that is plausible), big-endian first */
  if (n >= kHtkHeaderBytes) {
    for (int big = 1; big >= 0; big--) {
      const uint32_t frames = get_u32 (d, big);
      const int32_t period = (int32_t) get_u32 (d + 4, big);
      const int size = (int16_t) get_u16 (d + 8, big);
      const unsigned base = get_u16 (d + 10, big) & 0x3f;
      /* plausible: htk_header_ then checks it against the file size and
       * names what disagrees (a cut file is still an HTK file) */
      const bool ok = size > 0 && size % 4 == 0 && period > 0 &&
          base <= kHtkPlp && frames < (1u << 31);
      if (ok) {
        entry_.format = Format::Htk;
        entry_.htk_little_endian = !big;
        state_ = State::Header;
        return 0;
      }
    }
  }
  if (n >= 256 || eos) {
    *why = "not a feature file afet knows (at byte offset 0): no NumPy "
        "magic, no Kaldi archive key ('KEY \\0B' or 'KEY  ['), and the "
        "first 12 bytes are not an HTK header (set format= to force one)";
    return (size_t) - 1;
  }
  return 0;
}

size_t
Reader::header (const uint8_t * d, size_t n, bool eos,
    const EntryFunc & on_entry, std::string * why)
{
  size_t k = 0;
  switch (entry_.format) {
    case Format::Htk:
      k = htk_header_ (d, n, why);
      break;
    case Format::Npy:
      k = npy_header_ (d, n, why);
      break;
    case Format::Kaldi:
    case Format::KaldiText:
      if (n == 0)
        return 0;               /* between entries */
      k = kaldi_header_ (d, n, eos, why);
      break;
    case Format::Raw:
      if (opt_.raw_dims < 1) {
        *why = "format=raw needs the number of values per frame (dims)";
        return (size_t) - 1;
      }
      entry_.dims = opt_.raw_dims;
      entry_.rows = -1;
      state_ = State::Frames;
      break;
    case Format::Auto:
      return 0;
  }
  if (k == (size_t) - 1 || (k == 0 && state_ == State::Header))
    return k;
  if (state_ == State::Frames || state_ == State::TextRows) {
    rows_left_ = entry_.rows;
    row_buf_.clear ();
    /* text entries announce themselves at their first row (their width
     * is known only then) */
    if (state_ == State::Frames && entry_.rows != 0 &&
        !on_entry (entry_, why))
      return (size_t) - 1;
    if (state_ == State::Frames && entry_.rows == 0)
      state_ = entry_.format == Format::Kaldi ? State::Header : State::Done;
  }
  return k;
}

size_t
Reader::htk_header_ (const uint8_t * d, size_t n, std::string * why)
{
  if (n < kHtkHeaderBytes)
    return 0;
  bool big = !entry_.htk_little_endian;
  /* forced format=htk: take the byte order that fits the size */
  if (opt_.total_bytes >= 0 && big) {
    const uint64_t be = kHtkHeaderBytes + (uint64_t) get_u32 (d, true) *
        (uint16_t) get_u16 (d + 8, true);
    const uint64_t le = kHtkHeaderBytes + (uint64_t) get_u32 (d, false) *
        (uint16_t) get_u16 (d + 8, false);
    if (be != (uint64_t) opt_.total_bytes && le == (uint64_t) opt_.total_bytes)
      big = false;
  }
  const uint32_t frames = get_u32 (d, big);
  const int32_t period = (int32_t) get_u32 (d + 4, big);
  const int size = (int16_t) get_u16 (d + 8, big);
  const uint16_t kind = get_u16 (d + 10, big);
  if (size <= 0 || size % 4 != 0) {
    *why = fmt ("the HTK header's frame size of %d bytes is not a whole "
        "number of floats (at byte offset 8)", size);
    return (size_t) - 1;
  }
  if (period <= 0) {
    *why = fmt ("the HTK header's sample period %d is not positive (at "
        "byte offset 4)", period);
    return (size_t) - 1;
  }
  if (frames >= (1u << 31)) {
    *why = fmt ("the HTK header's frame count %u is negative (at byte "
        "offset 0)", frames);
    return (size_t) - 1;
  }
  if (opt_.total_bytes >= 0 && (uint64_t) opt_.total_bytes !=
      kHtkHeaderBytes + (uint64_t) frames * size) {
    const uint64_t want = kHtkHeaderBytes + (uint64_t) frames * size;
    *why = fmt ("the HTK header says %u frames of %d bytes (%" G_GUINT64_FORMAT
        " bytes with the header) but the file has %" G_GINT64_FORMAT
        " bytes: %s at byte offset %" G_GINT64_FORMAT, frames, size, want,
        opt_.total_bytes, (uint64_t) opt_.total_bytes < want ? "truncated" :
        "extra bytes after the frames", (gint64) MIN ((uint64_t)
            opt_.total_bytes, want));
    return (size_t) - 1;
  }
  entry_.htk_little_endian = !big;
  swap_ = big;
  entry_.rows = frames;
  entry_.dims = size / 4;
  entry_.htk_kind = kind;
  entry_.htk_period = period;
  state_ = State::Frames;
  return kHtkHeaderBytes;
}

namespace
{

/* The value of 'name' in an NPY header dict, up to the next ',' at depth
 * 0 (tuples kept whole); empty when absent. */
std::string
dict_value (const std::string & dict, const char *name)
{
  std::string q1 = std::string ("'") + name + "'";
  std::string q2 = std::string ("\"") + name + "\"";
  size_t p = dict.find (q1);
  if (p == std::string::npos)
    p = dict.find (q2);
  if (p == std::string::npos)
    return "";
  p = dict.find (':', p + q1.size ());
  if (p == std::string::npos)
    return "";
  p++;
  int depth = 0;
  size_t e = p;
  for (; e < dict.size (); e++) {
    char c = dict[e];
    if (c == '(')
      depth++;
    else if (c == ')')
      depth--;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  std::string v = dict.substr (p, e - p);
  size_t a = v.find_first_not_of (" \t");
  size_t b = v.find_last_not_of (" \t");
  return a == std::string::npos ? "" : v.substr (a, b - a + 1);
}

/* The sizes in an NPY shape tuple ("(3,)", "(2, 3)", "(2, 3, 4)", and
 * Python 2's "(2L, 3L)"); false when it is not a tuple of whole numbers. */
bool
shape_sizes (const std::string & shape, std::vector<long long> *sizes)
{
  sizes->clear ();
  size_t i = 0;
  auto space = [&]() {
    while (i < shape.size () && (shape[i] == ' ' || shape[i] == '\t'))
      i++;
  };
  space ();
  if (i == shape.size () || shape[i] != '(')
    return false;
  i++;
  for (;;) {
    space ();
    if (i < shape.size () && shape[i] == ')')
      break;
    size_t start = i;
    long long v = 0;
    while (i < shape.size () && shape[i] >= '0' && shape[i] <= '9') {
      if (v > G_MAXINT64 / 10 - 10)
        return false;
      v = v * 10 + (shape[i] - '0');
      i++;
    }
    if (i == start)
      return false;
    if (i < shape.size () && shape[i] == 'L')
      i++;
    sizes->push_back (v);
    space ();
    if (i < shape.size () && shape[i] == ',') {
      i++;
      continue;
    }
    if (i < shape.size () && shape[i] == ')')
      break;
    return false;
  }
  i++;
  space ();
  return i == shape.size ();
}

}  /* namespace */

size_t
Reader::npy_header_ (const uint8_t * d, size_t n, std::string * why)
{
  if (n < 12)
    return 0;
  if (memcmp (d, "\x93NUMPY", 6) != 0) {
    *why = "not a NumPy file: no \\x93NUMPY magic at byte offset 0";
    return (size_t) - 1;
  }
  const int major = d[6];
  size_t pre, hlen;
  if (major == 1) {
    pre = 10;
    hlen = get_u16 (d + 8, false);
  } else if (major == 2 || major == 3) {
    pre = 12;
    hlen = get_u32 (d + 8, false);
  } else {
    *why = fmt ("NumPy format version %d.%d is not supported (at byte "
        "offset 6)", major, d[7]);
    return (size_t) - 1;
  }
  if (hlen > 1 << 20) {
    *why = fmt ("the NumPy header length %" G_GSIZE_FORMAT " is implausible "
        "(at byte offset 8)", hlen);
    return (size_t) - 1;
  }
  if (n < pre + hlen)
    return 0;
  const std::string dict ((const char *) d + pre, hlen);
  const std::string descr = dict_value (dict, "descr");
  const std::string order = dict_value (dict, "fortran_order");
  const std::string shape = dict_value (dict, "shape");
  const std::string where = fmt ("(NumPy header at byte offset %"
      G_GSIZE_FORMAT ")", pre);
  if (descr.size () == 5 && (descr[1] == '<' || descr[1] == '>' ||
          descr[1] == '=') && descr[2] == 'f' &&
      (descr[3] == '4' || descr[3] == '8')) {
    swap_ = descr[1] == '>';
    f64_ = descr[3] == '8';
  } else {
    *why = "NumPy dtype " + (descr.empty ()? std::string ("(missing)") :
        shown (descr)) + " is not float32 or float64 " + where;
    return (size_t) - 1;
  }
  if (order != "False") {
    *why = "Fortran-order NumPy arrays are not supported: save "
        "np.ascontiguousarray(a) " + where;
    return (size_t) - 1;
  }
  std::vector<long long> sizes;
  if (shape.empty () || !shape_sizes (shape, &sizes)) {
    *why = "NumPy shape " + (shape.empty ()? std::string ("(missing)") :
        shown (shape)) + " is not a tuple of sizes " + where;
    return (size_t) - 1;
  }
  /* say what the array is before any size check: a 3-D array's bytes
   * would otherwise look like extra bytes after a 2-D one */
  if (sizes.size () != 2) {
    *why = fmt ("NumPy shape %s is a %u-D array: afet reads 2-D float32 or "
        "float64 arrays of shape (frames, dims) (reshape to 2-D before "
        "saving, e.g. a.reshape(len(a), -1)) %s", shown (shape).c_str (),
        (unsigned) sizes.size (), where.c_str ());
    return (size_t) - 1;
  }
  const long long rows = sizes[0], cols = sizes[1];
  if (cols < 1 || cols > G_MAXINT32 || rows > G_MAXINT64 / 8 / cols) {
    *why = "NumPy shape " + shown (shape) + " is not (frames, dims) with "
        "1 to 2147483647 values per frame " + where;
    return (size_t) - 1;
  }
  const uint64_t bytes = pre + hlen + (uint64_t) rows * cols * (f64_ ? 8 : 4);
  if (opt_.total_bytes >= 0 && (uint64_t) opt_.total_bytes != bytes) {
    *why = fmt ("the NumPy header says %lld x %lld values (%" G_GUINT64_FORMAT
        " bytes with the header) but the file has %" G_GINT64_FORMAT
        " bytes: %s at byte offset %" G_GINT64_FORMAT, rows, cols, bytes,
        opt_.total_bytes, (uint64_t) opt_.total_bytes < bytes ? "truncated" :
        "extra bytes", (gint64) MIN ((uint64_t) opt_.total_bytes, bytes));
    return (size_t) - 1;
  }
  entry_.rows = rows;
  entry_.dims = (int) cols;
  state_ = State::Frames;
  return pre + hlen;
}

size_t
Reader::kaldi_header_ (const uint8_t * d, size_t n, bool eos,
    std::string * why)
{
  size_t i = 0;
  while (i < n && is_key_char (d[i]))
    i++;
  if (i == n) {
    if (i > 65536) {
      *why = "a Kaldi key longer than 64 KiB " + at ();
      return (size_t) - 1;
    }
    return 0;
  }
  if (i == 0 || d[i] != ' ') {
    *why = fmt ("expected a Kaldi archive key (any bytes but white space "
        "and NUL) followed by a space; found byte 0x%02x %s", d[i],
        at (i).c_str ());
    return (size_t) - 1;
  }
  const std::string key ((const char *) d, i);
  if (entry_.format == Format::KaldiText) {
    size_t j = i;
    while (j < n && (d[j] == ' ' || d[j] == '\t'))
      j++;
    if (j == n)
      return 0;
    if (d[j] != '[') {
      *why = "expected '[' after key " + shown (key) + " " + at (j);
      return (size_t) - 1;
    }
    entry_.key = key;
    entry_.rows = -1;
    entry_.dims = 0;
    state_ = State::TextRows;
    return j + 1;
  }
  /* binary: " \0B" then the matrix token, '\4' rows, '\4' cols */
  const size_t need = i + 3 + 3 + 5 + 5;
  if (n < i + 6)
    return 0;
  if (d[i + 1] != 0 || d[i + 2] != 'B') {
    *why = "expected the binary marker \\0B after key " + shown (key) + " " +
        at (i + 1);
    return (size_t) - 1;
  }
  const char *tok = (const char *) d + i + 3;
  if (memcmp (tok, "CM", 2) == 0)
    return kaldi_cm_header_ (d, n, i, key, why);
  if (memcmp (tok, "FM ", 3) != 0 && memcmp (tok, "DM ", 3) != 0) {
    *why = "entry " + shown (key) + " is not a float, double or compressed "
        "matrix (token '" + shown (std::string (tok, 2)) + "') " + at (i + 3);
    return (size_t) - 1;
  }
  if (n < need)
    return 0;
  const uint8_t *p = d + i + 6;
  if (p[0] != 4 || p[5] != 4) {
    *why = "entry " + shown (key) + ": the matrix size is not two 4-byte "
        "integers " + at (i + 6);
    return (size_t) - 1;
  }
  const int32_t rows = (int32_t) get_u32 (p + 1, false);
  const int32_t cols = (int32_t) get_u32 (p + 6, false);
  if (rows < 0 || cols < 0 || (rows > 0 && cols == 0)) {
    *why = fmt ("entry %s: a %d x %d matrix is not valid %s",
        shown (key).c_str (), rows, cols, at (i + 6).c_str ());
    return (size_t) - 1;
  }
  f64_ = tok[0] == 'D';
  swap_ = false;
  compressed_ = false;
  entry_.key = key;
  entry_.compressed = 0;
  entry_.rows = rows;
  entry_.dims = cols;
  state_ = State::Frames;
  (void) eos;
  return need;
}

/* A compressed matrix (afetcompress.h): "CM ", "CM2 " or "CM3 ", then
 * min, range, rows, cols; the key and " \0B" are @i + 3 bytes of @d. */
size_t
Reader::kaldi_cm_header_ (const uint8_t * d, size_t n, size_t i,
    const std::string & key, std::string * why)
{
  const char *tok = (const char *) d + i + 3;
  int format;
  size_t tlen;
  if (tok[2] == ' ') {
    format = kCmColHeaders;
    tlen = 3;
  } else {
    if (n < i + 7)
      return 0;
    if ((tok[2] != '2' && tok[2] != '3') || tok[3] != ' ') {
      *why = "entry " + shown (key) + ": unknown compressed matrix token '" +
          shown (std::string (tok, 3)) + "' (Kaldi writes CM, CM2 or CM3) " +
          at (i + 3);
      return (size_t) - 1;
    }
    format = tok[2] == '2' ? kCmTwoByte : kCmOneByte;
    tlen = 4;
  }
  const size_t head = i + 3 + tlen;
  if (n < head + kCmHeaderBytes)
    return 0;
  const CmHeader h = kaldi_cm_header (format, d + head);
  static const char *const names[] = { "", "CM", "CM2", "CM3" };
  if (h.rows < 0 || h.cols < 0 || (h.rows == 0) != (h.cols == 0)) {
    *why = fmt ("entry %s: the %s header says %d x %d, not a matrix Kaldi "
        "writes (an empty one is 0 x 0) %s", shown (key).c_str (),
        names[format], h.rows, h.cols, at (head + 8).c_str ());
    return (size_t) - 1;
  }
  const int64_t bytes = kaldi_cm_data_bytes (format, h.rows, h.cols);
  if (bytes < 0) {
    *why = fmt ("entry %s: the %s header says %d x %d, more than Kaldi's "
        "32-bit sizes hold (a damaged header?) %s", shown (key).c_str (),
        names[format], h.rows, h.cols, at (head + 8).c_str ());
    return (size_t) - 1;
  }
  const uint64_t end = offset_ + head + kCmHeaderBytes + (uint64_t) bytes;
  if (opt_.total_bytes >= 0 && end > (uint64_t) opt_.total_bytes) {
    *why = fmt ("entry %s: the %s header says %d x %d (%" G_GINT64_FORMAT
        " bytes of data) but the file has %" G_GINT64_FORMAT " bytes: "
        "truncated %s", shown (key).c_str (), names[format], h.rows, h.cols,
        bytes, opt_.total_bytes, at (head + 8).c_str ());
    return (size_t) - 1;
  }
  cm_ = h;
  compressed_ = true;
  f64_ = false;
  swap_ = false;
  entry_.key = key;
  entry_.compressed = format;
  entry_.rows = h.rows;
  entry_.dims = h.cols;
  state_ = State::Frames;
  return head + kCmHeaderBytes;
}

/* A CM matrix keeps a row's bytes in every column: it is decoded when all
 * of it is here, and handed over in pieces of at most 4096 frames. */
size_t
Reader::cm_columns (const uint8_t * d, size_t n,
    const FramesFunc & on_frames, std::string * why)
{
  const int64_t bytes = kaldi_cm_data_bytes (cm_.format, cm_.rows, cm_.cols);
  if ((int64_t) n < bytes)
    return 0;
  for (int32_t r = 0; r < cm_.rows; r += 4096) {
    const int32_t k = MIN (cm_.rows - r, 4096);
    row_buf_.resize ((size_t) k * cm_.cols);
    kaldi_cm_decode_columns (cm_, d, r, k, row_buf_.data ());
    if (!on_frames (row_buf_.data (), k)) {
      *why = "the frames could not be passed on";
      return (size_t) - 1;
    }
    rows_left_ -= k;
  }
  state_ = State::Header;
  return (size_t) bytes;
}

size_t
Reader::frames (const uint8_t * d, size_t n, bool eos,
    const FramesFunc & on_frames, std::string * why)
{
  if (compressed_ && cm_.format == kCmColHeaders)
    return cm_columns (d, n, on_frames, why);
  const size_t vsize = compressed_ ? (cm_.format == kCmTwoByte ? 2 : 1) :
      f64_ ? 8 : 4;
  const size_t row = (size_t) entry_.dims * vsize;
  size_t rows = n / row;
  if (entry_.rows >= 0 && (int64_t) rows > rows_left_)
    rows = (size_t) rows_left_;
  /* hand them over in pieces of at most 4096 frames */
  rows = MIN (rows, (size_t) 4096);
  if (rows > 0) {
    const size_t vals = rows * entry_.dims;
    row_buf_.resize (vals);
    if (compressed_)
      kaldi_cm_decode_rows (cm_, d, rows, row_buf_.data ());
    for (size_t i = 0; i < vals && !compressed_; i++) {
      const uint8_t *v = d + i * vsize;
      if (f64_) {
        uint64_t u;
        memcpy (&u, v, 8);
        if (swap_)
          u = GUINT64_SWAP_LE_BE (u);
        double x;
        memcpy (&x, &u, 8);
        row_buf_[i] = (float) x;
      } else {
        uint32_t u;
        memcpy (&u, v, 4);
        if (swap_)
          u = GUINT32_SWAP_LE_BE (u);
        memcpy (&row_buf_[i], &u, 4);
      }
    }
    if (!on_frames (row_buf_.data (), rows)) {
      *why = "the frames could not be passed on";
      return (size_t) - 1;
    }
    if (entry_.rows >= 0)
      rows_left_ -= rows;
  }
  if (entry_.rows >= 0 && rows_left_ == 0)
    state_ = entry_.format == Format::Kaldi ? State::Header : State::Done;
  else if (entry_.rows < 0 && eos && rows * row == n)
    state_ = State::Done;
  (void) why;
  return rows * row;
}

size_t
Reader::text_rows (const uint8_t * d, size_t n, bool eos,
    const EntryFunc & on_entry, const FramesFunc & on_frames,
    std::string * why)
{
  size_t used = 0;
  while (used < n) {
    const uint8_t *nl = (const uint8_t *) memchr (d + used, '\n', n - used);
    if (nl == nullptr && !eos)
      break;
    const size_t end = nl ? (size_t) (nl - d) + 1 : n;
    std::string line ((const char *) d + used, end - used);
    bool closed = false;
    size_t br = line.find (']');
    if (br != std::string::npos) {
      if (line.find_first_not_of (" \t\r\n", br + 1) != std::string::npos) {
        *why = "text after ']' in entry " + shown (entry_.key) + " " +
            at (used + br);
        return (size_t) - 1;
      }
      line.resize (br);
      closed = true;
    }
    std::vector<float> vals;
    const char *p = line.c_str ();
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
      if (*p == '\0')
        break;
      char *e = nullptr;
      const double v = g_ascii_strtod (p, &e);
      if (e == p || (*e && *e != ' ' && *e != '\t' && *e != '\r' &&
              *e != '\n')) {
        *why = "not a number in entry " + shown (entry_.key) + " " +
            at (used + (size_t) (p - line.c_str ()));
        return (size_t) - 1;
      }
      vals.push_back ((float) v);
      p = e;
    }
    if (!vals.empty ()) {
      if (entry_.dims == 0) {
        if (vals.size () > (size_t) G_MAXINT32) {
          *why = "row too wide " + at (used);
          return (size_t) - 1;
        }
        entry_.dims = (int) vals.size ();
        if (!on_entry (entry_, why))
          return (size_t) - 1;
      } else if ((int) vals.size () != entry_.dims) {
        *why = fmt ("entry %s: a row of %" G_GSIZE_FORMAT " values after "
            "rows of %d %s", shown (entry_.key).c_str (), vals.size (),
            entry_.dims, at (used).c_str ());
        return (size_t) - 1;
      }
      if (!on_frames (vals.data (), 1)) {
        *why = "the frames could not be passed on";
        return (size_t) - 1;
      }
    }
    used = end;
    if (closed) {
      state_ = State::Header;
      break;
    }
  }
  return used;
}

}  /* namespace afetfile */
