/* GstAfetBase's engine reuse: an element's engine kept from run to run when
 * its pipeline is reused from input to input.
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
  gst_clear_caps (&p->built_in);
  gst_clear_caps (&p->built_out);
}

void
afet_base_release_all (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  afet_base_release_engine (self);
  if (p->queue)
    clFinish (p->queue.get ());
  p->queue.reset ();
  GST_OBJECT_LOCK (self);
  p->device.reset ();
  GST_OBJECT_UNLOCK (self);
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
