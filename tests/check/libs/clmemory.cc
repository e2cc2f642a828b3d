/* Tests of GstAfetCLMemory's release and waits (gst-libs/device/
 * gstafetclmemory.h): freeing device memory whose reads are still queued
 * never waits, a region's block goes back to its pool only to be reused
 * after them, and work recorded without an event is waited for.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stream's thread drops its input as soon as the next launch that reads
 * it is queued; freeing the memory used to wait for that read, so every
 * live stream's thread of afetdelta waited for the device. Here the read
 * is held back by a user event: the free must return while it is pending
 * (a thread that frees it and a 60 s guard against a hang), for a memory
 * of its own and for a region of a pool block, and the block must not be
 * handed out again before the read completes. Then the same with work
 * recorded by its queue and no event (set_written, add_read_queue: the
 * elements of one streaming thread share a queue): readers and writers on
 * other queues and the host wait for it, each case held back by a user
 * event so that one that did not wait would read the wrong values.
 */
#include "../../engine/enginecheck.h"
#include "clutil.h"
#include "gstafetclmemory.h"

#include <gst/gst.h>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

using enginecheck::check;

/* Frees mem in a thread of its own: whether that returned within 60 s
 * while the read it records is held back; then lets the read run. */
static bool
free_returns (GstMemory * mem, cl_event gate)
{
  std::packaged_task<void ()> task ([mem] { gst_memory_unref (mem); });
  std::future<void> done = task.get_future ();
  std::thread t (std::move (task));
  bool returned = done.wait_for (std::chrono::seconds (60)) ==
      std::future_status::ready;
  clSetUserEventStatus (gate, CL_COMPLETE);
  t.join ();
  return returned;
}

/* A read of mem's buffer on queue, held back by a new user event (*gate),
 * recorded on mem as a read. */
static bool
held_read (std::shared_ptr<afet::Device> &device, cl_command_queue queue,
    GstMemory * mem, afet::ClMem *dst, cl_event *gate)
{
  cl_int err = CL_SUCCESS;
  *gate = clCreateUserEvent (device->context (), &err);
  afet::Status st = afet::make_buffer (device->context (), CL_MEM_READ_WRITE,
      mem->size, nullptr, dst);
  GstMapInfo map;
  if (err != CL_SUCCESS || !st.ok () || !gst_memory_map (mem, &map,
          (GstMapFlags) (GST_MAP_READ | GST_MAP_AFET_CL)))
    return false;
  cl_event read = nullptr;
  err = clEnqueueCopyBuffer (queue, (cl_mem) map.data, dst->get (),
      gst_afet_cl_memory_get_origin (mem), 0, mem->size, 1, gate, &read);
  gst_memory_unmap (mem, &map);
  clFlush (queue);
  if (err != CL_SUCCESS)
    return false;
  gst_afet_cl_memory_add_read_event (mem, read);
  return true;
}

/* A memory of n floats on queue, filled with -1 (done), then written with
 * src on wq, held back by a new user event (*gate) and recorded without an
 * event (set_written). */
