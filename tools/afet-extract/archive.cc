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
    unsigned char h[15];
    if (!f || fseeko (f, (off_t) off, SEEK_SET) != 0 ||
        fread (h, 1, 15, f) != 15 || h[0] != 0 || h[1] != 'B' ||
        h[5] != 4 || h[10] != 4)
      break;                    /* that entry is not complete */
    guint32 rows, cols;
    memcpy (&rows, h + 6, 4);
    memcpy (&cols, h + 11, 4);
    rows = GUINT32_FROM_LE (rows);
    cols = GUINT32_FROM_LE (cols);
    const guint64 e = off + 15 + (guint64) rows * cols * 4;
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
    if (scp_f_)
      fputs (kept.c_str (), scp_f_);
  }
  if (!ark_f_ || !scp_f_) {
    *why = "cannot write " + ark_ + " or " + scp_ + ": " + g_strerror (errno);
    return false;
  }
  return true;
}

bool
Archive::write (const std::string & key, const std::string & entry,
    std::string *)
{
  const long pos = ftell (ark_f_);
  fwrite (entry.data (), 1, entry.size (), ark_f_);
  fflush (ark_f_);
  fprintf (scp_f_, "%s %s:%ld\n", key.c_str (), ark_.c_str (),
      pos + (long) key.size () + 1);
  fflush (scp_f_);
  return true;
}

bool
Archive::close (std::string *)
{
  if (ark_f_)
    fclose (ark_f_);
  if (scp_f_)
    fclose (scp_f_);
  ark_f_ = scp_f_ = nullptr;
  return true;
}

}  /* namespace afetx */
