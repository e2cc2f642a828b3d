/* afet-extract's Kaldi archive (--ark): the archive and its index written
 * in list order, and resumed after an interrupted run.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <cstdio>
#include <map>
#include <string>

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
  /* appends one entry (afetenc's bytes: "KEY " and the matrix) */
  bool write (const std::string & key, const std::string & entry,
      std::string * why);
  bool close (std::string * why);

private:
  std::string ark_, scp_;
  FILE *ark_f_ = nullptr, *scp_f_ = nullptr;
};

}  /* namespace afetx */