static GstMemory *
held_write (std::shared_ptr<afet::Device> &device, cl_command_queue queue,
    cl_command_queue wq, const std::shared_ptr<afet::TransferStats> &stats,
    const std::vector<float> &src, cl_event *gate)
{
  afet::Status st;
  const gsize bytes = src.size () * sizeof (float);
  GstMemory *mem = gst_afet_cl_memory_new (device, queue, stats, bytes, &st);
  if (!mem)
    return nullptr;
  cl_int err = CL_SUCCESS;
  *gate = clCreateUserEvent (device->context (), &err);
  std::vector<float> fill (src.size (), -1.0f);
  GstMapInfo map;
  if (err != CL_SUCCESS || !gst_memory_map (mem, &map, (GstMapFlags)
          (GST_MAP_WRITE | GST_MAP_AFET_CL))) {
    gst_memory_unref (mem);
    return nullptr;
  }
  err = clEnqueueWriteBuffer (wq, (cl_mem) map.data, CL_TRUE, 0, bytes,
      fill.data (), 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clEnqueueWriteBuffer (wq, (cl_mem) map.data, CL_FALSE, 0, bytes,
        src.data (), 1, gate, nullptr);
  gst_memory_unmap (mem, &map);
  if (err != CL_SUCCESS) {
    gst_memory_unref (mem);
    return nullptr;
  }
  gst_afet_cl_memory_set_written (mem, wq);
  return mem;
}

/* A host map of mem in a thread of its own, the gate let go meanwhile:
 * what the map read. */
static std::vector<float>
map_while_held (GstMemory * mem, cl_event gate, size_t n)
{
  std::vector<float> got (n, 0.0f);
  std::thread t ([mem, &got] {
    GstMapInfo map;
    if (gst_memory_map (mem, &map, GST_MAP_READ)) {
      std::memcpy (got.data (), map.data, got.size () * sizeof (float));
      gst_memory_unmap (mem, &map);
    }
  });
  std::this_thread::sleep_for (std::chrono::milliseconds (50));
  clSetUserEventStatus (gate, CL_COMPLETE);
  t.join ();
  return got;
}

/* Writes and reads recorded without an event (set_written,
 * add_read_queue): a reader on the writer's queue waits for nothing, one on
 * another queue or the host waits for the held-back write (it would read
 * -1 otherwise), a writer waits for a held-back read on another queue,
 * and a region's block is not handed out again while such a read is
 * queued. */
static void
unmarked (std::shared_ptr<afet::Device> &device, cl_command_queue queue,
    const std::shared_ptr<afet::TransferStats> &stats)
{
  afet::ClQueue other_q;
  afet::Status st = device->create_queue (&other_q);
  check (st.ok (), "a second queue");
  if (!st.ok ())
    return;
  cl_command_queue other = other_q.get ();
  const size_t n = 1024;
  std::vector<float> src (n), got (n, 0.0f);
  for (size_t i = 0; i < n; i++)
    src[i] = (float) i + 0.5f;

  /* a device reader on another queue */
  cl_event gate = nullptr;
  GstMemory *mem = held_write (device, queue, queue, stats, src, &gate);
  check (mem != nullptr, "a held-back write");
  if (mem) {
    guint64 waits = 0;
    st = gst_afet_cl_memory_sync (mem, queue, FALSE, &waits);
    check (st.ok () && waits == 0, "a reader on the writer's queue does not "
        "wait");
    st = gst_afet_cl_memory_sync (mem, other, FALSE, &waits);
    check (st.ok () && waits == 1, "a reader on another queue waits");
    GstMapInfo map;
    cl_int err = CL_INVALID_VALUE;
    if (gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      err = clEnqueueReadBuffer (other, (cl_mem) map.data, CL_FALSE, 0,
          n * sizeof (float), got.data (), 0, nullptr, nullptr);
      gst_memory_unmap (mem, &map);
    }
    clFlush (other);
    std::this_thread::sleep_for (std::chrono::milliseconds (50));
    clSetUserEventStatus (gate, CL_COMPLETE);
    clFinish (other);
    check (err == CL_SUCCESS && got == src, "the reader on another queue "
        "read what the held-back write wrote");
    clReleaseEvent (gate);
    clFinish (queue);
    gst_memory_unref (mem);
  }

  /* the host, on the writer's queue and on another */
  for (int q = 0; q < 2; q++) {
    mem = held_write (device, queue, q ? other : queue, stats, src, &gate);
    check (mem != nullptr, "a held-back write");
    if (!mem)
      continue;
    got = map_while_held (mem, gate, n);
    check (got == src, q ? "a host map waits for a write on another queue" :
        "a host map waits for a write on its memory's queue");
    clReleaseEvent (gate);
    clFinish (queue);
    clFinish (other);
    gst_memory_unref (mem);
  }

  /* a writer after a held-back read on another queue */
  mem = held_write (device, queue, queue, stats, src, &gate);
  check (mem != nullptr, "a held-back write");
  if (mem) {
    clSetUserEventStatus (gate, CL_COMPLETE);
    clReleaseEvent (gate);
    cl_int err = CL_SUCCESS;
    cl_event read_gate = clCreateUserEvent (device->context (), &err);
    GstMapInfo map;
    bool ok = gst_afet_cl_memory_sync (mem, other, FALSE).ok () && err == CL_SUCCESS &&
        gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL));
    std::vector<float> next (n, 7.0f);
    if (ok) {
      err = clEnqueueReadBuffer (other, (cl_mem) map.data, CL_FALSE, 0,
          n * sizeof (float), got.data (), 1, &read_gate, nullptr);
      clFlush (other);
      gst_afet_cl_memory_add_read_queue (mem, other);
      gst_afet_cl_memory_add_read_queue (mem, queue);
      guint64 waits = 0;
      st = gst_afet_cl_memory_sync (mem, queue, TRUE, &waits);
      check (st.ok () && waits == 1, "a writer waits for a read on another "
          "queue");
      if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer (queue, (cl_mem) map.data, CL_FALSE, 0,
            n * sizeof (float), next.data (), 0, nullptr, nullptr);
      clFlush (queue);
      gst_memory_unmap (mem, &map);
      std::this_thread::sleep_for (std::chrono::milliseconds (50));
    }
    if (read_gate) {
      clSetUserEventStatus (read_gate, CL_COMPLETE);
      clReleaseEvent (read_gate);
    }
    clFinish (other);
    clFinish (queue);
    check (ok && err == CL_SUCCESS && got == src, "the held-back read read "
        "what was there before the writer's write");
    gst_memory_unref (mem);
  }

  /* a region whose read on another queue is held back */
  auto pool = afet::BlockPool::make (device->context ());
  std::shared_ptr<afet::DeviceBlock> block;
  const gsize bytes = n * sizeof (float);
  st = pool->acquire (2 * bytes, queue, &block);
  check (st.ok (), "a pool block");
  if (!st.ok ())
    return;
  GstMemory *region = gst_afet_cl_memory_new_region (device, queue, stats,
      block, bytes, bytes, nullptr);
  block.reset ();
  cl_int err = CL_SUCCESS;
  gate = clCreateUserEvent (device->context (), &err);
  GstMapInfo map;
  afet::ClMem dst;
  st = afet::make_buffer (device->context (), CL_MEM_READ_WRITE, bytes,
      nullptr, &dst);
  bool ok = st.ok () && err == CL_SUCCESS && gst_memory_map (region, &map,
      (GstMapFlags) (GST_MAP_READ | GST_MAP_AFET_CL));
  if (ok) {
    err = clEnqueueCopyBuffer (other, (cl_mem) map.data, dst.get (),
        gst_afet_cl_memory_get_origin (region), 0, bytes, 1, &gate, nullptr);
    gst_memory_unmap (region, &map);
    ok = err == CL_SUCCESS;
    gst_afet_cl_memory_add_read_queue (region, other);
  }
  check (ok, "a held-back read of a region, recorded without an event");
  gst_memory_unref (region);
  std::shared_ptr<afet::DeviceBlock> next;
  st = pool->acquire (2 * bytes, queue, &next);
  check (st.ok () && pool->reused () == 0, "the region's block is not handed "
      "out again while its unmarked read is queued");
  next.reset ();
  clSetUserEventStatus (gate, CL_COMPLETE);
  clReleaseEvent (gate);
  clFinish (other);
  st = pool->acquire (2 * bytes, queue, &next);
  check (st.ok () && pool->reused () == 1, "once the read is done, the "
      "block is handed out again");
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  std::shared_ptr<afet::Device> device;
  afet::Status st = afet::acquire_device ("auto", &device);
  if (!st.ok ()) {
    std::printf ("no OpenCL device: %s\n0 passed, 1 failed\n",
        st.message ().c_str ());
    return 1;
  }
  afet::ClQueue queue;
  st = device->create_queue (&queue);
  check (st.ok (), "a queue");
  if (!st.ok ())
    return enginecheck::finish ();
  auto stats = std::make_shared<afet::TransferStats> ();
  const gsize bytes = 4096;

  /* a memory of its own */
  GstMemory *own = gst_afet_cl_memory_new (device, queue.get (), stats,
      bytes, &st);
  check (own != nullptr, "a device memory");
  afet::ClMem dst;
  cl_event gate = nullptr;
  bool ok = own && held_read (device, queue.get (), own, &dst, &gate);
  check (ok, "a read of it held back");
  if (ok)
    check (free_returns (own, gate), "freeing a device memory does not "
        "wait for its queued reads");
  if (gate)
    clReleaseEvent (gate);
  clFinish (queue.get ());

  /* a region of a pool block: the block is not handed out again before
   * the region's read is done, then it is */
  auto pool = afet::BlockPool::make (device->context ());
  std::shared_ptr<afet::DeviceBlock> block;
  st = pool->acquire (2 * bytes, queue.get (), &block);
  check (st.ok (), "a pool block");
  if (!st.ok ())
    return enginecheck::finish ();
  GstMemory *region = gst_afet_cl_memory_new_region (device, queue.get (),
      stats, block, bytes, bytes, nullptr);
  block.reset ();
  gate = nullptr;
  ok = held_read (device, queue.get (), region, &dst, &gate);
  check (ok, "a read of a region held back");
  std::shared_ptr<afet::DeviceBlock> next;
  if (ok) {
    /* free the region while the read waits: the block's use is pending */
    std::packaged_task<void ()> task ([region] { gst_memory_unref (region); });
    std::future<void> done = task.get_future ();
    std::thread t (std::move (task));
    bool returned = done.wait_for (std::chrono::seconds (60)) ==
        std::future_status::ready;
    check (returned, "freeing a region does not wait for its queued reads");
    if (returned) {
      st = pool->acquire (2 * bytes, queue.get (), &next);
      check (st.ok () && pool->reused () == 0, "the region's block is not "
          "handed out again while its read is queued");
      next.reset ();
    }
    clSetUserEventStatus (gate, CL_COMPLETE);
    t.join ();
    clFinish (queue.get ());
    st = pool->acquire (2 * bytes, queue.get (), &next);
    check (st.ok () && pool->reused () == 1, "once the read is done, the "
        "block is handed out again");
  }
  if (gate)
    clReleaseEvent (gate);
  clFinish (queue.get ());
  unmarked (device, queue.get (), stats);
  return enginecheck::finish ();
}
