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

/* The OpenCL device (with its cl_context) that one pipeline's afet elements
 * share, carried in a GstContext of type "afet.cl.context" whose structure
 * holds it in the field "context" (a GstAfetDevice). Applications may set
 * one on a pipeline to choose the device of every afet element in it; the
 * elements also find each other's through context queries and need-context /
 * have-context. The GstContext's type string and its field name stay as
 * they were when this object was called GstAfetContext, for the
 * applications that set or query them. */
#define GST_AFET_DEVICE_CONTEXT_TYPE "afet.cl.context"

#define GST_TYPE_AFET_DEVICE (gst_afet_device_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetDevice, gst_afet_device, GST, AFET_DEVICE,
    GstObject);

G_END_DECLS

GstAfetDevice *gst_afet_device_new (const std::shared_ptr<afet::Device> &
    device);
std::shared_ptr<afet::Device> gst_afet_device_get_device (GstAfetDevice *
    shared);

/* Finds the device an element should use when its device property was not
 * set explicitly: *shared if already set (by the application), else a
 * neighbour's (context query downstream, then upstream), else one the
 * application gives in answer to need-context, else a new one for
 * request (AFET_DEVICE / auto), announced with have-context. */
gboolean gst_afet_ensure_element_device (GstElement * element,
    const char *request, GstAfetDevice ** shared, afet::Status * err);

/* An element's start: the shared device it runs on, by precedence an
 * explicit device property (explicit_device: a new GstAfetDevice for that
 * device, replacing *shared), then *shared as the application set it, a
 * neighbour's, the application's answer to need-context, then
 * AFET_DEVICE / auto. Posts the error (naming the variable or property to
 * change) and returns FALSE when no device fits. Takes the element's
 * object lock to replace *shared. */
gboolean gst_afet_acquire_element_device (GstElement * element,
    const std::string & request, bool explicit_device,
    GstAfetDevice ** shared);

/* set_context helper: keeps the afet device of a GstContext set on the
 * element if the element has none. */
void gst_afet_handle_set_context (GstElement * element, GstContext * context,
    GstAfetDevice ** shared);

/* Answers a context query with shared; FALSE if not ours or no device. */
gboolean gst_afet_handle_context_query (GstElement * element,
    GstQuery * query, GstAfetDevice * shared);

/* A GstContext of type GST_AFET_DEVICE_CONTEXT_TYPE holding shared. */
GstContext *gst_afet_device_to_gst (GstAfetDevice * shared);
