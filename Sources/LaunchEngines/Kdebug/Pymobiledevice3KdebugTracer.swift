import Foundation
import LaunchBench

/// Arms each device's core profile session through pymobiledevice3's Python API: one long-lived helper
/// process per device (``KdebugTapScript``), which streams the device's raw kdebug chunks as NDJSON; the
/// core decodes and measures them. Reaches the instruments service as the debugserver sidecar reaches
/// debugserver: lockdown (with TLS) up to iOS 16, the userspace tunnel from 17.4, tunneld on 17.0–17.3.
package struct Pymobiledevice3KdebugTracer: KdebugTracing {
    /// The `pymobiledevice3` program; its Python runs the helper.
    package var executable: String
    /// Added to the helper's environment (`PYMOBILEDEVICE3_USBMUX` for an emulated lab).
    package var environment: [String: String]
    /// The root tunneld for iOS 17.0–17.3 (as `Pymobiledevice3Engine.Configuration.tunneld`).
    package var tunneld: String?
    /// Where each helper's stderr goes: `folder/<UDID>/kdebug-tap.log` (`kdebug-tap-2.log` for the next helper
    /// of the device); by default the run's private folder (`PrivateFolder.run()`).
    package var logFolder: URL
    /// How long the session may take to start (a userspace tunnel takes seconds on a real phone).
    package var startTimeout: Duration

    package init(
        executable: String, environment: [String: String] = [:], tunneld: String? = nil,
        logFolder: URL = PrivateFolder.runLocation.appendingPathComponent("logs"),
        startTimeout: Duration = .seconds(60)
    ) {
        self.executable = executable
        self.environment = environment
        self.tunneld = tunneld
        self.logFolder = logFolder
        self.startTimeout = startTimeout
    }

    /// A helper that dies during the run is restarted (`KdebugTapRestarts`), each with a log of its own.
    package func startTrace(on device: DeviceInfo) async throws -> KdebugFeed {
        let first = try await startHelper(on: device)
        return KdebugTapRestarts.supervise(first, udid: device.udid) { try await self.startHelper(on: device) }
    }

    /// One helper process and its session.
    func startHelper(on device: DeviceInfo) async throws -> KdebugFeed {
        let python = try Self.python(for: executable)
        let script = try Self.scriptFile()
        var arguments = [script.path, "--udid", device.udid]
        if let version = device.version, version.major >= 17 {
            if version >= OSVersion(17, 4) {
                arguments += ["--transport", "userspace"]
            } else {
                arguments += ["--transport", "tunneld", "--tunneld", Self.tunneldAddress(tunneld)]
            }
        }
        if let usbmux = environment["PYMOBILEDEVICE3_USBMUX"] { arguments += ["--usbmux", usbmux] }
        let environment = try Pymobiledevice3ChecksumFix.environment(
            adding: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let log = try HelperLog.next(in: logFolder.appendingPathComponent(device.udid), named: "kdebug-tap")
        let helper = try KdebugTapProcess.start(
            udid: device.udid, python: python, arguments: arguments, environment: environment, log: log)
        return try await helper.feed(startTimeout: startTimeout)
    }

    /// tunneld's address as `host:port` (a bare port is on 127.0.0.1; pymobiledevice3's default 49151).
    static func tunneldAddress(_ tunneld: String?) -> String {
        guard let tunneld, !tunneld.isEmpty else { return "127.0.0.1:49151" }
        return tunneld.contains(":") ? tunneld : "127.0.0.1:\(tunneld)"
    }

    /// The Python that runs `pymobiledevice3`: `python3` beside it (a virtual environment or pipx), else
    /// its `#!` line.
    static func python(for executable: String) throws -> String {
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for name in ["python3", "python"] {
            let candidate = folder.appendingPathComponent(name).path
            if Pymobiledevice3Locator.isExecutable(candidate) { return candidate }
        }
        if let handle = FileHandle(forReadingAtPath: executable) {
            defer { try? handle.close() }
            let head = String(decoding: handle.readData(ofLength: 512), as: UTF8.self)
            if head.hasPrefix("#!"), let line = head.dropFirst(2).split(separator: "\n").first {
                let words = line.split(separator: " ").map(String.init)
                if let interpreter = words.first, interpreter.hasSuffix("/env"), words.count > 1,
                    let found = Pymobiledevice3Locator.onPath(
                        words[1], environment: ProcessInfo.processInfo.environment)
                {
                    return found  // `#!/usr/bin/env python3`
                }
                if let interpreter = words.first, Pymobiledevice3Locator.isExecutable(interpreter) {
                    return interpreter
                }
            }
        }
        throw KdebugTapError.noPython(executable: executable)
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
