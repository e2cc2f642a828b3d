/* ClHandle: OpenCL handles (memory, kernels, queues, events...) owned by a
 * wrapper that releases them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <CL/cl.h>

#include <memory>
#include <type_traits>

namespace afet {

/* Owning wrappers for OpenCL handles: the handle is released when the
 * wrapper goes, and moves transfer ownership. */
template <typename T, cl_int (*Release) (T)>
class ClHandle
{
  struct Drop
  {
    void operator() (T h) const
    {
      if (h)
        Release (h);
    }
  };
  std::unique_ptr<std::remove_pointer_t<T>, Drop> h_;

public:
  ClHandle () = default;
  explicit ClHandle (T h) : h_ (h) {}
  T get () const { return h_.get (); }
  void reset (T h = nullptr) { h_.reset (h); }
  /* Gives up ownership. */
  T release () { return h_.release (); }
  explicit operator bool () const { return h_ != nullptr; }
};

using ClMem = ClHandle<cl_mem, clReleaseMemObject>;
using ClKernel = ClHandle<cl_kernel, clReleaseKernel>;
using ClProgram = ClHandle<cl_program, clReleaseProgram>;
using ClQueue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using ClContext = ClHandle<cl_context, clReleaseContext>;
using ClEvent = ClHandle<cl_event, clReleaseEvent>;

}  /* namespace afet */
