/* Status, the engine's errors reported by value: a code and a message naming
 * the cause.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string>
#include <utility>

namespace afet {

/* The engine reports errors by value: no exception ever leaves it, so the
 * GStreamer elements above it can turn a failure into an element error. */
class Status
{
public:
  enum Code
  {
    OK = 0,
    NO_PLATFORM,      /* no OpenCL platform / ICD */
    NO_DEVICE,        /* no device matches the request */
    BAD_CONFIG,       /* the parameters cannot work */
    BUILD_FAILED,     /* a kernel failed to compile */
    OPENCL,           /* an OpenCL call failed */
    FFT,              /* VkFFT failed */
    GEMM,             /* CLBlast failed */
    FORKED,           /* OpenCL was used before this process was forked */
  };

  Status () = default;
  Status (Code code, std::string message)
      : code_ (code), message_ (std::move (message))
  {
  }

  static Status Ok () { return Status (); }

  bool ok () const { return code_ == OK; }
  Code code () const { return code_; }
  const std::string &message () const { return message_; }

private:
  Code code_ = OK;
  std::string message_;
};

/* Returns the symbolic name of an OpenCL error code (CL_INVALID_VALUE...). */
const char *cl_error_name (int err);

/* What a user can do about an OpenCL error, one sentence. */
const char *cl_error_advice (int err);

}  /* namespace afet */

#define AFET_RETURN_IF_ERROR(expr)                                          \
  do {                                                                      \
    ::afet::Status _afet_st = (expr);                                       \
    if (!_afet_st.ok ())                                                    \
      return _afet_st;                                                      \
  } while (0)
