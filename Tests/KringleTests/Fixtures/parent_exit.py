"""What the test servers written in Python share: waiting for the test process to exit.

A server the tests start serves until its parent exits, so a test process that dies never
leaves a server behind. The wait is woken by the kernel (a pidfd on Linux, a kqueue on
macOS): no polling.
"""
import os
import select


# Read when the server starts (it imports this first): a parent that died while the server
# was binding its ports would by then have made this process a child of init.
PARENT = os.getppid()


def wait_for_exit(pid=PARENT):
    """Blocks until process `pid` (by default the parent that started this one) exits."""
    if hasattr(os, "pidfd_open"):
        descriptor = os.pidfd_open(pid)  # readable once the process has exited
        select.select([descriptor], [], [])
    else:
        queue = select.kqueue()
        event = select.kevent(pid, filter=select.KQ_FILTER_PROC, flags=select.KQ_EV_ADD, fflags=select.KQ_NOTE_EXIT)
        queue.control([event], 1)
