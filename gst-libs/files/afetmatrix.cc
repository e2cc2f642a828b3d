/* Kaldi matrices, archives of them and tables read whole, double-matrix
 * entries written (afetmatrix.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "afetmatrix.h"
#include "afetfileformat.h"
#include "afetfile-private.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <cerrno>
#include <fcntl.h>
#include <cmath>
#include <cstring>
#include <set>

#include <unistd.h>

namespace afetfile
{

namespace
{

bool
read_whole (const std::string & path, std::string * data, std::string * why)
{
  if (!g_file_test (path.c_str (), G_FILE_TEST_IS_REGULAR)) {
    *why = fmt ("%s is not a regular file (or does not exist)", path.c_str ());
    return false;
  }
  gchar *buf = nullptr;
  gsize len = 0;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &buf, &len, &err)) {
    *why = fmt ("cannot read %s: %s", path.c_str (), err->message);
    g_error_free (err);
    return false;
  }
  data->assign (buf, len);
  g_free (buf);
  return true;
}

bool
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
      c == '\v';
}

/* One archive in memory, parsed from pos_ on. */
class MatrixParser
{
public:
  MatrixParser (const std::string & path, const std::string & d)
  : path_ (path), d_ (d)
  {
  }

  bool parse (std::vector < std::pair < std::string, Matrix > >*out,
      std::string * why);
  /* the one matrix of a file, nothing but white space after it */
  bool parse_one (Matrix * m, std::string * why);

private:
  bool matrix (const std::string & key, Matrix * m, std::string * why);
  bool binary (const std::string & key, Matrix * m, std::string * why);
  bool text (const std::string & key, Matrix * m, std::string * why);
  std::string where (const std::string & key, size_t at) const
  {
    if (key.empty ())           /* a file of one matrix */
      return fmt ("%s, byte offset %zu", path_.c_str (), at);
    return fmt ("%s, entry '%s', byte offset %zu", path_.c_str (),
        shown (key).c_str (), at);
  }

  const std::string & path_;
  const std::string & d_;
  size_t pos_ = 0;
};

bool
MatrixParser::parse (std::vector < std::pair < std::string,
    Matrix > >*out, std::string * why)
{
  std::set < std::string > seen;
  const size_t n = d_.size ();
  while (true) {
    while (pos_ < n && is_space (d_[pos_]))
      pos_++;
    if (pos_ == n)
      return true;
    const size_t start = pos_;
    while (pos_ < n && is_key_char ((uint8_t) d_[pos_]))
      pos_++;
    const std::string key = d_.substr (start, pos_ - start);
    if (pos_ == n || d_[pos_] != ' ') {
      *why = fmt ("%s: expected a key and a space at byte offset %zu (a "
          "Kaldi archive: KEY, a space, a matrix)", path_.c_str (), start);
      return false;
    }
    pos_++;
    if (!seen.insert (key).second) {
      *why = fmt ("%s: key '%s' comes twice (byte offset %zu)", path_.c_str (),
          shown (key).c_str (), start);
      return false;
    }
    Matrix m;
    if (!matrix (key, &m, why))
      return false;
    out->emplace_back (key, std::move (m));
  }
}

bool
MatrixParser::parse_one (Matrix * m, std::string * why)
{
  while (pos_ < d_.size () && is_space (d_[pos_]))
    pos_++;
  if (!matrix ("", m, why))
    return false;
  while (pos_ < d_.size () && is_space (d_[pos_]))
    pos_++;
  if (pos_ < d_.size ()) {
    *why = fmt ("%s: %zu bytes after the matrix (byte offset %zu): one "
        "matrix a file (an archive? use the archive's property)",
        path_.c_str (), d_.size () - pos_, pos_);
    return false;
  }
  return true;
}

/* a binary or text matrix from pos_, not empty */
bool
MatrixParser::matrix (const std::string & key, Matrix * m, std::string * why)
{
  const size_t at = pos_;
  bool ok = pos_ + 1 < d_.size () && d_[pos_] == '\0' && d_[pos_ + 1] == 'B' ?
      binary (key, m, why) : text (key, m, why);
  if (ok && (m->rows < 1 || m->cols < 1)) {
    *why = fmt ("%s: the matrix is empty (%d x %d)", where (key, at).c_str (),
        m->rows, m->cols);
    ok = false;
  }
  return ok;
}

