import Foundation
import TestSupport

/// A small client of the emulated phone's processcontrol on pymobiledevice3 11.45.0's own API (the project's
/// `.venv-pmd3`): it launches, reads output events through `ProcessControl`'s iterator and termination notices
/// through a `ProcessControlService` subclass (the library only logs them), asks pids for a bundle id and kills,
/// printing one JSON object a line.
enum ProcessControlClientScript {
    /// The virtual environment's Python, when `Scripts/bootstrap` installed pymobiledevice3 there.
    static let python: String? = {
        let path = PackageRoot.at(".venv-pmd3/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// Runs the client in `mode` (`wait`: launch, read until the app ends; `kill`: launch, read to `done`, kill;
    /// `relaunch`: launch, read to `done`, launch again, kill the second; `absent`: launch an app that is not
    /// installed; `nocallback`: as `kill`, without publishing the terminationCallback capability, then one more
    /// request, so any notice would have arrived) and returns its JSON lines.
    static func run(
        mode: String, udid: String, bundleID: String, usbmux: String, environment: [String: String] = [:]
    ) async throws -> (lines: [[String: Any]], stderr: String) {
        guard let python else { throw CocoaError(.fileNoSuchFile) }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent(
            "processcontrol-client-\(UUID().uuidString).py")
        try Data(source.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        var arguments = [script.path, mode, udid, bundleID, usbmux]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments.append("\(key)=\(value)") }
        let result = try await ChildProcess.run(python, arguments, timeout: .seconds(90))
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (lines, result.stderr + (result.status == 0 ? "" : "\nexit status \(String(describing: result.status))"))
    }

    static let source = #"""
        import asyncio, json, sys
        from pymobiledevice3.dtx import dtx_on_invoke
        from pymobiledevice3.lockdown import create_using_usbmux
        from pymobiledevice3.services.dvt.instruments.dvt_provider import DvtProvider
        from pymobiledevice3.services.dvt.instruments.process_control import ProcessControl, ProcessControlService

        def emit(obj):
            print(json.dumps(obj), flush=True)

        ended = {}

        class Observed(ProcessControlService):
            @dtx_on_invoke("processWithPID:terminatedWithExitCode:orCrashingSignal:")
            async def _on_process_terminated(self, pid, exit_code, crashing_signal):
                emit({"type": "terminated", "pid": pid, "exit_code": exit_code, "signal": crashing_signal})
                ended.setdefault(pid, asyncio.Event()).set()

        async def main(mode, udid, bundle, usbmux, env):
            lockdown = await create_using_usbmux(serial=udid, usbmux_address=usbmux)
            provider = DvtProvider(lockdown)
            if mode == "nocallback":
                provider.sent_capabilities.pop(
                    "com.apple.instruments.client.processcontrol.capability.terminationCallback")
            async with provider as dvt:
                pc = ProcessControl(dvt, await dvt.dtx.open_channel(Observed))
                output = {}
                done = {}

                async def read():
                    async for event in pc:
                        emit({"type": "output", "pid": event.pid, "text": event.message})
                        output[event.pid] = output.get(event.pid, "") + event.message
                        if "[launchbench] done" in output[event.pid]:
                            done.setdefault(event.pid, asyncio.Event()).set()

                reader = asyncio.create_task(read())

                async def launch():
                    pid = await pc.launch(bundle, arguments=["-launchbench", "yes"], environment=env)
                    emit({"type": "launched", "pid": pid})
                    return pid

                async def wait(events, pid):
                    await asyncio.wait_for(events.setdefault(pid, asyncio.Event()).wait(), 30)

                if mode == "absent":
                    try:
                        await pc.launch("com.example.absent")
                    except Exception as error:
                        chain, ns = [], getattr(error, "error", None)
                        while ns is not None and len(chain) < 8:  # the NSErrors under it, as decoded
                            info = ns.user_info or {}
                            chain.append([ns.domain, ns.code, info.get("BSErrorCodeDescription"),
                                          info.get("NSLocalizedFailureReason")])
                            ns = info.get("NSUnderlyingError")
                        emit({"type": "refused", "error": type(error).__name__, "message": str(error), "chain": chain})
                    reader.cancel()
                    return
                pid = await launch()
                if mode == "nocallback":
                    await wait(done, pid)
                    await pc.kill(pid)
                    emit({"type": "killed", "pid": pid})
                    emit({"type": "pid_for_bundle", "pid": await pc.process_identifier_for_bundle_identifier(bundle)})
                    reader.cancel()
                    return
                if mode == "wait":
                    await wait(ended, pid)
                else:
                    await wait(done, pid)
                    emit({"type": "pid_for_bundle", "pid": await pc.process_identifier_for_bundle_identifier(bundle)})
                    if mode == "relaunch":
                        first, pid = pid, await launch()
                        await wait(ended, first)
                        await wait(done, pid)
                    await pc.kill(pid)
                    await wait(ended, pid)
                    emit({"type": "pid_for_bundle", "pid": await pc.process_identifier_for_bundle_identifier(bundle)})
                reader.cancel()

        mode, udid, bundle, usbmux = sys.argv[1:5]
        asyncio.run(main(mode, udid, bundle, usbmux, dict(kv.split("=", 1) for kv in sys.argv[5:])))
        """#
}
