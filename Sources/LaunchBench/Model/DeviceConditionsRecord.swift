import Foundation

/// A device's conditions over its run (`conditions` of a device outcome in run.json): the typical values the
/// gate compares, the first and last readings, and what `--require` cost.
package struct DeviceConditionsRecord: Sendable, Hashable, Codable {
    /// Each numeric condition's median over the iterations' readings, charging and Low Power Mode as most
    /// readings said, the thermal state of the last reading; what no reading gave is absent.
    package var typical: DeviceConditions?
    /// The first iteration's reading.
    package var first: DeviceConditions?
    /// The last iteration's reading.
    package var last: DeviceConditions?
    /// How many readings were taken (one per iteration).
    package var readings: Int = 0
    /// `--require` as given (`nil` when nothing was required).
    package var required: String?
    /// Iterations whose launches were taken outside the requirements (the wait ran out, or a condition was not
    /// reported).
    package var iterationsOutside: Int?
    /// Seconds spent waiting for the requirements, over the run.
    package var waitedSeconds: Double?

    /// An empty record.
    package init() {}

    /// Reads the record field by field: an odd value costs that value only.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        typical = try? c.decodeIfPresent(DeviceConditions.self, forKey: .typical)
        first = try? c.decodeIfPresent(DeviceConditions.self, forKey: .first)
        last = try? c.decodeIfPresent(DeviceConditions.self, forKey: .last)
        readings = (try? c.decodeIfPresent(Int.self, forKey: .readings)) ?? 0
        required = try? c.decodeIfPresent(String.self, forKey: .required)
        iterationsOutside = try? c.decodeIfPresent(Int.self, forKey: .iterationsOutside)
        waitedSeconds = try? c.decodeIfPresent(Double.self, forKey: .waitedSeconds)
    }

    /// The typical conditions of `readings` (see `typical`).
    static func typical(of readings: [DeviceConditions]) -> DeviceConditions? {
        guard let last = readings.last else { return nil }
        func median(_ values: [Double]) -> Double? {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return nil }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        func majority(_ flags: [Bool]) -> Bool? {
            guard !flags.isEmpty else { return nil }
            let on = flags.filter { $0 }.count
            // A tie goes to the latest reading.
            return on * 2 == flags.count ? flags[flags.count - 1] : on * 2 > flags.count
        }
        var typical = DeviceConditions(
            batteryPercent: median(readings.compactMap(\.batteryPercent)),
            charging: majority(readings.compactMap(\.charging)),
            temperatureC: median(readings.compactMap(\.temperatureC)),
            uptimeSeconds: median(readings.compactMap(\.uptimeSeconds)),
            freeStorageBytes: median(readings.compactMap(\.freeStorageBytes)),
            lowPowerMode: majority(readings.compactMap(\.lowPowerMode)), thermalState: last.thermalState)
        let missing = Dictionary(
            readings.flatMap { ($0.unavailable ?? [:]).map { ($0.key, $0.value) } }, uniquingKeysWith: { a, _ in a })
        let unreported = missing.filter { DeviceCondition(rawValue: $0.key).map { !typical.reports($0) } ?? false }
        typical.unavailable = unreported.isEmpty ? nil : unreported
        return typical
    }
}

extension DeviceConditionsRecord {
    /// The device's conditions in one line for every report's device section (`Conditions: battery 80 %,
    /// charging, 31.5 °C, … (typical of 10 readings)`), with what `--require` cost; `nil` without readings.
    package var remark: String? {
        guard let typical, readings > 0 else { return nil }
        var text = "Conditions: \(typical.summary) (typical of \(readings) reading\(readings == 1 ? "" : "s"))"
        if let required {
            let outside = iterationsOutside ?? 0
            text += "; --require \(required): "
            text +=
                outside == 0
                ? "held for every iteration"
                : "\(outside) iteration\(outside == 1 ? "" : "s") taken outside it"
            if let waitedSeconds, waitedSeconds > 0 {
                text += ", waited \(DecimalText.fixed(waitedSeconds, maxFractionDigits: 1)) s"
            }
        }
        return text + "."
    }
}