bool
MatrixParser::binary (const std::string & key, Matrix * m,
    std::string * why)
{
  const size_t n = d_.size ();
  const uint8_t *p = (const uint8_t *) d_.data ();
  pos_ += 2;
  if (pos_ + 3 > n || (d_.compare (pos_, 3, "DM ") != 0 &&
          d_.compare (pos_, 3, "FM ") != 0)) {
    std::string tok;
    for (size_t i = pos_; i < n && i < pos_ + 3 && !is_space (d_[i]); i++)
      tok.push_back (d_[i]);
    *why = fmt ("%s: a binary matrix starts with DM or FM, not '%s'%s",
        where (key, pos_).c_str (), shown (tok).c_str (),
        tok == "CM" || tok == "CM2" || tok == "CM3" ? " (a compressed matrix: "
        "write the statistics uncompressed, e.g. copy-matrix)" : "");
    return false;
  }
  const bool dbl = d_[pos_] == 'D';
  pos_ += 3;
  if (pos_ + 10 > n || p[pos_] != 4 || p[pos_ + 5] != 4) {
    *why = fmt ("%s: truncated or malformed matrix size (expected '\\4' and "
        "a 32-bit row count, '\\4' and a column count)",
        where (key, pos_).c_str ());
    return false;
  }
  const int32_t rows = (int32_t) get_u32 (p + pos_ + 1, false);
  const int32_t cols = (int32_t) get_u32 (p + pos_ + 6, false);
  pos_ += 10;
  const size_t vsize = dbl ? 8 : 4;
  if (rows < 0 || cols < 0 || (rows == 0) != (cols == 0) ||
      (uint64_t) rows * (uint64_t) cols * vsize > n - pos_) {
    *why = fmt ("%s: a %d x %d matrix does not fit the %zu bytes left",
        where (key, pos_ - 10).c_str (), rows, cols, n - pos_);
    return false;
  }
  m->rows = rows;
  m->cols = cols;
  m->v.resize ((size_t) rows * cols);
  for (size_t i = 0; i < m->v.size (); i++) {
    double x;
    if (dbl) {
      uint64_t u = (uint64_t) get_u32 (p + pos_ + 8 * i + 4, false) << 32 |
          get_u32 (p + pos_ + 8 * i, false);
      memcpy (&x, &u, 8);
    } else {
      uint32_t u = get_u32 (p + pos_ + 4 * i, false);
      float f;
      memcpy (&f, &u, 4);
      x = f;
    }
    if (!std::isfinite (x)) {
      *why = fmt ("%s: value %zu is not a finite number",
          where (key, pos_ + vsize * i).c_str (), i);
      return false;
    }
    m->v[i] = x;
  }
  pos_ += m->v.size () * vsize;
  return true;
}

bool
MatrixParser::text (const std::string & key, Matrix * m,
    std::string * why)
{
  const size_t n = d_.size ();
  while (pos_ < n && (d_[pos_] == ' ' || d_[pos_] == '\t'))
    pos_++;
  if (pos_ == n || d_[pos_] != '[') {
    *why = fmt ("%s: expected '[' (a text matrix) or \"\\0B\" (binary)",
        where (key, pos_).c_str ());
    return false;
  }
  pos_++;
  std::vector<double> row;
  auto end_row =[&]()->bool
  {
    if (row.empty ())
      return true;
    if (m->rows > 0 && (int) row.size () != m->cols) {
      *why = fmt ("%s: row %d has %zu numbers, the rows before %d",
          where (key, pos_).c_str (), m->rows, row.size (), m->cols);
      return false;
    }
    m->cols = (int) row.size ();
    m->rows++;
    m->v.insert (m->v.end (), row.begin (), row.end ());
    row.clear ();
    return true;
  };
  while (true) {
    while (pos_ < n && is_space (d_[pos_]) && d_[pos_] != '\n')
      pos_++;
    if (pos_ == n) {
      *why = fmt ("%s: the text matrix has no closing ']'",
          where (key, pos_).c_str ());
      return false;
    }
    if (d_[pos_] == '\n') {
      pos_++;
      if (!end_row ())
        return false;
      continue;
    }
    if (d_[pos_] == ']') {
      pos_++;
      return end_row ();
    }
    size_t s = pos_;
    while (pos_ < n && !is_space (d_[pos_]) && d_[pos_] != ']')
      pos_++;
    const std::string word = d_.substr (s, pos_ - s);
    gchar *e = nullptr;
    double x = g_ascii_strtod (word.c_str (), &e);
    if (e == word.c_str () || *e || !std::isfinite (x)) {
      *why = fmt ("%s: '%s' is not a finite number", where (key, s).c_str (),
          shown (word).c_str ());
      return false;
    }
    row.push_back (x);
  }
}

}                               /* namespace */

