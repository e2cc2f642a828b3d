/* afet - speech feature extraction for GStreamer
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The readers of afetmatrix.h: matrix files, archives of matrices, utt2spk.
 */

#include "afetmatrix.h"
#include "afetfileformat.h"
#include "afetfile-private.h"

#include <glib.h>

#include <cmath>
#include <cstring>

namespace afetfile
{

/* matrices (and their lists) are small: anything larger is not one */
static const gsize kMaxBytes = (gsize) 1 << 30;

static bool
slurp (const std::string & path, std::string * out, std::string * why)
{
  if (!g_file_test (path.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = path + ": no such file (or not a regular file)";
    return false;
  }
  gchar *buf = nullptr;
  gsize len = 0;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &buf, &len, &err)) {
    *why = path + ": " + err->message;
    g_error_free (err);
    return false;
  }
  if (len > kMaxBytes) {
    g_free (buf);
    *why = fmt ("%s: %" G_GSIZE_FORMAT " bytes is too large for a matrix "
        "file", path.c_str (), len);
    return false;
  }
  out->assign (buf, len);
  g_free (buf);
  return true;
}

/* Kaldi's binary matrix after "\0B" at d[*pos]: token, '\4' rows, '\4'
 * cols, values */
static bool
binary_matrix (const std::string & d, size_t * pos, Matrix * m,
    std::string * why)
{
  size_t i = *pos;
  if (d.size () < i + 13) {
    *why = fmt ("the binary matrix at byte offset %" G_GSIZE_FORMAT " is "
        "cut short", i);
    return false;
  }
  const char *tok = d.data () + i;
  if (memcmp (tok, "CM", 2) == 0) {
    *why = fmt ("a compressed Kaldi matrix (at byte offset %" G_GSIZE_FORMAT
        "): write it with copy-matrix (not compressed)", i);
    return false;
  }
  if (memcmp (tok, "FM ", 3) != 0 && memcmp (tok, "DM ", 3) != 0) {
    *why = fmt ("not a float or double Kaldi matrix (token '%s' at byte "
        "offset %" G_GSIZE_FORMAT "; a vector or another object?)",
        shown (std::string (tok, 2)).c_str (), i);
    return false;
  }
  const bool f64 = tok[0] == 'D';
  const uint8_t *p = (const uint8_t *) d.data () + i + 3;
  if (p[0] != 4 || p[5] != 4) {
    *why = fmt ("the matrix size at byte offset %" G_GSIZE_FORMAT " is not "
        "two 4-byte integers", i + 3);
    return false;
  }
  const int32_t rows = (int32_t) get_u32 (p + 1, false);
  const int32_t cols = (int32_t) get_u32 (p + 6, false);
  i += 13;
  const size_t vsize = f64 ? 8 : 4;
  if (rows < 0 || cols < 0 || (uint64_t) rows * (uint64_t) cols * vsize >
      d.size () - i) {
    *why = fmt ("a %d x %d matrix does not fit in the %" G_GSIZE_FORMAT
        " bytes after its header (byte offset %" G_GSIZE_FORMAT ")", rows,
        cols, d.size () - i, i);
    return false;
  }
  m->rows = rows;
  m->cols = cols;
  m->data.resize ((size_t) rows * cols);
  for (size_t k = 0; k < m->data.size (); k++) {
    const char *v = d.data () + i + k * vsize;
    if (f64) {
      double x;
      memcpy (&x, v, 8);
      m->data[k] = (float) x;
    } else {
      memcpy (&m->data[k], v, 4);
    }
  }
  *pos = i + m->data.size () * vsize;
  return true;
}

/* Kaldi's text matrix from d[*pos] (just after '['): rows a line, up to
 * ']' */
static bool
text_matrix (const std::string & d, size_t * pos, Matrix * m,
    std::string * why)
{
  size_t i = *pos;
  std::vector<float> row;
  m->rows = m->cols = 0;
  m->data.clear ();
  auto end_row =[&]() -> bool {
    if (row.empty ())
      return true;
    if (m->rows > 0 && (int) row.size () != m->cols) {
      *why = fmt ("row %d has %" G_GSIZE_FORMAT " values, the rows before "
          "%d (text matrix, line ending at byte offset %" G_GSIZE_FORMAT ")",
          m->rows + 1, row.size (), m->cols, i);
      return false;
    }
    m->cols = (int) row.size ();
    m->rows++;
    m->data.insert (m->data.end (), row.begin (), row.end ());
    row.clear ();
    return true;
  };
  while (i < d.size ()) {
    const char c = d[i];
    if (c == '\n') {
      if (!end_row ())
        return false;
      i++;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      i++;
    } else if (c == ']') {
      if (!end_row ())
        return false;
      *pos = i + 1;
      return true;
    } else {
      const char *s = d.c_str () + i;
      char *e = nullptr;
      const double x = g_ascii_strtod (s, &e);
      if (e == s || (*e && !g_ascii_isspace (*e) && *e != ']') ||
          !std::isfinite (x)) {
        *why = fmt ("'%s' at byte offset %" G_GSIZE_FORMAT " is not a finite "
            "number (text matrix)", shown (std::string (s, strcspn (s,
                        " \t\r\n]")), 24).c_str (), i);
        return false;
      }
      row.push_back ((float) x);
      i += (size_t) (e - s);
    }
  }
  *why = "the text matrix has no closing ']'";
  return false;
}

static size_t
skip_space (const std::string & d, size_t i)
{
  while (i < d.size () && g_ascii_isspace (d[i]))
    i++;
  return i;
}

