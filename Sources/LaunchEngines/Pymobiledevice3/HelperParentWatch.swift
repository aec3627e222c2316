/// Ends a Python helper (the debugserver sidecar, the kdebug helper) once the launchbench that started it is
/// gone. launchbench stops its helpers when it exits, also on Ctrl-C; a `kill -9` (a CI job killed at its
/// time limit) runs no exit handler, and the helper would go on holding its tunnel to the phone on a shared
/// host until someone kills it. Loaded with ``Pymobiledevice3ChecksumFix`` through the `sitecustomize.py` on
/// the helpers' `PYTHONPATH`: a thread notices the parent changing (orphans are reparented to init or a
/// subreaper) within a second and sends the helper SIGTERM, then exits it outright if that is ignored.
enum HelperParentWatch {
    static let source = """
        # Written by launchbench (Sources/LaunchEngines/Pymobiledevice3/HelperParentWatch.swift): a helper
        # whose launchbench was killed (kill -9 runs no exit handler) ends itself instead of lingering.
        try:
            import os as _os
            import signal as _signal
            import threading as _threading
            import time as _time

            _parent = _os.getppid()

            def _watch_parent():
                while _os.getppid() == _parent:
                    _time.sleep(1)
                _os.kill(_os.getpid(), _signal.SIGTERM)
                _time.sleep(5)
                _os._exit(1)

            if _parent > 1:
                _threading.Thread(target=_watch_parent, name="launchbench-parent-watch", daemon=True).start()
        except Exception:
            pass
        """
}
