/* afet-extract's Kaldi archive (--ark): the archive and its index written
 * in list order, and resumed after an interrupted run.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <cstdio>
#include <map>
#include <string>

#include <sys/types.h>

namespace afetx
{

class Archive
{
public:
  ~Archive ();
  /* Opens ark (NAME.ark) and its index NAME.scp for writing.  resume:
   * keep the complete entries an earlier run wrote (their keys in *have)
   * and drop a partial one at the end; else both start empty. */
  bool open (const std::string & ark, bool resume,
      std::map<std::string, bool> *have, std::string * why);
  /* Appends one entry (afetenc's bytes: "KEY " and the matrix), then its
   * line in the index.  A failed write (a full disk) is an error, and
   * both files are cut back to their last whole entry. */
  bool write (const std::string & key, const std::string & entry,
      std::string * why);
  /* closes both; false if what was buffered could not be written */
  bool close (std::string * why);
  /* the entries written by this run */
  size_t entries () const
  {
    return entries_;
  }
  const std::string & index () const
  {
    return scp_;
  }

private:
  std::string ark_, scp_;
  FILE *ark_f_ = nullptr, *scp_f_ = nullptr;
  off_t good_ark_ = 0, good_scp_ = 0;   /* the ends of the whole entries */
  size_t entries_ = 0;
};

}  /* namespace afetx */