bool
read_matrix_file (const std::string & path, Matrix * m, std::string * why)
{
  std::string d;
  if (!slurp (path, &d, why))
    return false;
  std::string e;
  bool ok = false;
  size_t pos = 0;
  if (d.size () >= 6 && memcmp (d.data (), "\x93NUMPY", 6) == 0) {
    Reader::Options opt;
    opt.format = Format::Npy;
    opt.total_bytes = (int64_t) d.size ();
    Reader r (opt);
    m->data.clear ();
    auto on_entry =[&](const Entry & en, std::string *) {
      m->rows = (int) en.rows;
      m->cols = en.dims;
      return true;
    };
    auto on_frames =[&](const float *f, size_t n) {
      m->data.insert (m->data.end (), f, f + n * (size_t) m->cols);
      return true;
    };
    ok = r.feed ((const uint8_t *) d.data (), d.size (), true, on_entry,
        on_frames, &e) != (size_t) - 1;
    pos = d.size ();
  } else if (d.size () >= 2 && d[0] == '\0' && d[1] == 'B') {
    pos = 2;
    ok = binary_matrix (d, &pos, m, &e);
  } else {
    pos = skip_space (d, 0);
    if (pos < d.size () && d[pos] == '[') {
      pos++;
      ok = text_matrix (d, &pos, m, &e);
    } else {
      e = "not a matrix: neither Kaldi's binary form (\\0B then FM or DM), "
          "its text form ('[' ... ']') nor NumPy .npy";
      if (d.size () > 0 && pos < d.size () && d.find (" [") != std::string::npos)
        e += " (an archive? give a single matrix, or use matrices=)";
    }
  }
  if (ok && skip_space (d, pos) != d.size ()) {
    ok = false;
    e = fmt ("%" G_GSIZE_FORMAT " bytes after the matrix (byte offset %"
        G_GSIZE_FORMAT "): one matrix a file", d.size () - pos, pos);
  }
  if (ok && (m->rows < 1 || m->cols < 1)) {
    ok = false;
    e = fmt ("the matrix is empty (%d x %d)", m->rows, m->cols);
  }
  if (ok)
    for (float x : m->data)
      if (!std::isfinite (x)) {
        ok = false;
        e = "the matrix holds NaN or infinite values";
        break;
      }
  if (!ok)
    *why = path + ": " + e;
  return ok;
}

bool
read_matrix_archive (const std::string & path,
    std::vector<std::pair<std::string, Matrix>> * out, std::string * why)
{
  std::string d;
  if (!slurp (path, &d, why))
    return false;
  out->clear ();
  size_t pos = skip_space (d, 0);
  std::string e;
  while (pos < d.size ()) {
    size_t k = pos;
    while (k < d.size () && is_key_char ((uint8_t) d[k]))
      k++;
    if (k == pos || k >= d.size () || d[k] != ' ') {
      e = fmt ("expected a key and a space at byte offset %" G_GSIZE_FORMAT
          " (a Kaldi archive of matrices: 'KEY \\0BFM ...' or 'KEY [ ... ]')",
          pos);
      break;
    }
    std::string key = d.substr (pos, k - pos);
    Matrix m;
    size_t i = k + 1;
    bool ok;
    if (i + 1 < d.size () && d[i] == '\0' && d[i + 1] == 'B') {
      i += 2;
      ok = binary_matrix (d, &i, &m, &e);
    } else {
      i = skip_space (d, i);
      if (i < d.size () && d[i] == '[') {
        i++;
        ok = text_matrix (d, &i, &m, &e);
      } else {
        ok = false;
        e = fmt ("no matrix after the key at byte offset %" G_GSIZE_FORMAT,
            i);
      }
    }
    if (!ok) {
      e = "entry '" + shown (key) + "': " + e;
      break;
    }
    if (m.rows < 1 || m.cols < 1) {
      e = fmt ("entry '%s' is an empty matrix (%d x %d)", shown (key).c_str (),
          m.rows, m.cols);
      break;
    }
    for (const auto & p : *out)
      if (p.first == key) {
        e = "key '" + shown (key) + "' appears twice";
        break;
      }
    if (!e.empty ())
      break;
    out->emplace_back (std::move (key), std::move (m));
    pos = skip_space (d, i);
  }
  if (e.empty () && out->empty ())
    e = "the archive holds no matrix";
  if (!e.empty ()) {
    *why = path + ": " + e;
    return false;
  }
  return true;
}

bool
read_utt2spk (const std::string & path,
    std::map<std::string, std::string> * out, std::string * why)
{
  std::string d;
  if (!slurp (path, &d, why))
    return false;
  out->clear ();
  gchar **lines = g_strsplit (d.c_str (), "\n", -1);
  bool ok = d.find ('\0') == std::string::npos;
  if (!ok)
    *why = path + ": holds a NUL byte: not a text file";
  for (int i = 0; ok && lines[i]; i++) {
    gchar **w = g_strsplit_set (g_strstrip (lines[i]), " \t", -1);
    std::vector<std::string> words;
    for (int j = 0; w[j]; j++)
      if (*w[j])
        words.push_back (w[j]);
    g_strfreev (w);
    if (words.empty ())
      continue;
    if (words.size () != 2) {
      *why = fmt ("%s line %d: expected 'utterance speaker', found %"
          G_GSIZE_FORMAT " words", path.c_str (), i + 1, words.size ());
      ok = false;
    } else if (!out->emplace (words[0], words[1]).second) {
      *why = fmt ("%s line %d: utterance '%s' is listed twice", path.c_str (),
          i + 1, shown (words[0]).c_str ());
      ok = false;
    }
  }
  g_strfreev (lines);
  if (ok && out->empty ()) {
    *why = path + ": lists no utterance";
    ok = false;
  }
  return ok;
}

}  /* namespace afetfile */
