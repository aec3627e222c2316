import Foundation
import LaunchBench

/// One running `pymobiledevice3 developer debugserver start-server --udid U --local-port P`: forwards
/// each TCP connection to 127.0.0.1:P to a new debugserver connection on the device. Its stdout and
/// stderr go to `logURL`. Stopped by `stop()`, and by `SidecarRegistry` when launchbench exits.
final class DebugserverSidecar: @unchecked Sendable {
    // @unchecked: `process` is only started here and then asked/terminated (Process is thread-safe for that).
    let udid: String
    let port: UInt16
    let logURL: URL
    private let process: Process

    /// Starts the sidecar and waits until it listens.
    /// - Throws: `EngineError.missing`, `.sidecarExited` (with what it printed), `.sidecarHung` after `startTimeout`.
    static func start(
        executable: String, globalArguments: [String] = [], udid: String, extraArguments: [String],
        environment: [String: String], logURL: URL,
        startTimeout: Duration
    ) async throws -> DebugserverSidecar {
        guard Pymobiledevice3Locator.isExecutable(executable) else {
            throw EngineError.missing(
                engine: .pymobiledevice3, path: executable, install: EngineChoice.pymobiledevice3Install)
        }
        guard let port = LocalPort.free() else {
            throw EngineError.sidecarExited(udid: udid, status: -1, log: "no free port on 127.0.0.1", logPath: "")
        }
        let environment = try Pymobiledevice3ChecksumFix.environment(
            adding: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        let arguments =
            globalArguments
            + ["developer", "debugserver", "start-server", "--udid", udid, "--local-port", String(port)]
            + extraArguments
        log.write(Data("$ \(executable) \(arguments.joined(separator: " "))\n".utf8))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw EngineError.missing(
                engine: .pymobiledevice3, path: executable, install: EngineChoice.pymobiledevice3Install)
        }
        try? log.close()
        SidecarRegistry.add(process.processIdentifier)
        let sidecar = DebugserverSidecar(udid: udid, port: port, logURL: logURL, process: process)

        let deadline = ContinuousClock.now + startTimeout
        while true {
            if !process.isRunning {
                SidecarRegistry.remove(process.processIdentifier)
                throw EngineError.sidecarExited(
                    udid: udid, status: process.terminationStatus, log: sidecar.logTail(), logPath: logURL.path)
            }
            if sidecar.listens { return sidecar }
            if ContinuousClock.now >= deadline {
                await sidecar.stop()
                throw EngineError.sidecarHung(
                    udid: udid, seconds: startTimeout.totalSeconds,
                    log: sidecar.logTail(), logPath: logURL.path)
            }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                await sidecar.stop()
                throw error
            }
        }
    }

    private init(udid: String, port: UInt16, logURL: URL, process: Process) {
        self.udid = udid
        self.port = port
        self.logURL = logURL
        self.process = process
    }

    var isRunning: Bool { process.isRunning && listens }

    /// The sidecar itself listens on its port (not some other program that took the port meanwhile).
    private var listens: Bool {
        LocalPort.isListening(port, by: process.processIdentifier) ?? LocalPort.isListening(port)
    }
    var processIdentifier: Int32 { process.processIdentifier }

    /// The log's size now, to quote only what is printed after it (`logTail(since:)`).
    var logSize: UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: logURL.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The last lines the sidecar printed (after `offset`), at most ~600 characters, for error texts.
    func logTail(since offset: UInt64 = 0) -> String {
        guard let handle = try? FileHandle(forReadingFrom: logURL) else { return "" }
        defer { try? handle.close() }
        handle.seek(toFileOffset: offset)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("$ ") && !$0.isEmpty }
        // pymobiledevice3 prints lldb connection steps on start; they are not worth quoting.
        let useful = lines.filter { !$0.hasPrefix("(lldb)") && !$0.contains("connections steps") }
        return String(useful.suffix(4).joined(separator: " | ").suffix(600))
    }

    /// SIGTERM, then SIGKILL if it is still there after 2 s; returns once it is gone (reaped), at most ~4 s.
    /// It waits with `Task.sleep`, never blocking a thread of the cooperative pool: a sidecar tearing down
    /// its tunnel can take seconds, and a 2-core machine has two such threads.
    func stop() async {
        let pid = process.processIdentifier
        if process.isRunning {
            process.terminate()
            await waitForExit(upTo: .seconds(2))
            if process.isRunning { kill(pid, SIGKILL) }
            await waitForExit(upTo: .seconds(2))
        }
        SidecarRegistry.remove(pid)
    }

    private func waitForExit(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline {
            // Not cancellable: a run that is being cancelled still waits for its sidecar to go.
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The sidecars alive in this process, killed at `exit()` (a second Ctrl-C quits with `exit`), so none
/// outlives launchbench. (A SIGKILL of launchbench itself cannot be caught; the README says so.)
enum SidecarRegistry {
    private static let pids = Locked<Set<Int32>>([])
    private static let installed = Locked(false)

    static func add(_ pid: Int32) {
        pids.withLock { _ = $0.insert(pid) }
        let first = installed.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        if first { atexit { SidecarRegistry.killAll() } }
    }

    static func remove(_ pid: Int32) {
        pids.withLock { _ = $0.remove(pid) }
    }

    /// The pids alive now (for tests).
    static var alive: Set<Int32> { pids.current }

    static func killAll() {
        for pid in pids.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}
