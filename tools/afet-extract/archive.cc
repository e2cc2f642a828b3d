/* afet-extract's Kaldi archive and its index (archive.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "archive.h"

#include <glib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "afetcompress.h"
#include "lists.h"
#include "work.h"

namespace afetx
{

namespace
{

/* --ark: the byte offset where an archive's valid entries end, from its
 * scp (the last complete entry), and the keys it holds. */
bool
resume_archive (const std::string & ark, const std::string & scp,
    std::map<std::string, bool> *have, guint64 * end, std::string * why)
{
  *end = 0;
  std::vector<std::string> lines;
  if (!g_file_test (scp.c_str (), G_FILE_TEST_EXISTS))
    return true;
  if (!read_lines (scp, &lines, why))
    return false;
  FILE *f = fopen (ark.c_str (), "rb");
  for (const auto & l:lines) {
    auto fld = split_ws (l, 2);
    if (fld.size () != 2)
      continue;
    size_t colon = fld[1].rfind (':');
    if (colon == std::string::npos)
      continue;
    guint64 off = g_ascii_strtoull (fld[1].c_str () + colon + 1, nullptr, 10);
    /* "\0BFM " and two sizes, or "\0BCM " ("CM2 ", "CM3 ") and a
     * compressed matrix's header (--compress) */
    unsigned char h[22];
    if (!f || fseeko (f, (off_t) off, SEEK_SET) != 0 ||
        fread (h, 1, 15, f) != 15 || h[0] != 0 || h[1] != 'B')
      break;                    /* that entry is not complete */
    guint64 e;
    if (h[2] == 'C' && h[3] == 'M') {
      const int format = h[4] == ' ' ? afetfile::kCmColHeaders :
          h[4] == '2' ? afetfile::kCmTwoByte : afetfile::kCmOneByte;
      const size_t head = format == afetfile::kCmColHeaders ? 5 : 6;
      const size_t more = head + afetfile::kCmHeaderBytes - 15;
      if (fread (h + 15, 1, more, f) != more)
        break;
      const afetfile::CmHeader ch = afetfile::kaldi_cm_header (format,
          h + head);
      const gint64 data = afetfile::kaldi_cm_data_bytes (format, ch.rows,
          ch.cols);
      if (data < 0)
        break;
      e = off + head + afetfile::kCmHeaderBytes + (guint64) data;
    } else {
      if (h[5] != 4 || h[10] != 4)
        break;
      guint32 rows, cols;
      memcpy (&rows, h + 6, 4);
      memcpy (&cols, h + 11, 4);
      rows = GUINT32_FROM_LE (rows);
      cols = GUINT32_FROM_LE (cols);
      e = off + 15 + (guint64) rows * cols * 4;
    }
    if (fseeko (f, 0, SEEK_END) != 0 || (guint64) ftello (f) < e)
      break;
    (*have)[fld[0]] = true;
    *end = std::max (*end, e);
  }
  if (f)
    fclose (f);
  return true;
}

}  /* namespace */

Archive::~Archive ()
{
  if (ark_f_)
    fclose (ark_f_);
  if (scp_f_)
    fclose (scp_f_);
}

bool
Archive::open (const std::string & ark, bool resume,
    std::map<std::string, bool> *have, std::string * why)
{
  ark_ = ark;
  scp_ = ark.substr (0, ark.size () - 4) + ".scp";
  if (!make_parent (ark, why))
    return false;
  guint64 end = 0;
  if (resume && !resume_archive (ark_, scp_, have, &end, why))
    return false;
  if (resume && g_file_test (ark_.c_str (), G_FILE_TEST_EXISTS)) {
    /* drop a partial entry an interrupted run left at the end */
    if (truncate (ark_.c_str (), (off_t) end) != 0) {
      *why = "cannot truncate " + ark_ + ": " + g_strerror (errno);
      return false;
    }
    ark_f_ = fopen (ark_.c_str (), "ab");
  } else {
    ark_f_ = fopen (ark_.c_str (), "wb");
    have->clear ();
    end = 0;
  }
  if (ark_f_) {
    /* rewrite the index with the entries kept */
    std::vector<std::string> lines;
    std::string kept, ignored;
    if (!have->empty () && read_lines (scp_, &lines, &ignored))
      for (const auto & l:lines) {
        auto f = split_ws (l, 2);
        if (f.size () == 2 && have->count (f[0]))
          kept += l + "\n";
      }
    scp_f_ = fopen (scp_.c_str (), "wb");
    if (scp_f_ && (fwrite (kept.data (), 1, kept.size (), scp_f_) !=
            kept.size () || fflush (scp_f_) != 0)) {
      *why = "cannot write " + scp_ + ": " + g_strerror (errno);
      return false;
    }
    good_scp_ = (off_t) kept.size ();
  }
  if (!ark_f_ || !scp_f_) {
    *why = "cannot write " + ark_ + " or " + scp_ + ": " + g_strerror (errno);
    return false;
  }
  good_ark_ = (off_t) end;
  if (fseeko (ark_f_, 0, SEEK_END) != 0 || ftello (ark_f_) != good_ark_) {
    *why = "cannot write " + ark_ + ": it does not end at its last whole "
        "entry (" + std::to_string ((long long) good_ark_) + ")";
    return false;
  }
  return true;
}

bool
Archive::write (const std::string & key, const std::string & entry,
    std::string * why)
{
  const off_t pos = ftello (ark_f_);
  const std::string line = key + " " + ark_ + ":" + std::to_string ((long long)
      pos + (long long) key.size () + 1) + "\n";
  /* the entry first, then its line in the index: the index never names an
   * entry that is not whole in the archive */
  bool ok = pos >= 0 && fwrite (entry.data (), 1, entry.size (), ark_f_) ==
      entry.size () && fflush (ark_f_) == 0;
  const std::string failed = ok ? scp_ : ark_;
  const int ark_errno = errno;
  if (ok)
    ok = fwrite (line.data (), 1, line.size (), scp_f_) == line.size () &&
        fflush (scp_f_) == 0;
  if (ok) {
    good_ark_ = pos + (off_t) entry.size ();
    good_scp_ += (off_t) line.size ();
    entries_++;
    return true;
  }
  *why = "cannot write " + failed + ": " + g_strerror (failed == ark_ ?
      ark_errno : errno);
  /* leave both as they were after the last whole entry, so that
   * --skip-existing goes on from there */
  clearerr (ark_f_);
  clearerr (scp_f_);
  if (ftruncate (fileno (ark_f_), good_ark_) != 0 ||
      ftruncate (fileno (scp_f_), good_scp_) != 0)
    *why += " (and cannot cut it back to its last whole entry: " +
        std::string (g_strerror (errno)) + ")";
  return false;
}

bool
Archive::close (std::string * why)
{
  bool ok = true;
  for (FILE ** f: {&ark_f_, &scp_f_}) {
    if (*f && fclose (*f) != 0 && ok) {
      *why = "cannot write " + (f == &ark_f_ ? ark_ : scp_) + ": " +
          g_strerror (errno);
      ok = false;
    }
    *f = nullptr;
  }
  return ok;
}

}  /* namespace afetx */
