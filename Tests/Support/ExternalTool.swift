import Foundation

/// What an external tool did.
package struct ToolResult: Sendable {
    /// Exit status; `nil` when the tool ran past its timeout and was killed.
    package var exitCode: Int32?
    package var standardOutput: String
    package var standardError: String

    /// stdout split into non-empty lines.
    package var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
}

/// Independent clients (the Debian `idevice_id`, `ideviceinfo`, `idevicename`, `ideviceinstaller`…)
/// used as black-box checks against a ``PrivateLab``.
///
/// Skip a test when the tool is missing (install them with `Scripts/bootstrap`):
/// ```swift
/// @Test(.enabled(if: ExternalTool.isInstalled("idevice_id"), "idevice_id missing: run Scripts/bootstrap"))
/// func listsDevices() async throws {
///     try await PrivateLab.with { lab in
///         let result = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
///         #expect(result.exitCode == 0)
///     }
/// }
/// ```
package enum ExternalTool {
    /// The full path of `name` on `PATH`, or `nil`.
    package static func path(of name: String) -> String? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in searchPath.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether `name` is installed (for `.enabled(if:)`).
    package static func isInstalled(_ name: String) -> Bool { path(of: name) != nil }

    /// Runs a tool to completion with `USBMUXD_SOCKET_ADDRESS` set for the child only.
    /// - Parameters:
    ///   - name: tool name (looked up on `PATH`) or an absolute path.
    ///   - arguments: its arguments.
    ///   - usbmuxd: the lab's `usbmuxdSocketAddress`.
    ///   - timeout: the tool is killed after this (generous default: the machine may be loaded).
    /// - Throws: when the tool is not installed or cannot start.
    package static func run(
        _ name: String, _ arguments: [String], usbmuxd: String, timeout: Duration = .seconds(60)
    ) async throws -> ToolResult {
        guard let executable = name.hasPrefix("/") ? name : path(of: name) else {
            throw ToolNotFound(name: name)
        }
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: ["USBMUXD_SOCKET_ADDRESS": usbmuxd])
        let status = try await child.waitForExit(timeout: timeout)
        return ToolResult(exitCode: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }
}

/// A tool the test needs is not on PATH.
package struct ToolNotFound: Error, CustomStringConvertible {
    package var name: String
    package var description: String {
        "\(name) is not installed. Run Scripts/bootstrap (it installs libimobiledevice-utils)."
    }
}
