# SPDX-License-Identifier: GPL-2.0
"""The kstats command: "python3 -m kstats", and the zipapp's __main__.py
(hence the absolute import)."""

# Ctrl-C while the modules load ends the tool quietly, as the signal's
# default does; run() takes SIGINT back once it can report it.
import signal
signal.signal(signal.SIGINT, signal.SIG_DFL)

from kstats.cli import run  # noqa: E402  (after the signal, on purpose)

if __name__ == '__main__':
    run()
