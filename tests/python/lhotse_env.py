# Finds the python3 with lhotse and torch for the afet.lhotse tests: this
# one, or the venv tools/install-deps.sh makes; else skips or, in CI, fails.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""need_lhotse(script): returns when lhotse, torch, lilcom (and, with dask=True,
distributed) import here; else re-runs the script under the venv's python3
(AFET_LHOTSE_VENV, default /opt/afet-lhotse) when it has them; else exits
77 (skipped) naming what is missing and the fix, or 1 when CI is set."""

import os
import sys

VENV = os.environ.get("AFET_LHOTSE_VENV", "/opt/afet-lhotse")


def need_lhotse(script, dask=False):
    try:
        import torch  # noqa: F401
        import lhotse  # noqa: F401
        import lilcom  # noqa: F401
        if dask:
            import distributed  # noqa: F401
        import gi  # noqa: F401
        return
    except ImportError as e:
        missing = e
    venv_py = os.path.join(VENV, "bin", "python3")
    if os.path.exists(venv_py) and \
            os.environ.get("AFET_LHOTSE_REEXEC") != "1":
        os.environ["AFET_LHOTSE_REEXEC"] = "1"
        sys.stdout.flush()
        os.execv(venv_py, [venv_py, script] + sys.argv[1:])
    ci = bool(os.environ.get("CI"))
    print("%s: %s under %s (and no venv with it at %s): the afet.lhotse "
          "tests need lhotse, torch, lilcom%s; tools/install-deps.sh installs "
          "them there (or: pip install torch lhotse urllib3 lilcom%s)" %
          ("failed" if ci else "skipped", missing, sys.executable, VENV,
           ", dask, distributed" if dask else "",
           " dask distributed" if dask else ""))
    sys.exit(1 if ci else 77)
