import Foundation
import LaunchBench

/// One running `pymobiledevice3 developer debugserver start-server --udid U --local-port P`: forwards
/// each TCP connection to 127.0.0.1:P to a new debugserver connection on the device. Its stdout and
/// stderr go to `logURL`. Stopped by `stop()`, and by `HelperRegistry` when launchbench exits.
final class DebugserverSidecar: Sendable {
    let udid: String
    let port: UInt16
    private let helper: HelperProcess

    /// Starts the sidecar and waits until it listens.
    /// - Parameter environment: the sidecar's whole environment (`Pymobiledevice3Setup.helperEnvironment()`).
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
        let arguments =
            globalArguments
            + ["developer", "debugserver", "start-server", "--udid", udid, "--local-port", String(port)]
            + extraArguments
        let helper: HelperProcess
        do {
            helper = try HelperProcess.start(
                executable: executable, arguments: arguments, environment: environment, log: logURL)
        } catch HelperProcess.Failure.cannotStart {
            throw EngineError.missing(
                engine: .pymobiledevice3, path: executable, install: EngineChoice.pymobiledevice3Install)
        }
        let sidecar = DebugserverSidecar(udid: udid, port: port, helper: helper)
        do {
            return try await helper.awaitReady(within: startTimeout, every: .milliseconds(50)) {
                sidecar.listens ? sidecar : nil
            }
        } catch HelperProcess.Failure.exited(let status) {
            throw EngineError.sidecarExited(udid: udid, status: status, log: sidecar.logTail(), logPath: logURL.path)
        } catch HelperProcess.Failure.hung {
            throw EngineError.sidecarHung(
                udid: udid, seconds: startTimeout.totalSeconds, log: sidecar.logTail(), logPath: logURL.path)
        }
    }

    private init(udid: String, port: UInt16, helper: HelperProcess) {
        self.udid = udid
        self.port = port
        self.helper = helper
    }

    var logURL: URL { helper.logURL }
    var isRunning: Bool { helper.isRunning && listens }

    /// The sidecar itself listens on its port (not some other program that took the port meanwhile).
    private var listens: Bool {
        LocalPort.isListening(port, by: helper.processIdentifier) ?? LocalPort.isListening(port)
    }
    var processIdentifier: Int32 { helper.processIdentifier }

    /// The log's size now, to quote only what is printed after it (`logTail(since:)`).
    var logSize: UInt64 { HelperLog.size(of: logURL) }

    /// The last lines the sidecar printed (after `offset`), at most ~600 characters, for error texts.
    func logTail(since offset: UInt64 = 0) -> String {
        // pymobiledevice3 prints lldb connection steps on start; they are not worth quoting.
        HelperLog.tail(of: logURL, since: offset, lines: 4, characters: 600) {
            $0.hasPrefix("(lldb)") || $0.contains("connections steps")
        }
    }

    /// SIGTERM, then SIGKILL if it is still there after 2 s; returns once it is gone (`HelperProcess.stop()`).
    func stop() async {
        await helper.stop()
    }
}
