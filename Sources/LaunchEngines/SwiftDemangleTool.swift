import Foundation
import LaunchBench

/// The toolchain's `swift-demangle`, which names Swift initializers readably (`InitializerNames`). Found, in
/// this order: `LAUNCHBENCH_SWIFT_DEMANGLE` (a path, the user's own choice); then beside the `swift` of a
/// `PATH` folder that no other user can write (its real location, after symbolic links, must be as safe),
/// so a folder such as a shared `/tmp` on `PATH` cannot plant a program that launchbench would run.
package struct SwiftDemangleTool: SymbolDemangling {
    package static let environmentVariable = "LAUNCHBENCH_SWIFT_DEMANGLE"

    /// The program's path.
    package let path: String

    /// The tool, or nil when none is found.
    package static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> Self? {
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            return Pymobiledevice3Locator.isExecutable(explicit) ? Self(path: explicit) : nil
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let swift = String(folder) + "/swift"
            guard Pymobiledevice3Locator.isExecutable(swift), Self.onlyOwnersWrite(String(folder)) else { continue }
            let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent().path
            let candidate = real + "/swift-demangle"
            guard Self.onlyOwnersWrite(real), Pymobiledevice3Locator.isExecutable(candidate),
                Self.onlyOwnersWrite(candidate)
            else { continue }
            return Self(path: candidate)
        }
        return nil
    }

    /// Whether `path` belongs to this user or root and no one else may write it.
    static func onlyOwnersWrite(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return (status.st_uid == geteuid() || status.st_uid == 0) && status.st_mode & 0o022 == 0
    }

    /// One `swift-demangle -compact` over every name (one per line, in order); a name it leaves as it was is
    /// left out. At most 30 s: a hung tool names nothing.
    package func demangle(_ names: [String]) -> [String: String] {
        let wanted = names.filter { !$0.contains("\n") && !$0.isEmpty }
        guard !wanted.isEmpty else { return [:] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-compact"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return [:] }
        // Written from another thread: the tool's output could fill its pipe before all input is read.
        let text = Data((wanted.joined(separator: "\n") + "\n").utf8)
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: text)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let deadline = Date().addingTimeInterval(30)
        let timer = Thread {
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { process.terminate() }
        }
        timer.start()
        let data = (try? output.fileHandleForReading.readToEnd()) ?? Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return [:] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String: String] = [:]
        for (name, line) in zip(wanted, lines) where String(line) != name && !line.isEmpty {
            out[name] = String(line)
        }
        return out
    }
}
