import Foundation
import LaunchBench

extension EngineHost {
    /// This computer: macOS or not, the selected Xcode's version (macOS only), and pymobiledevice3
    /// (`Pymobiledevice3Locator`).
    public static func detect(environment: [String: String] = ProcessInfo.processInfo.environment) -> EngineHost {
        #if os(macOS)
            return EngineHost(
                isMacOS: true, xcodeVersion: xcodeVersion(environment: environment),
                pymobiledevice3: Pymobiledevice3Locator.find(environment: environment))
        #else
            return EngineHost(isMacOS: false, pymobiledevice3: Pymobiledevice3Locator.find(environment: environment))
        #endif
    }

    /// `Xcode 16.2` from `xcodebuild -version`, `nil` without Xcode.
    static func xcodeVersion(environment: [String: String]) -> OSVersion? {
        guard let xcodebuild = Pymobiledevice3Locator.onPath("xcodebuild", environment: environment) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xcodebuild)
        process.arguments = ["-version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return parseXcodeVersion(String(decoding: data, as: UTF8.self))
    }

    /// The version in `Xcode 16.2\nBuild version 16C5032a`.
    static func parseXcodeVersion(_ text: String) -> OSVersion? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Xcode ") }) else { return nil }
        return OSVersion(String(line.dropFirst("Xcode ".count)).trimmingCharacters(in: .whitespaces))
    }
}
