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
          {"type": "error", "kind": "kperf-locked|version|connect|developer-mode|compressed|lost", "message": "..."}
              then exits 3
        It also launches, finds and ends apps through processcontrol on the same DTX connection, without a
        debugger, when asked on stdin (one JSON object a line; "id" is echoed in the answer):
          {"cmd": "launch", "id": N, "bundle": B, "args": [...], "env": {...}, "kill_existing": true}
              -> {"type": "launched", "id": N, "pid": P}
          {"cmd": "kill", "id": N, "pid": P}      -> {"type": "killed", "id": N, "pid": P}
          {"cmd": "pid", "id": N, "bundle": B}    -> {"type": "pid", "id": N, "pid": P}   (0: not running)
          a command the device refuses            -> {"type": "refused", "id": N, "cmd": C, "error": E, "message": M}
              with the phone's NSError, if it sent one, and those under it (NSUnderlyingError), outermost first:
              "errors": [{"domain", "code", "code_name", "description", "reason"}, ...]
        and forwards the processes' output and ends as the device reports them:
          {"type": "output", "pid": P, "text": "..."}                      as sent: part of a line or several
          {"type": "terminated", "pid": P, "exit_code": X, "signal": S}   the one that does not apply is null
          {"type": "control-lost", "reason": R}   the processcontrol channel closed: no more events of its processes
        Closing its stdin stops the session and ends it (exit 0). On stderr (its log) it writes machTimeInfo's whole
        reply and the session's first four messages (size, first bytes, a notice decoded), for a bug report.
        Usage: python3 kdebug_tap.py --udid UDID [--usbmux ADDRESS] [--transport lockdown|userspace|tunneld]
                                     [--tunneld HOST:PORT] [--page-faults]"""
        import argparse
        import asyncio
        import base64
        import json
        import sys
        import threading

        PINNED = "11.45.0"
        # (class << 24) | (subclass << 16): dyld timing and UUID maps; exec, new thread, strings, lost events;
        # UIKit's Initial Frame Rendering (first frame) and lifecycle codes (DBG_ARIADNE 0x87).
        FILTERS = {0x1F070000, 0x1F050000, 0x07000000, 0x07010000, 0x07020000, 0x31CA0000, 0x2B870000}
        # With --page-faults: DBG_MACH_VM, whose MACH_vmfault (0x01300008) gives page-ins.
        PAGE_FAULTS = 0x01300000
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


        def observed_process_control():
            """processcontrol whose output events and termination notices go to stdout: pymobiledevice3 queues the
            output for a reader and only logs the notices. Both take any arguments: go-ios saw an iOS 26 phone
            send outputReceived with none (its dtx_codec test "device sends outputReceived with no arguments")."""
            from pymobiledevice3.dtx import dtx_on_invoke
            from pymobiledevice3.services.dvt.instruments.process_control import (OutputReceivedEvent,
                                                                                  ProcessControlService)

            def number(value):
                value = getattr(value, "value", value)
                return value if isinstance(value, int) and not isinstance(value, bool) else None

            class Observed(ProcessControlService):
                @dtx_on_invoke("outputReceived:fromProcess:atTime:")
                async def _on_output_received(self, *args):
                    if len(args) >= 2 and isinstance(args[0], str):
                        event = OutputReceivedEvent.create(list(args) + [None] * (3 - len(args)))
                        emit({"type": "output", "pid": number(event.pid), "text": event.message})

                @dtx_on_invoke("processWithPID:terminatedWithExitCode:orCrashingSignal:")
                async def _on_process_terminated(self, *args):
                    if len(args) == 3 and number(args[0]) is not None:
                        emit({"type": "terminated", "pid": number(args[0]), "exit_code": number(args[1]),
                              "signal": number(args[2])})

                def on_closed(self, reason=""):
                    """The channel closed under its processes (the phone cancelled it: dtx/service.py
                    _recv_channel_cancelled): their output and ends will not come; the next command reopens it."""
                    self.closed = True
                    emit({"type": "control-lost", "reason": reason or "the phone closed the processcontrol channel"})
                    super().on_closed(reason)

            return Observed


        def error_chain(ns_error):
            """An NSError and those under it (NSUnderlyingError, decoded by pymobiledevice3 as NSError too:
            dtx/ns_types.py), outermost first, by their parts. A phone nests FrontBoard's refusal one or two levels under
            processcontrol's own com.apple.dt.deviceprocesscontrolservice error, so the cause is at the bottom."""
            chain = []
            while ns_error is not None and len(chain) < 8:
                info = ns_error.user_info if isinstance(ns_error.user_info, dict) else {}

                def text(key):
                    return info.get(key) if isinstance(info.get(key), str) else None

                chain.append({"domain": ns_error.domain, "code": ns_error.code, "code_name": text("BSErrorCodeDescription"),
                              "description": text("NSLocalizedDescription"), "reason": text("NSLocalizedFailureReason")})
                under = info.get("NSUnderlyingError")
                ns_error = under if hasattr(under, "domain") and hasattr(under, "code") else None
            return chain


        def refusal(ident, kind, error):
            """A refused command; the phone's NSError (pymobiledevice3's DTXNsError: dtx/channel.py _unwrap_reply) and
            those under it, so launchbench can name the cause and the fix."""
            line = {"type": "refused", "id": ident, "cmd": kind, "error": type(error).__name__, "message": str(error)}
            ns_error = getattr(error, "error", None)
            if type(error).__name__ == "DTXNsError" and ns_error is not None:
                line["errors"] = error_chain(ns_error)
            return line


        async def serve_commands(dvt, commands):
            """Runs the processcontrol commands in order; the channel opens with the first of them."""
            from pymobiledevice3.services.dvt.instruments.process_control import ProcessControl

            control = None
            while True:
                command = await commands.get()
                kind, ident = command.get("cmd"), command.get("id")
                try:
                    if control is None or getattr(control.service, "closed", False):
                        control = ProcessControl(dvt, await dvt.dtx.open_channel(observed_process_control()))
                    if kind == "launch":
                        pid = await control.launch(command["bundle"], arguments=command.get("args") or [],
                                                   environment=command.get("env") or {},
                                                   kill_existing=command.get("kill_existing", True))
                        emit({"type": "launched", "id": ident, "pid": pid})
                        try:  # as Frida and tidevice do after a launch; a phone that sends events anyway may refuse
                            await control.service.startObservingPid_(pid)
                        except Exception as error:
                            print(f"startObservingPid: {error!r}", file=sys.stderr, flush=True)
                    elif kind == "kill":
                        await control.kill(command["pid"])
                        emit({"type": "killed", "id": ident, "pid": command["pid"]})
                    elif kind == "pid":
                        pid = await control.process_identifier_for_bundle_identifier(command["bundle"])
                        emit({"type": "pid", "id": ident, "pid": pid})
                    else:
                        emit({"type": "refused", "id": ident, "cmd": kind, "error": "unknown", "message": "no such command"})
                except AssertionError:  # launch: the device answered pid 0
                    emit({"type": "refused", "id": ident, "cmd": kind, "error": "no-pid",
                          "message": "the device answered the launch without a pid"})
                except Exception as error:
                    emit(refusal(ident, kind, error))


        async def developer_mode_off(provider):
            """Whether the phone says Developer Mode is off (iOS 16+: lockdown's com.apple.security.mac.amfi
            DeveloperModeStatus, read as pymobiledevice3's get_developer_mode_status does); False when it cannot say."""
            try:
                if not getattr(provider, "has_developer_mode", False):
                    return False
                return not await provider.get_developer_mode_status()
            except Exception:
                return False


        def log_message(label, data):
            """One of the session's first messages on stderr (the helper's log), for a bug report (`launchbench doctor
            --capture`): its size, first bytes and, for a notice, what it says."""
            text = f"{label}: {len(data)} bytes, starting {bytes(data[:32]).hex()}"
            if data.startswith(b"bplist"):
                text += f", notice {notice_of(data)!r}"
            print(text, file=sys.stderr, flush=True)


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
            commands = asyncio.Queue()
            loop = asyncio.get_running_loop()

            def watch_stdin():  # commands, one a line; launchbench closes stdin to stop the session
                for line in sys.stdin.buffer:
                    try:
                        command = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(command, dict):
                        loop.call_soon_threadsafe(commands.put_nowait, command)
                loop.call_soon_threadsafe(stopped.set)

            threading.Thread(target=watch_stdin, daemon=True).start()
            try:
                async with DvtProvider(provider) as dvt:
                    async with DeviceInfo(dvt) as info:
                        time_info = await info.mach_time_info()
                    print(f"machTimeInfo: {list(time_info)!r}", file=sys.stderr, flush=True)
                    channel = CoreProfileSessionTapChannel(dvt)
                    await channel.connect()
                    service = channel.service
                    filters = FILTERS | ({PAGE_FAULTS} if args.page_faults else set())
                    trigger = {"kdf2": filters, "ta": [[0], [2]], "tk": 3, "uuid": "launchbench-kdebug"}
                    # nohb: Instruments' "discard heartbeats when possible" (-[DTTapConfig discardHeartbeatsWhenPossible],
                    # a key of every tap's configuration); whether the core profile tap honours it is unverified, so an
                    # empty message is still read as a heartbeat below.
                    await service.set_config_({"tc": [trigger], "rp": 100, "bm": 0, "ur": 100, "nohb": True})
                    await service.start()
                    first = await asyncio.wait_for(service.messages.get(), START_TIMEOUT_SECONDS)
                    log_message("message 1 after start", first)
                    logged = 1
                    notice = notice_of(first) if first.startswith(b"bplist") else None
                    if notice is not None and isinstance(notice.get("status"), int) and notice["status"] != 0:
                        fail("kperf-locked", str(notice.get("notice", "")))
                    emit({"type": "ready", "mach_absolute_time": time_info[0], "numer": time_info[1],
                          "denom": time_info[2]})
                    if notice is None:
                        emit({"type": "chunk", "data": base64.b64encode(first).decode()})
                    server = asyncio.ensure_future(serve_commands(dvt, commands))
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
                            # A heartbeat (an empty DATA message, or a notice without payload: pymobiledevice3 turns both
                            # into b""; its activity_trace_tap.py skips them as heartbeats). A closed connection is not
                            # empty: in 11.45.0 it shuts the queue down and get() raises (dtx/service.py, QueueShutDown).
                            continue
                        if logged < 4:
                            logged += 1
                            log_message(f"message {logged} after start", data)
                        if data.startswith(b"bplist"):
                            decoded = notice_of(data) or {}
                            emit({"type": "notice", "notice": str(decoded.get("notice", "")),
                                  "status": decoded.get("status") if isinstance(decoded.get("status"), int) else None})
                            continue
                        emit({"type": "chunk", "data": base64.b64encode(data).decode()})
                    server.cancel()
                    await service.stop()
            except SystemExit:
                raise
            except asyncio.TimeoutError:
                fail("connect", "the device did not start the core profile session")
            except Exception as error:
                if type(error).__name__ in ("InvalidServiceError", "StartServiceError"):
                    # No instruments service: before iOS 14 (the old one is not used), or no Developer Disk Image,
                    # which cannot be mounted while Developer Mode is off (mobile_image_mounter.py,
                    # raise_if_cannot_mount), so that is named first.
                    if await developer_mode_off(provider):
                        fail("developer-mode", "Developer Mode is off")
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
            parser.add_argument("--page-faults", action="store_true")
            args = parser.parse_args()
            check_version()
            asyncio.run(run(args))


        if __name__ == "__main__":
            main()
        """#
}
