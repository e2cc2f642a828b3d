/* GstAfetBase's engine: built from the caps (set_caps), built again for a
 * longer run (afet_base_grow_batches), and kept from run to run when its
 * pipeline is reused from input to input.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A pipeline reused from input to input (afet-extract, afet.Extractor, any
 * application that sets READY between files) stops and starts its elements
 * for every file. Building the engine again each time (the element's
 * queue, its stages with their kernels, buffers and FFT plans, the device
 * history and output buffers) costs about 1-2 ms a file on NVIDIA's
 * driver, which serialises much of it between threads: more than
 * computing a 15 s file. So stop (PAUSED -> READY) keeps them, and the
 * next set_caps takes them back when nothing that decided them has
 * changed: the same device, equal input and output caps, no writable
 * property set since. Anything else builds afresh; READY -> NULL and
 * finalize give everything back. The engine-builds property counts the
 * builds (docs/elements.md). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase-private.h"

#define GST_CAT_DEFAULT gst_afet_base_debug

/* While an element applies its htk-config, the thread doing it (its own
 * property sets follow from the file and the input, and are not the
 * application's changes). Not a thread_local: LeakSanitizer's tracer
 * crashes on the dynamic TLS of a dlopen()ed plugin (GCC 12). */
void
afet_base_applying_config (GstAfetBase * self, gboolean on)
{
  PRIV (self)->config_thread.store (on ? g_thread_self () : nullptr);
}

void
afet_base_note_property_changes (GObject * object, guint n,
    GParamSpec ** pspecs)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  if (PRIV (self)->config_thread.load () != g_thread_self ()) {
    for (guint i = 0; i < n; i++)
      if (pspecs[i]->flags & G_PARAM_WRITABLE) {
        PRIV (self)->settings_changes++;
        GST_LOG_OBJECT (self, "%s set", pspecs[i]->name);
        break;
      }
  }
  /* GstObject's deep-notify */
  G_OBJECT_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM))->
      dispatch_properties_changed (object, n, pspecs);
}

void
afet_base_release_engine (GstAfetBase * self)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  if (p->configured && klass->release)
    klass->release (self);
  p->configured = false;
  if (p->pool) {
    gst_buffer_pool_set_active (p->pool, FALSE);
    gst_clear_object (&p->pool);
  }
  p->staging.reset ();
  p->context_mode = false;
  p->history.release ();
  afet_base_lanes_release (p);
  afet_base_chain_release (p);
  gst_clear_caps (&p->built_in);
  gst_clear_caps (&p->built_out);
}

/* The element's queue given back once its work is done (taken out under
 * the object lock, which the queue query reads it under), with whom it
 * was shared. */
static void
drop_queue (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->queue)
    clFinish (p->queue.get ());
  afet::ClQueue queue;
  GST_OBJECT_LOCK (self);
  queue.reset (p->queue.release ());
  p->queue_shared_up = false;
  p->queue_shared_down = false;
  GST_OBJECT_UNLOCK (self);
}

void
afet_base_release_all (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  afet_base_release_engine (self);
  drop_queue (self);
  GST_OBJECT_LOCK (self);
  p->device.reset ();
  GST_OBJECT_UNLOCK (self);
}

/* ---- one queue for a streaming thread's elements ---------------------- */

#define QUEUE_QUERY "afet-queue"

bool
afet_base_queue_is_query (GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return false;
  const GstStructure *s = gst_query_get_structure (query);
  return s && gst_structure_has_name (s, QUEUE_QUERY);
}

/* On the src pad: this element's device and queue (a new reference for
 * the asker) when the asker is its direct peer. */
gboolean
afet_base_queue_answer (GstAfetBase * self, GstQuery * query)
{
  GstAfetBaseState *p = PRIV (self);
  GstStructure *s = gst_query_writable_structure (query);
  gpointer from = nullptr;
  if (!gst_structure_get (s, "from", G_TYPE_POINTER, &from, nullptr) ||
      from != (gpointer) GST_BASE_TRANSFORM (self)->srcpad)
    return FALSE;
  GST_OBJECT_LOCK (self);
  cl_command_queue q = p->queue.get ();
  gpointer device = p->device.get ();
  if (q)
    clRetainCommandQueue (q);
  GST_OBJECT_UNLOCK (self);
  if (!q)
    return FALSE;
  gst_structure_set (s, "queue", G_TYPE_POINTER, (gpointer) q, "device",
      G_TYPE_POINTER, device, nullptr);
  /* the asker takes it when its device is this one, and says so
   * (afet_base_queue_taken, in this streaming thread) */
  return TRUE;
}

