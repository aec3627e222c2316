import Foundation
import LaunchBench
import Testing

@testable import MobileDevice

/// Each error table against the header libimobiledevice was built with: a code the header defines and a
/// table lacks would reach users as a bare number.
@Suite struct ErrorTextsTests {
    static let headers = URL(fileURLWithPath: "/usr/include/libimobiledevice")

    /// `NAME = value` of every constant with `prefix` in `header`, without `*_SUCCESS` and `AFC_E_FORCE_SIGNED_TYPE`.
    static func constants(_ header: String, prefix: String) throws -> [String: Int32] {
        let url = headers.appendingPathComponent(header)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw TestFailure("\(url.path) is missing: run Scripts/bootstrap (it installs libimobiledevice-dev)")
        }
        var found: [String: Int32] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { " \t=,".contains($0) })
            guard fields.count >= 2, fields[0].hasPrefix(prefix), let value = Int32(fields[1]) else { continue }
            let name = String(fields[0])
            if name.hasSuffix("_SUCCESS") || name.hasSuffix("_FORCE_SIGNED_TYPE") { continue }
            found[name] = value
        }
        return found
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test(arguments: [
        ("libimobiledevice.h", "IDEVICE_E_", ErrorTexts.idevice, 6),
        ("installation_proxy.h", "INSTPROXY_E_", ErrorTexts.installationProxy, 64),
        ("afc.h", "AFC_E_", ErrorTexts.afc, 27),
        ("debugserver.h", "DEBUGSERVER_E_", ErrorTexts.debugserver, 6),
        ("diagnostics_relay.h", "DIAGNOSTICS_RELAY_E_", ErrorTexts.diagnosticsRelay, 5),
    ])
    func everyCodeOfTheHeaderHasAText(header: String, prefix: String, table: [Int32: String], atLeast: Int) throws {
        let constants = try Self.constants(header, prefix: prefix)
        #expect(constants.count >= atLeast, "the header parse found too few constants: \(constants.keys.sorted())")
        let missing = constants.filter { table[$0.value] == nil }.keys.sorted()
        #expect(missing.isEmpty, "\(header): no text for \(missing)")
        let unknown = Set(table.keys).subtracting(constants.values).sorted()
        #expect(unknown.isEmpty, "\(header) defines no code \(unknown)")
    }

    @Test func aTimeoutKeepsItsFraction() {
        func text(_ duration: Duration) -> String {
            DeviceError.timedOut(operation: "Install", udid: "U", seconds: duration.totalSeconds).errorDescription ?? ""
        }
        #expect(text(.milliseconds(500)).contains("within 0.5 s"))
        #expect(text(.milliseconds(1250)).contains("within 1.25 s"))
        #expect(text(.seconds(10)).contains("within 10 s"))
    }
}
