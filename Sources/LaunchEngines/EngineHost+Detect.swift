import Foundation
import LaunchBench

extension EngineHost {
    /// This computer: macOS or not, the selected Xcode's version (macOS only), and pymobiledevice3
    /// (`Pymobiledevice3Locator`), or why a `LAUNCHBENCH_PYMOBILEDEVICE3` setting was not taken.
    package static func detect(environment: [String: String] = ProcessInfo.processInfo.environment) -> EngineHost {
        #if os(macOS)
            let isMacOS = true
            let xcode = xcodeVersion(environment: environment)
        #else
            let isMacOS = false
            let xcode: OSVersion? = nil
        #endif
        let search = Pymobiledevice3Locator.search(environment: environment)
        let found = search.found
        return EngineHost(
            isMacOS: isMacOS, xcodeVersion: xcode,
            pymobiledevice3: found,
            pymobiledevice3Problem: found == nil ? explicitPymobiledevice3Problem(environment: environment) : nil,
            pymobiledevice3Search: found == nil ? search.summary : nil)
    }

    /// `LAUNCHBENCH_PYMOBILEDEVICE3` set to something that is not a program (`Pymobiledevice3Locator` then
    /// finds nothing, and the install command would not help): the variable, its value and the fix.
    static func explicitPymobiledevice3Problem(environment: [String: String]) -> String? {
        let name = Pymobiledevice3Locator.environmentVariable
        guard let value = environment[name], !value.isEmpty, !Pymobiledevice3Locator.isExecutable(value) else {
            return nil
        }
        let what = FileManager.default.fileExists(atPath: value) ? "is not an executable program" : "does not exist"
        return "\(name) is set to \(value), which \(what). Point \(name) at the pymobiledevice3 program "
            + "(e.g. .venv-pmd3/bin/pymobiledevice3) or unset it to have launchbench look for one"
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
