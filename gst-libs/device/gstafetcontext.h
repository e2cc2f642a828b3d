/* The device one pipeline's afet elements share, passed between them (or set
 * by an application) as a GstContext.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include "device.h"

#include <memory>

G_BEGIN_DECLS

/* The OpenCL device (and its shared context) that afet elements use, as a
 * GstContext of type "afet.cl.context" whose structure holds it in the field
 * "context" (a GstAfetContext). Applications may set one on a pipeline to
 * choose the device of every afet element in it; the elements also find each
 * other's through context queries and need-context / have-context. */
#define GST_AFET_CONTEXT_TYPE "afet.cl.context"

#define GST_TYPE_AFET_CONTEXT (gst_afet_context_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetContext, gst_afet_context, GST, AFET_CONTEXT,
    GstObject);

G_END_DECLS

GstAfetContext *gst_afet_context_new (const std::shared_ptr<afet::Device> &
    device);
std::shared_ptr<afet::Device> gst_afet_context_get_device (GstAfetContext *
    ctx);

/* Finds the context an element should use when its device property was not
 * set explicitly: *ctx if already set (by the application), else a
 * neighbour's (context query downstream, then upstream), else one the
 * application gives in answer to need-context, else a new one for
 * request (AFET_DEVICE / auto), announced with have-context. */
gboolean gst_afet_ensure_element_context (GstElement * element,
    const char *request, GstAfetContext ** ctx, afet::Status * err);

/* An element's start: the context of the device it runs on, by
 * precedence an explicit device property (explicit_device: a new context
 * object for that device, replacing *ctx), then *ctx as the application
 * set it, a neighbour's, the application's answer to need-context, then
 * AFET_DEVICE / auto. Posts the error (naming the variable or property to
 * change) and returns FALSE when no device fits. Takes the element's
 * object lock to replace *ctx. */
gboolean gst_afet_acquire_element_context (GstElement * element,
    const std::string & request, bool explicit_device,
    GstAfetContext ** ctx);

/* set_context helper: keeps an afet context if the element has none. */
void gst_afet_handle_set_context (GstElement * element, GstContext * context,
    GstAfetContext ** ctx);

/* Answers a context query with ctx; FALSE if not ours or no context. */
gboolean gst_afet_handle_context_query (GstElement * element,
    GstQuery * query, GstAfetContext * ctx);

GstContext *gst_afet_context_to_gst (GstAfetContext * ctx);
