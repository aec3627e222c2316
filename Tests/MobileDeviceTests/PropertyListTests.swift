import Foundation
import Testing

@testable import MobileDevice

@Suite struct PropertyListTests {
    static let sample: PropertyListValue = [
        "Request": "GetValue",
        "Port": 49152,
        "EnableServiceSSL": true,
        "Ratio": .real(0.25),
        "Name": "Ana’s iPhone ✓ 日本",
        "Blob": .data([0, 1, 2, 254, 255]),
        "List": ["a", 1, false, ["nested": "dict"]],
        "Empty": .dictionary([:]),
        "Big": .integer(0xE800_8015),
        "When": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
    ]

    @Test func roundTripsThroughACPlist() {
        let node = PlistNode(Self.sample)
        #expect(node.value == Self.sample)
    }

    @Test func booleansAndIntegersKeepTheirTypes() {
        // lockdown ignores EnableServiceSSL unless it is a real boolean (PROTOCOLS §10.3).
        let node = PlistNode(["Flag": true, "Number": 1])
        #expect(node.xml.contains("<true/>"))
        #expect(node.xml.contains("<integer>1</integer>"))
        #expect(node.value["Flag"] == .bool(true))
        #expect(node.value["Number"] == .integer(1))
    }

    @Test func libplistXMLReadsBackWithFoundation() throws {
        let xml = PlistNode(Self.sample).xml
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil)
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["Name"] as? String == "Ana’s iPhone ✓ 日本")
        #expect((dictionary["Port"] as? NSNumber)?.intValue == 49152)
        #expect(dictionary["Blob"] as? Data == Data([0, 1, 2, 254, 255]))
        #expect((dictionary["List"] as? [Any])?.count == 4)
    }

    @Test func foundationXMLReadsWithLibplist() throws {
        let foundation = try #require(Self.sample.foundationObject as? [String: Any])
        let data = try PropertyListSerialization.data(fromPropertyList: foundation, format: .xml, options: 0)
        let node = try #require(PlistNode(xml: String(decoding: data, as: UTF8.self)))
        #expect(node.value["Name"] == .string("Ana’s iPhone ✓ 日本"))
        #expect(node.value["Blob"] == .data([0, 1, 2, 254, 255]))
        #expect(node.value["List"] == ["a", 1, false, ["nested": "dict"]])
        #expect(node.value["When"] == .date(Date(timeIntervalSinceReferenceDate: 700_000_000)))
    }

    @Test func garbageIsNotAPlist() {
        #expect(PlistNode(xml: "not a plist") == nil)
    }

    @Test func installdStatusesAreInterpretedLikeLibimobiledevice() {
        let progress = InstallProgress()
        progress.receive(["PercentComplete": 40, "Status": "VerifyingApplication"])
        #expect(progress.outcome == nil)
        #expect(progress.lastStatus == "VerifyingApplication")
        progress.receive(["Status": "Complete"])
        #expect(progress.outcome == .complete)

        let failing = InstallProgress()
        failing.receive([
            "Error": "ApplicationVerificationFailed", "ErrorDescription": "bad signature", "ErrorDetail": 0xE800_8015,
        ])
        #expect(
            failing.outcome
                == .failed(error: "ApplicationVerificationFailed", description: "bad signature", detail: 0xE800_8015))

        // A message without Status ends the command (the library's loop stops there too).
        let bare = InstallProgress()
        bare.receive(["Something": "else"])
        #expect(bare.outcome == .complete)
    }
}