void
afet_base_queue_taken (GstAfetBase * self)
{
  PRIV (self)->queue_shared_down = true;
}

/* The queue of the element before when it is an afet element on the same
 * device that hands this one device memory (incaps): one in-order queue
 * for the elements of a streaming thread, so that a buffer passed between
 * them needs no marker, flush or barrier (gst_afet_cl_memory_set_written;
 * on an H200, afet-extract's 8 jobs spent 40 % of their OpenCL calls' time
 * in those for short files). Only the direct peer: an element after a
 * queue or a tee runs in another thread, whose work should not wait
 * behind this one's. Else the device's element queue. */
static afet::Status
afet_base_take_queue (GstAfetBase * self, GstCaps * incaps,
    afet::ClQueue * out, bool *shared)
{
  GstAfetBaseState *p = PRIV (self);
  GstPad *sink = GST_BASE_TRANSFORM (self)->sinkpad;
  GstPad *peer = afet_base_caps_have_cl_feature (incaps, 0) ?
      gst_pad_get_peer (sink) : nullptr;
  *shared = false;
  if (peer) {
    GstQuery *q = gst_query_new_custom (GST_QUERY_CUSTOM,
        gst_structure_new (QUEUE_QUERY, "from", G_TYPE_POINTER,
            (gpointer) peer, nullptr));
    GstObject *before = gst_pad_get_parent (peer);
    gst_object_unref (peer);
    gpointer queue = nullptr, device = nullptr;
    if (gst_pad_peer_query (sink, q))
      gst_structure_get (gst_query_get_structure (q), "queue",
          G_TYPE_POINTER, &queue, "device", G_TYPE_POINTER, &device,
          nullptr);
    gst_query_unref (q);
    if (queue && device == (gpointer) p->device.get () && before &&
        GST_IS_AFET_BASE (before)) {
      GST_DEBUG_OBJECT (self, "sharing the queue of the element before");
      afet_base_queue_taken (GST_AFET_BASE (before));
      gst_object_unref (before);
      out->reset ((cl_command_queue) queue);
      *shared = true;
      return afet::Status::Ok ();
    }
    if (before)
      gst_object_unref (before);
    if (queue)
      clReleaseCommandQueue ((cl_command_queue) queue);
  }
  return p->device->element_queue (out);
}

void
afet_base_park (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  /* a live stream in a lane gave its own history back; after an OpenCL
   * error nothing is trusted: build again */
  if (!p->configured || p->combiner || p->engine_failed) {
    p->engine_failed = false;
    afet_base_release_all (self);
    return;
  }
  if (p->queue)
    clFinish (p->queue.get ());
  GST_DEBUG_OBJECT (self, "engine kept for the next run");
}

void
afet_base_keep_for (GstAfetBase * self,
    const std::shared_ptr<afet::Device> &device)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->device && p->device != device) {
    GST_DEBUG_OBJECT (self, "another device: the kept engine goes");
    afet_base_release_all (self);
  }
}

gboolean
afet_base_reuse_engine (GstAfetBase * self, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAfetBaseState *p = PRIV (self);
  if (!p->configured || !p->built_in || !p->built_out ||
      p->built_settings != p->settings_changes.load () ||
      !gst_caps_is_equal (incaps, p->built_in) ||
      !gst_caps_is_equal (outcaps, p->built_out))
    return FALSE;
  /* max-batch 0: a longer stream than the engine was sized for builds a
   * larger one */
  if (p->built_batch > 0 && afet_base_wanted_batch (self, p->in.rate,
          p->in.S) > p->built_batch)
    return FALSE;
  GST_DEBUG_OBJECT (self, "same caps and settings: the engine is reused");
  return TRUE;
}

void
afet_base_note_built (GstAfetBase * self, GstCaps * incaps, GstCaps * outcaps,
    guint settings)
{
  GstAfetBaseState *p = PRIV (self);
  gst_caps_replace (&p->built_in, incaps);
  gst_caps_replace (&p->built_out, outcaps);
  p->built_settings = settings;
  GST_OBJECT_LOCK (self);
  p->engine_builds++;
  GST_OBJECT_UNLOCK (self);
}

/* READY -> NULL gives back what stop kept. */
GstStateChangeReturn
afet_base_change_state (GstElement * element, GstStateChange transition)
{
  GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_BASE_TRANSFORM))->
      change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    afet_base_release_all (GST_AFET_BASE (element));
  return ret;
}

/* Posts "<element> <what>: <why>" as the caps' refusal (and frees why);
 * FALSE, for set_caps to return. */
