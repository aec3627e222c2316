/// The kdebug tap helper launchbench runs with pymobiledevice3's Python (one process per device, for a whole
/// run). It is kept in the binary, not beside it, so an installed launchbench behaves as a clone does; it is
/// written to a temporary file when first needed. Why a helper and not `pymobiledevice3 developer dvt
/// core-profile-session parse-live`: the CLI prints each interval with its start time only (no end, so no
/// duration), in end order, matches processes by a 16-character name, and needs a second connection to
/// launch. See Documentation/Design.md.
enum KdebugTapScript {
    static let source = #"""
        """launchbench's kdebug tap: arms a device's core profile session once and streams its raw kdebug chunks.

        One process per device for a whole run (pymobiledevice3 11.45.0's Python API). launchbench decodes the
        records itself; this helper only connects, arms the session with dyld, exec and string filters (no
        callstack sampling), and forwards what the device sends, one JSON object a line on stdout:
          {"type": "ready", "numer": N, "denom": D, "mach_absolute_time": T}   once the session runs
          {"type": "chunk", "data": "<base64>"}                                  each kdebug chunk, as sent
          {"type": "notice", "notice": "...", "status": N}                       a notice from the device
          {"type": "error", "kind": "kperf-locked|version|connect|compressed|lost", "message": "..."}   then exits 3
        Closing its stdin stops the session and ends it (exit 0).
        Usage: python3 kdebug_tap.py --udid UDID [--usbmux ADDRESS] [--transport lockdown|userspace|tunneld]
                                     [--tunneld HOST:PORT]"""
        import argparse
        import asyncio
        import base64
        import json
        import sys
        import threading

        PINNED = "11.45.0"
        # (class << 24) | (subclass << 16): dyld timing and UUID maps; exec, new thread, strings, lost events;
        # UIKit's Initial Frame Rendering (first frame).
        FILTERS = {0x1F070000, 0x1F050000, 0x07000000, 0x07010000, 0x07020000, 0x31CA0000}
        START_TIMEOUT_SECONDS = 20


        def emit(obj):
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()


        def fail(kind, message):
            emit({"type": "error", "kind": kind, "message": message})
            sys.exit(3)


        def check_version():
            try:
                from importlib.metadata import version
                found = version("pymobiledevice3")
            except Exception:
                fail("version", "pymobiledevice3 is not importable by this Python")
            if found != PINNED:
                fail("version", f"pymobiledevice3 {found} is installed; launchbench's kdebug tap needs {PINNED}")


        async def connect(args):
            if args.transport == "userspace":
                from pymobiledevice3.remote.userspace_tunnel import UserspaceRsdTunnel
                tunnel = UserspaceRsdTunnel(serial=args.udid)
                return await tunnel.aopen(), tunnel
            if args.transport == "tunneld":
                from pymobiledevice3.tunneld.api import get_tunneld_device_by_udid
                host, _, port = args.tunneld.rpartition(":")
                rsd = await get_tunneld_device_by_udid(args.udid, (host or "127.0.0.1", int(port)))
                if rsd is None:
                    fail("connect", f"tunneld at {args.tunneld} serves no tunnel for {args.udid}")
                return rsd, None
            from pymobiledevice3.lockdown import create_using_usbmux
            return await create_using_usbmux(serial=args.udid, usbmux_address=args.usbmux), None


        def failure_kind(error):
            """A DTX message of type COMPRESSED (LZ4, which some phones send) is refused by pymobiledevice3's reader
            with DTXProtocolError("Received compressed fragment ..."): named, not reported as a lost connection."""
            if type(error).__name__ == "DTXProtocolError" and "compressed" in str(error).lower():
                return "compressed"
            return "lost"


        def notice_of(data):
            from bpylist2 import archiver
            try:
                decoded = archiver.unarchive(data)
            except Exception:
                return None
            return decoded if isinstance(decoded, dict) else None


        async def run(args):
            from pymobiledevice3.services.dvt.instruments.core_profile_session_tap import CoreProfileSessionTapChannel
            from pymobiledevice3.services.dvt.instruments.device_info import DeviceInfo
            from pymobiledevice3.services.dvt.instruments.dvt_provider import DvtProvider

            try:
                provider, tunnel = await connect(args)
            except SystemExit:
                raise
            except Exception as error:
                fail("connect", f"cannot reach the instruments service of {args.udid}: {error!r}")
            stopped = asyncio.Event()
            loop = asyncio.get_running_loop()

            def watch_stdin():  # launchbench closes stdin to stop the session
                sys.stdin.buffer.read()
                loop.call_soon_threadsafe(stopped.set)

            threading.Thread(target=watch_stdin, daemon=True).start()
            try:
                async with DvtProvider(provider) as dvt:
                    async with DeviceInfo(dvt) as info:
                        time_info = await info.mach_time_info()
                    channel = CoreProfileSessionTapChannel(dvt)
                    await channel.connect()
                    service = channel.service
                    trigger = {"kdf2": FILTERS, "ta": [[0], [2]], "tk": 3, "uuid": "launchbench-kdebug"}
                    await service.set_config_({"tc": [trigger], "rp": 100, "bm": 0, "ur": 100})
                    await service.start()
                    first = await asyncio.wait_for(service.messages.get(), START_TIMEOUT_SECONDS)
                    notice = notice_of(first) if first.startswith(b"bplist") else None
                    if notice is not None and isinstance(notice.get("status"), int) and notice["status"] != 0:
                        fail("kperf-locked", str(notice.get("notice", "")))
                    emit({"type": "ready", "mach_absolute_time": time_info[0], "numer": time_info[1],
                          "denom": time_info[2]})
                    if notice is None:
                        emit({"type": "chunk", "data": base64.b64encode(first).decode()})
                    while not stopped.is_set():
                        getter = asyncio.ensure_future(service.messages.get())
                        stopper = asyncio.ensure_future(stopped.wait())
                        done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                        if getter not in done:
                            getter.cancel()
                            break
                        stopper.cancel()
                        data = getter.result()
                        if not data:
                            fail("lost", "the device closed the instruments connection")
                        if data.startswith(b"bplist"):
                            decoded = notice_of(data) or {}
                            emit({"type": "notice", "notice": str(decoded.get("notice", "")),
                                  "status": decoded.get("status") if isinstance(decoded.get("status"), int) else None})
                            continue
                        emit({"type": "chunk", "data": base64.b64encode(data).decode()})
                    await service.stop()
            except SystemExit:
                raise
            except asyncio.TimeoutError:
                fail("connect", "the device did not start the core profile session")
            except Exception as error:
                if type(error).__name__ in ("InvalidServiceError", "StartServiceError"):
                    # No instruments service: before iOS 14 (the old one is not used), or no Developer Disk Image.
                    fail("connect", f"the device does not offer the instruments service ({type(error).__name__})")
                fail(failure_kind(error), f"the instruments connection to {args.udid} failed: {error!r}")
            finally:
                if tunnel is not None:
                    await tunnel.aclose()


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--udid", required=True)
            parser.add_argument("--usbmux")
            parser.add_argument("--transport", choices=["lockdown", "userspace", "tunneld"], default="lockdown")
            parser.add_argument("--tunneld", default="127.0.0.1:49151")
            args = parser.parse_args()
            check_version()
            asyncio.run(run(args))


        if __name__ == "__main__":
            main()
        """#
}
