import Foundation
import LaunchBench

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The devicectl engine (macOS, Xcode 16+): `xcrun devicectl` lists, installs, uninstalls, launches with
/// `--console` (the app's stdout/stderr stream back, devicectl waits for its exit) and terminates. Pure
/// Foundation, so it builds and is tested on Linux against a stand-in `xcrun` on `PATH`.
package final class DevicectlDriver: Sendable {
    /// Runs devicectl under a pseudo-terminal when stdout is not one (devicectl wants a terminal to
    /// stream the console): BSD `script -q -t 0 /dev/null …` on macOS, nothing elsewhere.
    package let terminalWrapper: [String]
    private let xcrun: Xcrun
    /// bundle id → executable name, learnt at install, to find the app's pid when it must be terminated.
    private let executables = Locked<[String: String]>([:])

    package static let defaultTerminalWrapper: [String] = {
        #if os(macOS)
            return ["/usr/bin/script", "-q", "-t", "0", "/dev/null"]
        #else
            return []
        #endif
    }()

    package init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        terminalWrapper: [String] = DevicectlDriver.defaultTerminalWrapper
    ) {
        self.xcrun = Xcrun(environment: environment)
        self.terminalWrapper = terminalWrapper
    }

    /// `devicectl list devices --json-output F` (for the tests: runs list devices through lockdown).
    func listDevices() async throws -> [DeviceInfo] {
        try await withJSONOutput(["list", "devices"], operation: "list devices", udid: "-") { data in
            DevicectlOutput.devices(fromJSON: data)
        }
    }

    package func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        executables.withLock { $0[app.bundleID] = app.executable }
        try await call(
            ["device", "install", "app", "--device", udid, app.url.path], operation: "device install app",
            udid: udid, timeout: timeout, kind: .installFailed)
    }

    /// Succeeds when the app was not installed (as the lockdown engine does).
    package func uninstall(bundleID: String, on udid: String) async throws {
        do {
            try await call(
                ["device", "uninstall", "app", "--device", udid, bundleID], operation: "device uninstall app",
                udid: udid, timeout: .seconds(120), kind: .installFailed)
        } catch EngineError.devicectl(_, _, let message, _, _) where message.lowercased().contains("not installed") {
            return
        }
    }

    /// The argv of a console launch (after the terminal wrapper).
    package static func launchArguments(_ request: LaunchRequest, udid: String) -> [String] {
        var environment: [String: String] = [:]
        for variable in request.environment { environment[variable.name] = variable.value }  // the last one wins
        let json =
            (try? JSONSerialization.data(withJSONObject: environment, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return [
            "devicectl", "device", "process", "launch", "--device", udid, "--terminate-existing", "--console",
            "--environment-variables", json, request.bundleID,
        ] + request.arguments
    }

    /// Launches with `--console`, streams the app's lines to `observer`, and ends the launch when the app
    /// exits, when the observer says so, or on cancellation (then devicectl is stopped and the app terminated).
    package func launch(
        _ request: LaunchRequest, on udid: String, observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let cancelled = Locked(false)
        let command = terminalWrapper + [xcrun.executable()] + Self.launchArguments(request, udid: udid)
        let environment = xcrun.environment
        let outcome = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Made and run on this one thread: the console reader's state never crosses threads.
                DispatchQueue.global().async {
                    continuation.resume(
                        with: Result {
                            try ConsoleLaunch(
                                command: command, environment: environment, observer: observer, cancelled: cancelled
                            ).run()
                        })
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        switch outcome {
        case .ended(let termination):
            return termination
        case .stopped(let stop):
            await terminateApp(request.bundleID, on: udid)
            if stop == .cancelled { throw CancellationError() }
            return .endedByHarness(stop)
        case .failed(let message, let status):
            throw EngineError.devicectl(
                operation: "device process launch", udid: udid, message: message, exitStatus: status,
                kind: DevicectlOutput.failureKind(message))
        }
    }

    /// Finds the app's pid (`device info processes`) and terminates it; best effort, the next launch's
    /// `--terminate-existing` ends a survivor anyway.
    func terminateApp(_ bundleID: String, on udid: String) async {
        guard let executable = executables.withLock({ $0[bundleID] }) else { return }
        let pids =
            (try? await withJSONOutput(
                ["device", "info", "processes", "--device", udid], operation: "device info processes", udid: udid
            ) { DevicectlOutput.processIdentifiers(fromJSON: $0, executableName: executable) }) ?? []
        for pid in pids {
            _ = try? await xcrun.run(
                ["devicectl", "device", "process", "terminate", "--device", udid, "--pid", String(pid)],
                timeout: .seconds(30))
        }
    }

    private func call(
        _ arguments: [String], operation: String, udid: String, timeout: Duration, kind: DriverFailureKind
    ) async throws {
        let output = try await xcrun.run(["devicectl"] + arguments, timeout: timeout)
        guard output.status == 0 else {
            let message = DevicectlOutput.errorMessage(stdout: output.stdout, stderr: output.stderr)
            let failure = DevicectlOutput.failureKind(message)
            throw EngineError.devicectl(
                operation: operation, udid: udid, message: message, exitStatus: output.status,
                kind: failure == .deviceLost ? .deviceLost : kind)
        }
    }

    private func withJSONOutput<T>(
        _ arguments: [String], operation: String, udid: String, _ parse: (Data) -> T
    ) async throws -> T {
        // In the run's private folder: another user could otherwise swap the JSON devicectl writes.
        let file = try PrivateFolder.run().appendingPathComponent("devicectl-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try await call(
            arguments + ["--json-output", file.path], operation: operation, udid: udid, timeout: .seconds(60),
            kind: .other)
        return parse((try? Data(contentsOf: file)) ?? Data())
    }
}

/// One `devicectl device process launch --console` run, made and read on one plain thread (not `Sendable`).
private final class ConsoleLaunch {
    enum Outcome {
        case ended(LaunchTermination)
        case stopped(HarnessStop)
        case failed(String, Int32?)
    }

    private let process = Process()
    private let pipe = Pipe()
    private let observer: any LaunchObserver
    private let cancelled: Locked<Bool>
    private var line: [UInt8] = []
    private var errors: [String] = []
    private var lastLine = ""
    private var ending: LaunchTermination?

    init(command: [String], environment: [String: String], observer: any LaunchObserver, cancelled: Locked<Bool>) throws
    {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        self.observer = observer
        self.cancelled = cancelled
    }

    func run() throws -> Outcome {
        do {
            try process.run()
        } catch {
            return .failed("xcrun could not be started: \(error.localizedDescription)", nil)
        }
        observer.launched(at: .now)
        let fd = pipe.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if cancelled.current { return stop(.cancelled) }
            if let stopReason = observer.shouldEnd(at: .now) { return stop(stopReason) }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            consume(buffer.prefix(count))
        }
        if !line.isEmpty { finishLine() }
        process.waitUntilExit()
        if let ending { return .ended(ending) }
        if !errors.isEmpty { return .failed(errors.joined(separator: " "), process.terminationStatus) }
        return .failed(
            "devicectl ended (status \(process.terminationStatus)) without saying how the app ended; its last line: "
                + "\"\(lastLine)\"", process.terminationStatus)
    }

    private func consume(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            line.append(byte)
            if byte == UInt8(ascii: "\n") { finishLine() }
        }
    }

    private func finishLine() {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
        switch DevicectlOutput.classify(text) {
        case .app:
            // A pseudo-terminal turns "\n" into "\r\n": give the app's line back as it printed it.
            var bytes = line
            if bytes.suffix(2) == [13, 10] {
                bytes.removeLast(2)
                bytes.append(10)
            }
            observer.output(bytes)
        case .exited(let code): ending = .exited(status: code)
        case .signaled(let signal):
            ending = Self.crashSignals.contains(signal) ? .crashed(signal: signal) : .signaled(signal: signal)
        case .error(let message): errors.append(message)
        case .status: break
        }
        if !text.isEmpty { lastLine = text }
        line.removeAll(keepingCapacity: true)
    }

    /// Signals an app dies of when it crashes (SIGILL, SIGTRAP, SIGABRT, SIGEMT, SIGFPE, SIGBUS, SIGSEGV, SIGSYS).
    static let crashSignals: Set<Int> = [4, 5, 6, 7, 8, 10, 11, 12]

    private func stop(_ reason: HarnessStop) -> Outcome {
        if process.isRunning {
            process.interrupt()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        return .stopped(reason)
    }
}