static gboolean
refuse (GstAfetBase * self, GstCaps * incaps, const gchar * what, gchar * why)
{
  gchar *msg = g_strdup_printf ("%s %s: %s", GST_ELEMENT_NAME (self), what,
      why);
  afet_base_post_refusal (self, incaps, msg);
  g_free (msg);
  g_free (why);
  return FALSE;
}

gboolean
afet_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  GstAfetInput in;
  AfetFeaturesInfo out;
  gchar *why = nullptr;

  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT,
      incaps, outcaps);
  afet_base_reset_stream (p);
  const guint settings = p->settings_changes.load ();
  if (afet_base_reuse_engine (self, incaps, outcaps)) {
    afet_base_engine_ready (self);
    return TRUE;
  }
  afet_base_release_engine (self);

  if (!afet_base_describe (self, incaps, &in, &out, &why))
    return refuse (self, incaps, "cannot take this input", why);
  AfetFeaturesInfo negotiated;
  if (!afet_features_info_from_caps (&negotiated, outcaps) ||
      !afet_features_info_is_equal (&negotiated, &out)) {
    gchar *msg = g_strdup_printf ("%s: downstream refused the output format "
        "%" GST_PTR_FORMAT, GST_ELEMENT_NAME (self), outcaps);
    afet_base_post_refusal (self, incaps, msg);
    g_free (msg);
    return FALSE;
  }
  if (!p->device) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE, ("No OpenCL device"),
        ("set_caps before start"));
    return FALSE;
  }
  /* the element's queue, taken here in the streaming thread rather than in
   * start, where live pipelines are started one after the other (why:
   * Device::element_queue) */
  /* an engine built again (new caps, the element before rebuilt or
   * another element linked): asks again whom it shares with */
  if (p->queue_shared_up || p->queue_shared_down)
    drop_queue (self);
  if (!p->queue) {
    afet::ClQueue queue;
    bool shared = false;
    afet::Status qs = afet_base_take_queue (self, incaps, &queue, &shared);
    if (!qs.ok ()) {
      afet_base_post_engine_error (self, qs.message ().c_str ());
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    p->queue = std::move (queue);
    p->queue_shared_up = shared;
    GST_OBJECT_UNLOCK (self);
  }
  afet_base_auto_batch (self, &in, out.dims);
  GstAfetEnv env;
  env.device = p->device;
  env.queue = p->queue.get ();
  env.stats = p->stats.get ();
  GstAfetNeeds needs;
  const gboolean configured = klass->configure (self, &env, &in, &out,
      &needs, &why);
  afet_base_post_engine_warnings (self);
  if (!configured)
    return refuse (self, incaps, "cannot start on this input", why);
  p->context_mode = needs.context;
  p->extent = needs.extent;
  p->lane_stage = needs.stage;
  p->in = in;
  p->out = out;
  p->in_device = afet_base_caps_have_cl_feature (incaps, 0);
  p->out_device = afet_base_caps_have_cl_feature (outcaps, 0);

  afet::Status st = afet_base_setup_output (self, outcaps);
  if (!st.ok ()) {
    afet_base_post_engine_error (self, st.message ().c_str ());
    return FALSE;
  }
  p->configured = true;
  afet_base_note_built (self, incaps, outcaps, settings);
  afet_base_engine_ready (self);
  GST_DEBUG_OBJECT (self, "input in %s memory, output in %s memory",
      p->in_device ? "device" : "system", p->out_device ? "device" : "system");
  return TRUE;
}

/* A run's start, max-batch 0, input that is not live: a stream longer
 * than the one the engine was sized for at set_caps (upstream's duration
 * now asks for larger batches: a short file, then a long one, with a
 * flush and no new caps between them) builds the engine again for it,
 * as set_caps with a longer stream would.  FALSE when that failed (posted). */
gboolean
afet_base_grow_batches (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  const gint most = p->device && !p->device->info ().is_cpu ?
      AUTO_BATCH_GPU : AUTO_BATCH_CPU;
  if (p->live || p->built_batch <= 0 || p->built_batch >= most ||
      afet_base_wanted_batch (self, p->in.rate, p->in.S, 0) <=
      p->built_batch)
    return TRUE;
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCaps *in = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  GstCaps *out = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SRC_PAD (trans));
  gboolean ok = in && out;
  if (ok) {
    GST_DEBUG_OBJECT (self, "a longer stream than batches of %d frames "
        "were built for: building again", p->built_batch);
    ok = afet_base_set_caps (trans, in, out);
  }
  if (in)
    gst_caps_unref (in);
  if (out)
    gst_caps_unref (out);
  return ok;
}
