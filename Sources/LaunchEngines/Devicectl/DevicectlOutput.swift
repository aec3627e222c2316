import Foundation
import LaunchBench

/// What devicectl prints, parsed: `list devices --json-output`, `device info processes --json-output`,
/// the console lines of `device process launch --console`, and its `ERROR:` lines.
/// Shapes: Tests/LaunchEnginesTests/Fixtures/devicectl/README.md (sources cited there).
enum DevicectlOutput {
    /// `result.devices[]` of `devicectl list devices --json-output F`.
    static func devices(fromJSON data: Data) -> [DeviceInfo] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let result = root["result"] as? [String: Any], let devices = result["devices"] as? [[String: Any]]
        else { return [] }
        return devices.compactMap { device in
            let hardware = device["hardwareProperties"] as? [String: Any] ?? [:]
            let properties = device["deviceProperties"] as? [String: Any] ?? [:]
            let connection = device["connectionProperties"] as? [String: Any] ?? [:]
            guard let udid = hardware["udid"] as? String else { return nil }
            return DeviceInfo(
                udid: udid, name: properties["name"] as? String ?? udid,
                productType: hardware["productType"] as? String ?? "",
                osVersion: properties["osVersionNumber"] as? String ?? "",
                buildVersion: properties["osBuildUpdate"] as? String ?? "",
                connection: (connection["transportType"] as? String) == "wired" ? .usb : .network)
        }
    }

    /// The pids of running processes whose executable lies in an `.app` bundle with `executableName`
    /// (`result.runningProcesses[]` of `device info processes --json-output F`).
    static func processIdentifiers(fromJSON data: Data, executableName: String) -> [Int] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let result = root["result"] as? [String: Any],
            let processes = result["runningProcesses"] as? [[String: Any]]
        else { return [] }
        return processes.compactMap { process in
            guard let executable = process["executable"] as? String,
                executable.hasSuffix(".app/" + executableName) || executable.hasSuffix(".app/" + executableName + "/"),
                let pid = process["processIdentifier"] as? Int
            else { return nil }
            return pid
        }
    }

    /// devicectl's own lines in a `--console` launch (everything else is the app's).
    enum ConsoleLine: Equatable {
        /// `The app terminated with the exit code N.`
        case exited(Int)
        /// `App terminated due to signal N.`
        case signaled(Int)
        /// `ERROR: …`
        case error(String)
        /// Launch banners (`Launched application with … bundle identifier.`, `Waiting for the application to terminate…`).
        case status
        /// A line of the app's output.
        case app
    }

    static func classify(_ line: String) -> ConsoleLine {
        let text = line.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        if let code = number(in: text, after: "The app terminated with the exit code ") { return .exited(code) }
        if let signal = number(in: text, after: "App terminated due to signal ") { return .signaled(signal) }
        if text.hasPrefix("ERROR: ") { return .error(String(text.dropFirst("ERROR: ".count))) }
        if text.hasPrefix("Launched application with ") || text.hasPrefix("Waiting for the application to terminate")
            || text.hasPrefix("Press CTRL-C to") || isProgress(text)
        {
            return .status
        }
        return .app
    }

    /// `08:15:02  Enabling developer disk image services.`: devicectl's timestamped progress.
    private static func isProgress(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(10))
        guard bytes.count == 10, bytes[8] == UInt8(ascii: " "), bytes[9] == UInt8(ascii: " ") else { return false }
        return bytes[2] == UInt8(ascii: ":") && bytes[5] == UInt8(ascii: ":")
            && [0, 1, 3, 4, 6, 7].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }
    }

    private static func number(in text: String, after prefix: String) -> Int? {
        guard text.hasPrefix(prefix) else { return nil }
        return Int(text.dropFirst(prefix.count).prefix { $0.isNumber || $0 == "-" })
    }

    /// The `ERROR:` lines of a failed call's output (or its last line when there is none).
    static func errorMessage(stdout: String, stderr: String) -> String {
        let lines = (stderr + "\n" + stdout).split(separator: "\n").map(String.init)
        let errors = lines.compactMap { line -> String? in
            if case .error(let message) = classify(line) { return message }
            return nil
        }
        if !errors.isEmpty { return errors.joined(separator: " ") }
        return lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "no output"
    }

    /// What kind of failure devicectl's message is.
    static func failureKind(_ message: String) -> DriverFailureKind {
        let text = message.lowercased()
        if text.contains("not connected") || text.contains("disconnected") || text.contains("unable to locate device") {
            return .deviceLost
        }
        return .launchRefused
    }
}
