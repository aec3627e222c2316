import Foundation
import Testing

@testable import LaunchBench

/// `--require`'s list: what it accepts, what it refuses (naming the item), and that a condition the device did
/// not report is neither met nor unmet.
@Suite struct ConditionRequirementTests {
    @Test func theIssuesListParsesIntoFourConditions() throws {
        let list = try ConditionRequirement.parseList("charging,battery>=50,temperature<=35,uptime>=300")
        #expect(list.map(\.text) == ["charging", "battery>=50", "temperature<=35", "uptime>=300"])
        #expect(list[0].rule == .charging(true))
        #expect(list[1].rule == .bound(.battery, .atLeast, 50))
        #expect(list[2].rule == .bound(.temperature, .atMost, 35))
        #expect(list[3].rule == .bound(.uptime, .atLeast, 300))
        #expect(try ConditionRequirement.parse("storage>2.5").rule == .bound(.storage, .above, 2.5))
        #expect(try ConditionRequirement.parse("thermal-state<=fair").rule == .thermalAtMost("fair"))
        #expect(try ConditionRequirement.parseList(" charging , ,charging").count == 1)
    }

    @Test(arguments: ["humidity<=40", "battery", "warm", "temperature=35", "temp<=35"])
    func anUnknownConditionIsNamed(_ text: String) {
        #expect(throws: ConditionRequirementError.unknownCondition(text)) { try ConditionRequirement.parse(text) }
    }

    @Test(arguments: [
        "battery>=abc", "temperature<=", "uptime>=-5", "battery>=150", "thermal-state<=hot", "storage>=nan",
    ])
    func aMalformedBoundIsNamed(_ text: String) {
        do {
            _ = try ConditionRequirement.parseList("charging,\(text)")
            Issue.record("\(text) was accepted")
        } catch {
            guard case .malformedBound(let named, _) = error else {
                Issue.record("\(text): \(error)")
                return
            }
            #expect(named == text)
            #expect(error.description.hasPrefix("--require \(text): the bound is malformed"))
        }
    }

    @Test func aConditionTheDeviceDidNotReportIsNeitherMetNorUnmet() throws {
        let conditions = DeviceConditions(
            batteryPercent: 80, charging: true, temperatureC: 41.5, unavailable: ["uptime": "not offered"])
        #expect(try ConditionRequirement.parse("charging").holds(in: conditions) == true)
        #expect(try ConditionRequirement.parse("not-charging").holds(in: conditions) == false)
        #expect(try ConditionRequirement.parse("battery>=50").holds(in: conditions) == true)
        #expect(try ConditionRequirement.parse("temperature<=35").holds(in: conditions) == false)
        #expect(try ConditionRequirement.parse("uptime>=300").holds(in: conditions) == nil)
        #expect(try ConditionRequirement.parse("low-power-mode-off").holds(in: conditions) == nil)
        #expect(conditions.summary.hasPrefix("battery 80 %, charging, 41.5 °C, "))
        #expect(conditions.summary.contains("uptime, free storage, Low Power Mode, thermal state: not reported"))
    }

    @Test func conditionsRoundTripAndAnOldSampleReadsWithout() throws {
        var conditions = DeviceConditions(batteryPercent: 55, charging: false, temperatureC: 33.25)
        conditions.outsideRequirements = ["temperature<=30"]
        let data = try JSONCoding.encoder().encode(conditions)
        #expect(String(decoding: data, as: UTF8.self).contains("\"temperature_c\":33.25"))
        #expect(try JSONCoding.decoder().decode(DeviceConditions.self, from: data) == conditions)
        let old = Sample(
            runID: "r", deviceUDID: "U", deviceName: "P", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "a", appVersion: "1", iteration: 1, kind: .cold, status: .ok, startedAt: Date())
        let line = try JSONCoding.encoder().encode(old)
        #expect(!String(decoding: line, as: UTF8.self).contains("conditions"))
        #expect(try JSONCoding.decoder().decode(Sample.self, from: line).conditions == nil)
    }
}
