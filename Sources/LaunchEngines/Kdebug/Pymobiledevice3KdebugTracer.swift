import Foundation
import LaunchBench

/// Arms each device's core profile session through pymobiledevice3's Python API: one long-lived helper
/// process per device (``KdebugTapScript``), which streams the device's raw kdebug chunks as NDJSON; the
/// core decodes and measures them. Reaches the instruments service as the debugserver sidecar reaches
/// debugserver: lockdown (with TLS) up to iOS 16, the userspace tunnel from 17.4, tunneld on 17.0–17.3.
package struct Pymobiledevice3KdebugTracer: KdebugTracing {
    private let setup: Pymobiledevice3Setup
    /// The run's log folder: each helper's stderr goes to `<UDID>/kdebug-tap.log` in it (`kdebug-tap-2.log` for
    /// the next helper of the device).
    private let logs: URL

    /// The helpers of `setup`, logging into `logs` (the results folder's `logs/`).
    package init(_ setup: Pymobiledevice3Setup, logs: URL) {
        self.setup = setup
        self.logs = logs
    }

    /// A helper that dies during the run is restarted (`KdebugTapRestarts`), each with a log of its own.
    package func startTrace(on device: DeviceInfo) async throws -> KdebugFeed {
        let first = try await startHelper(on: device)
        return KdebugTapRestarts.supervise(first, udid: device.udid) { try await self.startHelper(on: device) }
    }

    /// One helper process and its session.
    func startHelper(on device: DeviceInfo) async throws -> KdebugFeed {
        // The program's own Python and import path, whatever wraps it (`PythonInterpreter`).
        let interpreter = try await PythonInterpreter.resolve(program: setup.executable)
        let script = try Self.scriptFile()
        var arguments = [script.path, "--udid", device.udid] + setup.helperArguments(for: device)
        if let usbmux = setup.environment["PYMOBILEDEVICE3_USBMUX"] { arguments += ["--usbmux", usbmux] }
        if setup.pageFaults { arguments.append("--page-faults") }
        var environment = try setup.helperEnvironment()
        if !interpreter.importPath.isEmpty {
            environment["PYTHONPATH"] = ([environment["PYTHONPATH"]].compactMap { $0 } + interpreter.importPath)
                .joined(separator: ":")
        }
        let log = try HelperLog.next(in: logs.appendingPathComponent(device.udid), named: "kdebug-tap")
        let helper = try KdebugTapProcess.start(
            udid: device.udid, python: interpreter.python, arguments: arguments, environment: environment, log: log)
        return try await helper.feed(startTimeout: setup.startTimeout)
    }

    /// The helper script, written once per launchbench process into the same private folder as the checksum
    /// fix (`Pymobiledevice3ChecksumFix.folder()`): Python searches a script's own folder first, so it must be
    /// one no other user can write. It goes when launchbench exits (`PrivateFolder.run()`).
    static func scriptFile() throws -> URL {
        try scriptLocation.withLock { location in
            if let location { return location }
            let url = try Pymobiledevice3ChecksumFix.folder().appendingPathComponent("kdebug_tap.py")
            do {
                try Data(KdebugTapScript.source.utf8).write(to: url, options: .atomic)
            } catch {
                throw KdebugTapError.cannotWriteScript(path: url.path, reason: error.localizedDescription)
            }
            location = url
            return url
        }
    }

    private static let scriptLocation = Locked<URL?>(nil)
}
