/* AFET_FEATURES_API, the export mark of the gstafetfeatures library's public
 * symbols.
 * Copyright (C) 2026 the afet authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with this library; if not, see
 * <https://www.gnu.org/licenses/>.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __AFET_FEATURES_PRELUDE_H__
#define __AFET_FEATURES_PRELUDE_H__

#include <gst/gst.h>

/**
 * AFET_FEATURES_API:
 *
 * Marks a symbol as part of the public API of the gstafetfeatures
 * library.  The library itself is compiled with `BUILDING_AFET_FEATURES`
 * defined so that the symbols are exported; users of the library get the
 * import variant.
 *
 * Since: 0.1
 */
#ifndef AFET_FEATURES_API
# ifdef BUILDING_AFET_FEATURES
#  define AFET_FEATURES_API GST_API_EXPORT
# else
#  define AFET_FEATURES_API GST_API_IMPORT
# endif
#endif

#endif /* __AFET_FEATURES_PRELUDE_H__ */