bool
read_matrix_file (const std::string & path, Matrix * m, std::string * why)
{
  std::string data;
  if (!read_whole (path, &data, why))
    return false;
  *m = Matrix ();
  if (data.size () >= 6 && memcmp (data.data (), "\x93NUMPY", 6) == 0) {
    /* the feature file reader knows NumPy's header: a 2-D float array */
    Reader::Options opt;
    opt.format = Format::Npy;
    opt.total_bytes = (int64_t) data.size ();
    Reader r (opt);
    std::string e;
    auto on_entry =[&](const Entry & en, std::string *) {
      m->rows = (int) en.rows;
      m->cols = en.dims;
      return true;
    };
    auto on_frames =[&](const float *f, size_t n) {
      m->v.insert (m->v.end (), f, f + n * (size_t) m->cols);
      return true;
    };
    if (r.feed ((const uint8_t *) data.data (), data.size (), true, on_entry,
            on_frames, &e) == (size_t) - 1) {
      *why = path + ": " + e;
      return false;
    }
    if (m->rows < 1 || m->cols < 1) {
      *why = fmt ("%s: the matrix is empty (%d x %d)", path.c_str (), m->rows,
          m->cols);
      return false;
    }
    for (double x : m->v)
      if (!std::isfinite (x)) {
        *why = path + ": the matrix holds NaN or infinite values";
        return false;
      }
    return true;
  }
  size_t i = 0;
  while (i < data.size () && is_space (data[i]))
    i++;
  if (!(data.compare (i, 2, std::string ("\0B", 2)) == 0 ||
          (i < data.size () && data[i] == '['))) {
    *why = path + ": not a matrix: neither Kaldi's binary form (\\0B then FM "
        "or DM), its text form ('[' ... ']') nor NumPy .npy";
    if (data.find (" [") != std::string::npos ||
        data.find (std::string (" \0B", 3)) != std::string::npos)
      *why += " (an archive? give a single matrix, or use the archive's "
          "property)";
    return false;
  }
  MatrixParser parser (path, data);
  return parser.parse_one (m, why);
}

bool
read_matrix_archive (const std::string & path,
    std::vector < std::pair < std::string, Matrix > >*out,
    std::string * why)
{
  std::string data;
  if (!read_whole (path, &data, why))
    return false;
  out->clear ();
  MatrixParser parser (path, data);
  if (!parser.parse (out, why))
    return false;
  if (out->empty ()) {
    *why = path + ": the archive holds no matrix";
    return false;
  }
  return true;
}

bool
read_kaldi_table (const std::string & path,
    std::map < std::string, std::string > *out, std::string * why)
{
  std::string data;
  if (!read_whole (path, &data, why))
    return false;
  out->clear ();
  if (data.find ('\0') != std::string::npos) {
    *why = path + ": holds a NUL byte: not a text file";
    return false;
  }
  gchar **lines = g_strsplit (data.c_str (), "\n", -1);
  bool ok = true;
  for (int i = 0; ok && lines[i]; i++) {
    gchar **f = g_strsplit_set (lines[i], " \t\r\f\v", -1);
    std::vector < std::string > fields;
    for (int j = 0; f[j]; j++)
      if (*f[j])
        fields.push_back (f[j]);
    g_strfreev (f);
    if (fields.empty ())
      continue;
    if (fields.size () != 2) {
      *why = fmt ("%s line %d: expected a key and one value, found %zu "
          "fields", path.c_str (), i + 1, fields.size ());
      ok = false;
    } else if (!out->emplace (fields[0], fields[1]).second) {
      *why = fmt ("%s line %d: key '%s' comes twice", path.c_str (), i + 1,
          shown (fields[0]).c_str ());
      ok = false;
    }
  }
  g_strfreev (lines);
  if (ok && out->empty ()) {
    *why = path + ": lists no key";
    ok = false;
  }
  return ok;
}

std::string
kaldi_double_entry (const std::string & key, const Matrix & m)
{
  std::string s = key;
  s.append (" \0BDM ", 6);
  s.push_back ('\4');
  put_u32_le (&s, (uint32_t) m.rows);
  s.push_back ('\4');
  put_u32_le (&s, (uint32_t) m.cols);
  for (double x : m.v) {
    uint64_t u;
    memcpy (&u, &x, 8);
    put_u32_le (&s, (uint32_t) u);
    put_u32_le (&s, (uint32_t) (u >> 32));
  }
  return s;
}

bool
write_file_atomically (const std::string & path, const std::string & data,
    std::string * why)
{
  /* beside the target, so that the rename stays within one file system */
  gchar *dir = g_path_get_dirname (path.c_str ());
  gchar *base = g_path_get_basename (path.c_str ());
  gchar *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_free (dir);
  g_free (base);
  int fd = g_mkstemp_full (tmpl, O_RDWR, 0644);
  bool ok = fd >= 0;
  if (!ok)
    *why = fmt ("cannot create a temporary file beside %s: %s", path.c_str (),
        g_strerror (errno));
  size_t done = 0;
  while (ok && done < data.size ()) {
    ssize_t w = write (fd, data.data () + done, data.size () - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      *why = fmt ("cannot write %s: %s", tmpl, g_strerror (errno));
      ok = false;
    } else {
      done += (size_t) w;
    }
  }
  if (fd >= 0 && close (fd) != 0 && ok) {
    *why = fmt ("cannot write %s: %s", tmpl, g_strerror (errno));
    ok = false;
  }
  if (ok && g_rename (tmpl, path.c_str ()) != 0) {
    *why = fmt ("cannot rename %s to %s: %s", tmpl, path.c_str (),
        g_strerror (errno));
    ok = false;
  }
  if (!ok && fd >= 0)
    g_unlink (tmpl);
  g_free (tmpl);
  return ok;
}

} /* namespace afetfile */
